package oauth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oauth"
)

// Protect an MCP endpoint with tokens from an authorization server: the
// Verifier guards every call, hides from each caller the tools it may not
// call, and serves the metadata that tells MCP clients where to get a
// token.
func Example() {
	v, err := oauth.NewVerifier(oauth.Config{
		Issuer:          "https://auth.example.com/realms/tools",
		Resources:       []string{"https://tools.example.com/mcp"},
		ScopesSupported: []string{"tools.call"},
	})
	if err != nil {
		log.Fatal(err)
	}
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "echo", Options: toolexec.ToolOptions{Scopes: []string{"tools.call"}}},
		toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			id, _ := oauth.FromContext(ctx) // the verified caller
			return []toolexec.Content{toolexec.Text(id.Subject + " says " + fmt.Sprint(args["text"]))}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(v.AuthHook), toolexec.WithToolFilter(v.FilterTools))

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(x))
	mux.Handle("/.well-known/oauth-protected-resource/", v.Metadata())

	// A client without a token learns where to get one.
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "https://tools.example.com/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`))
	mux.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))

	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "https://tools.example.com/.well-known/oauth-protected-resource/mcp", nil))
	fmt.Print(w.Body.String())
	// Output:
	// 401 Bearer scope="tools.call", resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/mcp"
	// {"resource":"https://tools.example.com/mcp","authorization_servers":["https://auth.example.com/realms/tools"],"scopes_supported":["tools.call"],"bearer_methods_supported":["header"]}
}
