package interop

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// sdkConnect connects the official SDK's client to s at version ("" is the
// client's default: 2026-07-28, the stateless revision).
func sdkConnect(t *testing.T, s *server, client *http.Client, version string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := sdk.NewClient(&sdk.Implementation{Name: "interop-gosdk", Version: "1.0.0"}, nil)
	var opts *sdk.ClientSessionOptions
	if version != "" {
		opts = &sdk.ClientSessionOptions{ProtocolVersion: version}
	}
	session, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: client}, opts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func sdkCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestGoSDKClientConnectsStatelesslyAtTheNewestVersion(t *testing.T) {
	s := newServer(t)
	session := sdkConnect(t, s, nil, "")
	init := session.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, modernVersion, init.ProtocolVersion, "the client's default, which the server speaks")
	require.NotNil(t, init.ServerInfo, "read from server/discover's _meta")
	assert.Equal(t, "interop-server", init.ServerInfo.Name)
	assert.Equal(t, "1.2.3", init.ServerInfo.Version)
	require.NotNil(t, init.Capabilities.Tools)
	_, err := session.ListTools(sdkCtx(t), nil)
	require.NoError(t, err)
	// ping is gone from 2026-07-28: 404 with -32601, which the client reports.
	err = session.Ping(sdkCtx(t), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Method not found: ping")

	// No initialize and no session id: the client discovers the server,
	// and every request names the version.
	assert.Equal(t, "server/discover", s.exchanges()[0].RPC)
	for _, ex := range s.exchanges() {
		assert.Empty(t, ex.Session)
		assert.NotEqual(t, "initialize", ex.RPC)
		if ex.Method == http.MethodPost {
			assert.Equal(t, modernVersion, ex.Protocol, "%+v", ex)
		}
	}
}

func TestGoSDKClientNegotiatesTheNewestVersionThroughInitialize(t *testing.T) {
	s := newServer(t)
	session := sdkConnect(t, s, nil, mcp.NewestInitializeVersion)
	init := session.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, mcp.NewestInitializeVersion, init.ProtocolVersion)
	assert.Equal(t, "interop-server", init.ServerInfo.Name)
	assert.Equal(t, "1.2.3", init.ServerInfo.Version)
	require.NotNil(t, init.Capabilities.Tools)
	require.NoError(t, session.Ping(sdkCtx(t), nil))

	// Stateless: no session id ever travels, and every request after
	// initialize names the negotiated version.
	sawInitialize := false
	for _, ex := range s.exchanges() {
		assert.Empty(t, ex.Session)
		if ex.RPC == "initialize" {
			sawInitialize = true
			assert.Equal(t, http.StatusOK, ex.Status)
			continue
		}
		if sawInitialize {
			assert.Equal(t, mcp.NewestInitializeVersion, ex.Protocol, "%+v", ex)
		}
		if ex.Method == http.MethodGet {
			assert.Equal(t, http.StatusMethodNotAllowed, ex.Status, "no standalone stream: 405, which the client accepts")
		}
	}
	assert.True(t, sawInitialize)
}

func TestGoSDKClientWorksAtEveryProtocolVersionItCanAskFor(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			s := newServer(t)
			c := sdk.NewClient(&sdk.Implementation{Name: "interop-gosdk", Version: "1.0.0"}, nil)
			session, err := c.Connect(sdkCtx(t), &sdk.StreamableClientTransport{Endpoint: s.URL}, &sdk.ClientSessionOptions{ProtocolVersion: v})
			require.NoError(t, err)
			t.Cleanup(func() { _ = session.Close() })
			assert.Equal(t, v, session.InitializeResult().ProtocolVersion)
			if v == "2025-03-26" {
				// Clients of that revision may require a session id; the
				// server hands one out (and keeps nothing).
				assert.NotEmpty(t, session.ID())
			}
			res, err := session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Quito"}})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, v, lastCall(s).Protocol, "the client names the negotiated version")
		})
	}
}

func TestGoSDKClientListsTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		session := sdkConnect(t, newServer(t), nil, version)
		res, err := session.ListTools(sdkCtx(t), nil)
		require.NoError(t, err)
		byName := map[string]*sdk.Tool{}
		for _, tl := range res.Tools {
			byName[tl.Name] = tl
		}
		require.Len(t, byName, 3)

		fc := byName["forecast"]
		require.NotNil(t, fc)
		assert.Equal(t, "Weather forecast", fc.Title)
		assert.Equal(t, "Tomorrow's temperature in a city", fc.Description)
		assertSchema(t, forecastInputSchema, fc.InputSchema)
		assertSchema(t, forecastOutputSchema, fc.OutputSchema)
		require.NotNil(t, fc.Annotations)
		assert.True(t, fc.Annotations.ReadOnlyHint)
		assertSchema(t, `{"type":"object"}`, byName["fail"].InputSchema)
	})
}

func TestGoSDKClientCallsATypedTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		session := sdkConnect(t, newServer(t), nil, version)
		res, err := session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Oslo"}})
		require.NoError(t, err)
		assert.False(t, res.IsError)
		require.Len(t, res.Content, 1)
		text, ok := res.Content[0].(*sdk.TextContent)
		require.True(t, ok, "content is %T", res.Content[0])
		assert.JSONEq(t, `{"city":"Oslo","temperatureC":21.5}`, text.Text)
		assert.Equal(t, map[string]any{"city": "Oslo", "temperatureC": 21.5}, res.StructuredContent)
	})
}

func TestGoSDKClientSeesFailuresAsToolResults(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		session := sdkConnect(t, newServer(t), nil, version)
		cases := []struct {
			name, tool string
			args       map[string]any
			want       string
		}{
			{"failing tool", "fail", nil, "upstream unavailable"},
			{"panicking tool", "explode", nil, "The tool failed unexpectedly."}, // the value only with WithPanicDetails(true),
			{"validation failure", "forecast", map[string]any{"days": 2}, forecastValidationText},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res, err := session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
				require.NoError(t, err, "a tool failure is a result, not a protocol error")
				assert.True(t, res.IsError)
				require.Len(t, res.Content, 1)
				assert.Equal(t, c.want, res.Content[0].(*sdk.TextContent).Text)
				assert.Nil(t, res.StructuredContent, "nothing a client would check against forecast's outputSchema")
			})
		}
		// The session survives all of it.
		_, err := session.ListTools(sdkCtx(t), nil)
		require.NoError(t, err)
	})
}

func TestGoSDKClientGetsInvalidParamsForAnUnknownTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		session := sdkConnect(t, newServer(t), nil, version)
		_, err := session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "no_such_tool"})
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr)
		assert.EqualValues(t, jsonrpc.CodeInvalidParams, werr.Code)
		assert.Equal(t, "Unknown tool: no_such_tool", werr.Message)
		_, err = session.ListTools(sdkCtx(t), nil)
		require.NoError(t, err, "the session survives")
	})
}

func TestGoSDKClientIsToldExecutionIsDisabled(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		session := sdkConnect(t, newServer(t, toolexec.WithAllowExecute(false)), nil, version)
		_, err := session.ListTools(sdkCtx(t), nil)
		require.NoError(t, err, "discovery still works")
		_, err = session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "fail"})
		var werr *jsonrpc.Error
		require.ErrorAs(t, err, &werr)
		assert.EqualValues(t, mcp.CodeExecutionDisabled, werr.Code)
		assert.Equal(t, "Tool execution is disabled.", werr.Message)
	})
}

func TestGoSDKClientCallsThroughTheAuthHook(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		s := newServer(t, toolexec.WithAuthHook(bearer))

		good := &http.Client{Transport: headerTransport{"Authorization", "Bearer letmein"}}
		session := sdkConnect(t, s, good, version)
		res, err := session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Lima"}})
		require.NoError(t, err)
		assert.False(t, res.IsError)

		anon := sdkConnect(t, s, nil, version) // discovery is never guarded, so it connects
		_, err = anon.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "forecast", Arguments: map[string]any{"city": "Lima"}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "Unauthorized")
	})
}

// headerTransport adds one header to every request.
type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// assertSchema compares a schema as a client decoded it with the JSON the
// host wrote.
func assertSchema(t *testing.T, want string, got any) {
	t.Helper()
	data, err := json.Marshal(got)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(data))
}
