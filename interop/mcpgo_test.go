package interop

import (
	"context"
	"net/http"
	"testing"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// mcpgoConnect starts mcp-go's Streamable HTTP client against s and
// initializes it at version ("" is the client's default: 2026-07-28, the
// stateless revision); headers are sent with every request.
func mcpgoConnect(t *testing.T, s *server, headers map[string]string, version string) (*mcpclient.Client, *mcpgo.InitializeResult) {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if headers != nil {
		opts = append(opts, transport.WithHTTPHeaders(headers))
	}
	c, err := mcpclient.NewStreamableHttpClient(s.URL, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx := mcpgoCtx(t)
	require.NoError(t, c.Start(ctx))
	init, err := c.Initialize(ctx, mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
		ProtocolVersion: version,
		ClientInfo:      mcpgo.Implementation{Name: "interop-mcpgo", Version: "1.0.0"},
	}})
	require.NoError(t, err)
	return c, init
}

func mcpgoCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mcpgoCall(t *testing.T, c *mcpclient.Client, name string, args map[string]any) (*mcpgo.CallToolResult, error) {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return c.CallTool(mcpgoCtx(t), req)
}

// mcpgoText returns the text of a result's only content block.
func mcpgoText(t *testing.T, res *mcpgo.CallToolResult) string {
	t.Helper()
	require.Len(t, res.Content, 1)
	text, ok := mcpgo.AsTextContent(res.Content[0])
	require.True(t, ok, "content is %T", res.Content[0])
	return text.Text
}

func TestMCPGoClientConnectsStatelesslyAtTheNewestVersion(t *testing.T) {
	s := newServer(t)
	c, init := mcpgoConnect(t, s, nil, "")
	assert.Equal(t, modernVersion, init.ProtocolVersion, "the client's default, which the server speaks")
	assert.Equal(t, "interop-server", init.ServerInfo.Name, "read from server/discover's _meta")
	assert.Equal(t, "1.2.3", init.ServerInfo.Version)
	_, err := c.ListTools(mcpgoCtx(t), mcpgo.ListToolsRequest{})
	require.NoError(t, err)
	assert.Equal(t, "server/discover", s.exchanges()[0].RPC, "the client discovers the server")
	for _, ex := range s.exchanges() {
		assert.Empty(t, ex.Session, "stateless: no session id travels")
		assert.NotEqual(t, "initialize", ex.RPC)
		if ex.Method == http.MethodPost {
			assert.Equal(t, modernVersion, ex.Protocol, "%+v", ex)
		}
	}
}

func TestMCPGoClientNegotiatesTheNewestVersionThroughInitialize(t *testing.T) {
	s := newServer(t)
	c, init := mcpgoConnect(t, s, nil, mcp.NewestInitializeVersion)
	assert.Equal(t, mcp.NewestInitializeVersion, init.ProtocolVersion)
	assert.Equal(t, "interop-server", init.ServerInfo.Name)
	assert.Equal(t, "1.2.3", init.ServerInfo.Version)
	require.NotNil(t, init.Capabilities.Tools)
	// Ping is deprecated in mcp-go for protocol 2026-07-28, where it sends
	// nothing; at the version negotiated here it must reach the server.
	//lint:ignore SA1019 the ping of a 2025 connection is what is tested
	require.NoError(t, c.Ping(mcpgoCtx(t)))

	sawInitialize, sawPing := false, false
	for _, ex := range s.exchanges() {
		sawPing = sawPing || ex.RPC == "ping"
		assert.Empty(t, ex.Session, "stateless: no session id travels")
		if ex.RPC == "initialize" {
			sawInitialize = true
			continue
		}
		if sawInitialize {
			assert.Equal(t, mcp.NewestInitializeVersion, ex.Protocol, "%+v", ex)
		}
	}
	assert.True(t, sawInitialize)
	assert.True(t, sawPing, "the ping reached the server")
}

func TestMCPGoClientWorksAtEveryProtocolVersionItCanAskFor(t *testing.T) {
	for _, v := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run(v, func(t *testing.T) {
			s := newServer(t)
			c, err := mcpclient.NewStreamableHttpClient(s.URL)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			require.NoError(t, c.Start(mcpgoCtx(t)))
			init, err := c.Initialize(mcpgoCtx(t), mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ProtocolVersion: v,
				ClientInfo:      mcpgo.Implementation{Name: "interop-mcpgo", Version: "1.0.0"},
			}})
			require.NoError(t, err)
			assert.Equal(t, v, init.ProtocolVersion)
			res, err := mcpgoCall(t, c, "forecast", map[string]any{"city": "Quito"})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, v, lastCall(s).Protocol, "the client names the negotiated version")
		})
	}
}

func TestMCPGoClientListsTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		c, _ := mcpgoConnect(t, newServer(t), nil, version)
		res, err := c.ListTools(mcpgoCtx(t), mcpgo.ListToolsRequest{})
		require.NoError(t, err)
		byName := map[string]mcpgo.Tool{}
		for _, tl := range res.Tools {
			byName[tl.Name] = tl
		}
		require.Len(t, byName, 3)

		fc, ok := byName["forecast"]
		require.True(t, ok)
		assert.Equal(t, "Weather forecast", fc.Title)
		assert.Equal(t, "Tomorrow's temperature in a city", fc.Description)
		assert.Equal(t, "object", fc.InputSchema.Type)
		assert.Equal(t, []string{"city"}, fc.InputSchema.Required)
		assert.Equal(t, map[string]any{"city": map[string]any{"type": "string", "description": "the city to forecast"}}, fc.InputSchema.Properties)
		assert.Equal(t, false, fc.InputSchema.AdditionalProperties, "inferred from a struct: no other property")
		assert.Equal(t, "object", fc.OutputSchema.Type)
		assert.ElementsMatch(t, []string{"city", "temperatureC"}, fc.OutputSchema.Required)
		assert.Equal(t, map[string]any{"type": "number"}, fc.OutputSchema.Properties["temperatureC"])
		require.NotNil(t, fc.Annotations.ReadOnlyHint)
		assert.True(t, *fc.Annotations.ReadOnlyHint)
		assert.Equal(t, "object", byName["fail"].InputSchema.Type)
	})
}

func TestMCPGoClientCallsATypedTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		c, _ := mcpgoConnect(t, newServer(t), nil, version)
		res, err := mcpgoCall(t, c, "forecast", map[string]any{"city": "Oslo"})
		require.NoError(t, err)
		assert.False(t, res.IsError)
		assert.JSONEq(t, `{"city":"Oslo","temperatureC":21.5}`, mcpgoText(t, res))
		assert.Equal(t, map[string]any{"city": "Oslo", "temperatureC": 21.5}, res.StructuredContent)
	})
}

func TestMCPGoClientSeesFailuresAsToolResults(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		c, _ := mcpgoConnect(t, newServer(t), nil, version)
		cases := []struct {
			name, tool string
			args       map[string]any
			want       string
		}{
			{"failing tool", "fail", nil, "upstream unavailable"},
			{"panicking tool", "explode", nil, "The tool failed unexpectedly."}, // the value only with WithPanicDetails(true),
			{"validation failure", "forecast", map[string]any{"days": 2}, forecastValidationText},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res, err := mcpgoCall(t, c, tc.tool, tc.args)
				require.NoError(t, err, "a tool failure is a result, not a protocol error")
				assert.True(t, res.IsError)
				assert.Equal(t, tc.want, mcpgoText(t, res))
				assert.Nil(t, res.StructuredContent, "nothing a client would check against forecast's outputSchema")
			})
		}
		_, err := c.ListTools(mcpgoCtx(t), mcpgo.ListToolsRequest{})
		require.NoError(t, err, "the client keeps working")
	})
}

func TestMCPGoClientGetsInvalidParamsForAnUnknownTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		c, _ := mcpgoConnect(t, newServer(t), nil, version)
		_, err := mcpgoCall(t, c, "no_such_tool", nil)
		require.ErrorIs(t, err, mcpgo.ErrInvalidParams)
		assert.Contains(t, err.Error(), "Unknown tool: no_such_tool")
	})
}

func TestMCPGoClientIsToldExecutionIsDisabled(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		c, _ := mcpgoConnect(t, newServer(t, toolexec.WithAllowExecute(false)), nil, version)
		_, err := c.ListTools(mcpgoCtx(t), mcpgo.ListToolsRequest{})
		require.NoError(t, err, "discovery still works")
		_, err = mcpgoCall(t, c, "fail", nil)
		require.Error(t, err)
		assert.Equal(t, "Tool execution is disabled.", err.Error())
	})
}

func TestMCPGoClientCallsThroughTheAuthHook(t *testing.T) {
	forEachVersion(t, func(t *testing.T, version string) {
		s := newServer(t, toolexec.WithAuthHook(bearer))

		c, _ := mcpgoConnect(t, s, map[string]string{"Authorization": "Bearer letmein"}, version)
		res, err := mcpgoCall(t, c, "forecast", map[string]any{"city": "Lima"})
		require.NoError(t, err)
		assert.False(t, res.IsError)

		anon, _ := mcpgoConnect(t, s, nil, version) // discovery is never guarded, so it connects
		_, err = mcpgoCall(t, anon, "forecast", map[string]any{"city": "Lima"})
		var authErr *transport.AuthorizationRequiredError
		require.ErrorAs(t, err, &authErr, "a 401 the client recognises: %v", err)

		var refused int
		for _, ex := range s.exchanges() {
			if ex.RPC == "tools/call" && ex.Status == http.StatusUnauthorized {
				refused++
			}
		}
		assert.Equal(t, 1, refused)
	})
}
