package toolexecotel_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/baggage"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

// postModern sends an MCP 2026-07-28 tools/call of name with the given
// params._meta.
func postModern(t *testing.T, h http.Handler, name, arguments, meta string) *httptest.ResponseRecorder {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + arguments + `,"_meta":` + meta + `}}`
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const traceMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},
	"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01","tracestate":"vendor=1","baggage":"tenant=acme"}`

func mcpExec(t *testing.T, opts ...toolexec.Option) http.Handler {
	t.Helper()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "tenant"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("tenant=" + baggage.FromContext(ctx).Member("tenant").Value())}, false, "", nil
	})
	return mcp.NewHandler(toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(discard())}, opts...)...))
}

func TestModernTraceContextInMetaParentsTheCallSpan(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	h := mcpExec(t, observe(toolexecotel.WithTracerProvider(tp)))
	res := postModern(t, h, "tenant", `{}`, traceMeta)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	spans := rec.Ended()
	require.NotEmpty(t, spans)
	var root sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Parent().IsRemote() {
			root = s
		}
	}
	require.NotNil(t, root, "one span's parent is the remote span of _meta")
	assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", root.SpanContext().TraceID().String())
	assert.Equal(t, "00f067aa0ba902b7", root.Parent().SpanID().String())
	assert.Equal(t, "vendor=1", root.Parent().TraceState().String())
	for _, s := range spans {
		assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", s.SpanContext().TraceID().String(), s.Name())
	}

	// A malformed traceparent is ignored: the call runs in a trace of its own.
	rec2 := tracetest.NewSpanRecorder()
	tp2 := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec2))
	h2 := mcpExec(t, observe(toolexecotel.WithTracerProvider(tp2)))
	bad := strings.Replace(traceMeta, "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", "garbage", 1)
	require.Equal(t, http.StatusOK, postModern(t, h2, "tenant", `{}`, bad).Code)
	require.NotEmpty(t, rec2.Ended())
	for _, s := range rec2.Ended() {
		assert.False(t, s.Parent().IsRemote())
	}
}

func TestModernBaggageInMetaReachesTheHandler(t *testing.T) {
	h := mcpExec(t, observe())
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"baggage":"tenant=acme"}`
	rec := postModern(t, h, "tenant", `{}`, meta)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), `"text":"tenant=acme"`)
}
