package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// scopeHook admits calls of open tools, refuses "admin" with 403 and the
// others without "Authorization" with 401, each through WriteChallenge.
func scopeHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch c := toolexec.CallFromContext(r.Context()); {
		case c.Tool.Name == "admin":
			toolexec.WriteChallenge(w, http.StatusForbidden, `Bearer error="insufficient_scope", scope="admin"`)
		case c.Tool.Name == "open" || r.Header.Get("Authorization") != "":
			next.ServeHTTP(w, r)
		default:
			toolexec.WriteChallenge(w, http.StatusUnauthorized, `Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`)
		}
	})
}

func refusalServer() http.Handler {
	reg := toolexec.NewRegistry()
	ok := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	for _, n := range []string{"open", "admin", "closed"} {
		reg.MustAdd(toolexec.Tool{Name: n}, ok)
	}
	return mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(scopeHook)))
}

func refusalPost(h http.Handler, path, body string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func refusalCall(id, tool string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `"}}`
}

func TestRefusalsCarryTheHooksChallenge(t *testing.T) {
	h := refusalServer()
	w := refusalPost(h, "/mcp", refusalCall("1", "closed"))
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.Equal(t, `Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`, w.Header().Get("WWW-Authenticate"))
	assert.JSONEq(t, `{"error":"Unauthorized"}`, w.Body.String())

	w = refusalPost(h, "/mcp", refusalCall("2", "admin"))
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Equal(t, `Bearer error="insufficient_scope", scope="admin"`, w.Header().Get("WWW-Authenticate"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32012,"message":"Forbidden"}}`, w.Body.String())

	w = refusalPost(h, "/mcp/tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"admin","arguments":{}}}`)
	assert.Equal(t, http.StatusForbidden, w.Code, "HandsAI route")
	assert.Equal(t, `Bearer error="insufficient_scope", scope="admin"`, w.Header().Get("WWW-Authenticate"))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32012,"message":"Forbidden"}}`, w.Body.String())
}

func TestBatchRefusals(t *testing.T) {
	h := refusalServer()
	v := []string{"MCP-Protocol-Version", "2025-03-26"}
	w := refusalPost(h, "/mcp", "["+refusalCall("1", "admin")+","+refusalCall("2", "closed")+"]", v...)
	assert.Equal(t, http.StatusForbidden, w.Code, "no call got past the hook: the first refusal answers")
	assert.Equal(t, `Bearer error="insufficient_scope", scope="admin"`, w.Header().Get("WWW-Authenticate"))

	w = refusalPost(h, "/mcp", "["+refusalCall("1", "open")+","+refusalCall("2", "admin")+"]", v...)
	assert.Equal(t, http.StatusOK, w.Code, "a call ran: its answer must arrive")
	assert.Equal(t, `Bearer error="insufficient_scope", scope="admin"`, w.Header().Get("WWW-Authenticate"))
	assert.Contains(t, w.Body.String(), `{"jsonrpc":"2.0","id":2,"error":{"code":-32012,"message":"Forbidden"}}`)
}

// TestModernRefusalsCarryTheHooksChallenge: at 2026-07-28, as at the 2025
// versions, a refused tools/call answers the hook's status and challenge.
func TestModernRefusalsCarryTheHooksChallenge(t *testing.T) {
	h := refusalServer()
	call := func(tool string) *httptest.ResponseRecorder {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","_meta":` + validMeta + `}}`
		return refusalPost(h, "/mcp", body, "Host", "localhost", "MCP-Protocol-Version", modern,
			"Mcp-Method", "tools/call", "Mcp-Name", tool)
	}
	w := call("closed")
	assert.Equal(t, http.StatusUnauthorized, w.Code, w.Body.String())
	assert.Equal(t, `Bearer resource_metadata="https://x/.well-known/oauth-protected-resource"`, w.Header().Get("WWW-Authenticate"))

	w = call("admin")
	assert.Equal(t, http.StatusForbidden, w.Code, w.Body.String())
	assert.Equal(t, `Bearer error="insufficient_scope", scope="admin"`, w.Header().Get("WWW-Authenticate"))

	w = call("open")
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
}
