package toolexec_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
)

// An auth hook that tells refused callers how to authenticate: the surface
// sends the hook's status and WWW-Authenticate challenge with its own
// documented body. The hook reads the tool being called from the context,
// so it can decide per tool (package oauth does this with OAuth scopes).
func ExampleWriteChallenge() {
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Header.Get("Authorization") != "Bearer let-me-in":
				toolexec.WriteChallenge(w, http.StatusUnauthorized, `Bearer realm="tools"`)
			case toolexec.CallFromContext(r.Context()).Tool.Name == "admin":
				toolexec.WriteChallenge(w, http.StatusForbidden, `Bearer error="insufficient_scope", scope="admin"`)
			default:
				next.ServeHTTP(w, r)
			}
		})
	}
	reg := toolexec.NewRegistry()
	hello := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("hello")}, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "hello"}, hello)
	reg.MustAdd(toolexec.Tool{Name: "admin"}, hello)
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(hook)))

	for _, c := range []struct{ tool, auth string }{{"hello", ""}, {"admin", "Bearer let-me-in"}, {"hello", "Bearer let-me-in"}} {
		r := httptest.NewRequest(http.MethodPost, "/tools/"+c.tool+"/call", strings.NewReader(`{}`))
		r.Header.Set("Authorization", c.auth)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"), strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 401 Bearer realm="tools" {"error":"Unauthorized"}
	// 403 Bearer error="insufficient_scope", scope="admin" {"error":"Forbidden"}
	// 200  {"content":[{"type":"text","text":"hello"}],"isError":false}
}
