package explorer_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
)

// outputExecutor has a tool with an output schema ("count"), one without
// ("plain"), one with a schema that does not compile ("broken"), and hides
// "secret" from callers without the right header.
func outputExecutor(t *testing.T, opts ...toolexec.Option) *toolexec.Executor {
	t.Helper()
	reg := toolexec.NewRegistry()
	noop := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}
	for _, tool := range []toolexec.Tool{
		{Name: "count", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`)},
		{Name: "plain"},
		{Name: "broken", OutputSchema: json.RawMessage(`{"type":"no such type"}`)},
		{Name: "secret", OutputSchema: json.RawMessage(`{"type":"object"}`)},
	} {
		reg.MustAdd(tool, toolexec.ToolCallHandlerFunc(noop))
	}
	hide := func(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
		if r.Header.Get("X-See") != "" {
			return tools
		}
		var out []toolexec.Tool
		for _, tool := range tools {
			if tool.Name != "secret" {
				out = append(out, tool)
			}
		}
		return out
	}
	return toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithToolFilter(hide)}, opts...)...)
}

func postOutput(t *testing.T, h http.Handler, tool, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/_explorer/output?tool="+tool, strings.NewReader(body))
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// The output check answers whether a structuredContent fits the tool's
// output schema, in the validate endpoint's shape, and never runs the tool.
func TestOutputCheck(t *testing.T) {
	x := outputExecutor(t, toolexec.WithMaxBodyBytes(64))
	h := explorer.Wrap(x, toolexec.NewHandler(x))
	tests := []struct {
		name, tool, body string
		header           []string
		status           int
		want             string
	}{
		{name: "fits", tool: "count", body: `{"n": 3}`, status: 200, want: `{"valid":true}`},
		{name: "does not fit", tool: "count", body: `{"n": -1}`, status: 200,
			want: `{"valid":false,"errors":[{"path":"/n","message":"minimum: got -1, want 0","keyword":"minimum"}]}`},
		{name: "missing property", tool: "count", body: `{}`, status: 200,
			want: `{"valid":false,"errors":[{"path":"/n","message":"missing property 'n'","keyword":"required"}]}`},
		{name: "not JSON", tool: "count", body: `{"n":`, status: 400},
		{name: "over the body limit", tool: "count", body: `{"n": 1, "pad": "` + strings.Repeat("x", 100) + `"}`, status: 413},
		{name: "no output schema", tool: "plain", body: `{}`, status: 404, want: `{"error":"Tool plain has no output schema"}`},
		{name: "unknown tool", tool: "nope", body: `{}`, status: 404, want: `{"error":"Tool not found: nope"}`},
		{name: "hidden tool", tool: "secret", body: `{}`, status: 404, want: `{"error":"Tool not found: secret"}`},
		{name: "hidden tool, shown to this caller", tool: "secret", body: `{}`, header: []string{"X-See", "1"}, status: 200, want: `{"valid":true}`},
		{name: "a schema that does not compile", tool: "broken", body: `{}`, status: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := postOutput(t, h, tt.tool, tt.body, tt.header...)
			assert.Equal(t, tt.status, rec.Code, rec.Body.String())
			assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
			if tt.want != "" {
				assert.JSONEq(t, tt.want, rec.Body.String())
			}
			if tt.status == 200 && tt.want == "" {
				assert.Contains(t, rec.Body.String(), `"valid":false`)
				assert.Contains(t, rec.Body.String(), `"keyword":"schema"`)
			}
			if tt.status == 400 {
				assert.Contains(t, rec.Body.String(), `"keyword":"format"`)
			}
		})
	}
	for _, m := range []string{http.MethodGet, http.MethodPut} {
		rec := get(t, h, m, "/_explorer/output?tool=count")
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code, m)
		assert.Equal(t, "POST", rec.Header().Get("Allow"), m)
	}
}

// The output check is guarded as the page is: with rebinding protection
// on, another site's page cannot reach it, the page's own origin can.
func TestOutputCheckIsGuardedAgainstRebinding(t *testing.T) {
	x := outputExecutor(t, toolexec.WithRebindingProtection(toolexec.RebindingProtection{AllowedHosts: []string{"tools.example.com"}}))
	h := explorer.Wrap(x, toolexec.NewHandler(x))
	send := func(host, origin string) int {
		req := httptest.NewRequest(http.MethodPost, "/_explorer/output?tool=count", strings.NewReader(`{"n": 1}`))
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}
	assert.Equal(t, http.StatusOK, send("tools.example.com", ""))
	assert.Equal(t, http.StatusOK, send("tools.example.com", "http://tools.example.com"))
	assert.Equal(t, http.StatusForbidden, send("evil.example", "http://evil.example"))
	assert.Equal(t, http.StatusForbidden, send("tools.example.com", "http://evil.example"))
}
