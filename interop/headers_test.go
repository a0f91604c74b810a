package interop

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	mcpclient "github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// regionServer serves a tool whose region parameter is mirrored into the
// Mcp-Param-Region header at 2026-07-28 (x-mcp-header), and records the
// header each tools/call arrived with.
func regionServer(t *testing.T) (url string, seen func() []string) {
	t.Helper()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "route", Description: "Routes by region",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("routed to " + args["region"].(string))}, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	var mu sync.Mutex
	var headers []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Method") == "tools/call" {
			mu.Lock()
			headers = append(headers, r.Header.Get("Mcp-Param-Region"))
			mu.Unlock()
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), headers...)
	}
}

// At 2026-07-28 both clients mirror an x-mcp-header parameter into its
// header, which the handler checks against the arguments before the tool
// runs; a non-ASCII value travels Base64-encoded.
func TestClientsMirrorXMCPHeaderParametersTheServerChecks(t *testing.T) {
	for _, region := range []string{"us-west1", "Zürich"} {
		t.Run("go-sdk "+region, func(t *testing.T) {
			url, seen := regionServer(t)
			c := sdk.NewClient(&sdk.Implementation{Name: "interop-gosdk", Version: "1.0.0"}, nil)
			session, err := c.Connect(sdkCtx(t), &sdk.StreamableClientTransport{Endpoint: url}, nil)
			require.NoError(t, err)
			t.Cleanup(func() { _ = session.Close() })
			_, err = session.ListTools(sdkCtx(t), nil) // the client learns which parameters to mirror
			require.NoError(t, err)
			res, err := session.CallTool(sdkCtx(t), &sdk.CallToolParams{Name: "route", Arguments: map[string]any{"region": region}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			assert.Equal(t, "routed to "+region, res.Content[0].(*sdk.TextContent).Text)
			assertMirrored(t, region, seen())
		})
		t.Run("mcp-go "+region, func(t *testing.T) {
			url, seen := regionServer(t)
			c, err := mcpclient.NewStreamableHttpClient(url)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Close() })
			require.NoError(t, c.Start(mcpgoCtx(t)))
			_, err = c.Initialize(mcpgoCtx(t), mcpgo.InitializeRequest{Params: mcpgo.InitializeParams{
				ClientInfo: mcpgo.Implementation{Name: "interop-mcpgo", Version: "1.0.0"}}})
			require.NoError(t, err)
			_, err = c.ListTools(mcpgoCtx(t), mcpgo.ListToolsRequest{})
			require.NoError(t, err)
			res, err := mcpgoCall(t, c, "route", map[string]any{"region": region})
			require.NoError(t, err)
			require.False(t, res.IsError)
			assert.Equal(t, "routed to "+region, mcpgoText(t, res))
			assertMirrored(t, region, seen())
		})
	}
}

// assertMirrored checks the header of the last call: the value itself, or
// its Base64 sentinel form for one that is not plain ASCII.
func assertMirrored(t *testing.T, value string, headers []string) {
	t.Helper()
	require.NotEmpty(t, headers)
	want := value
	if value != "us-west1" {
		want = "=?base64?" + base64.StdEncoding.EncodeToString([]byte(value)) + "?="
	}
	assert.Equal(t, want, headers[len(headers)-1])
}
