package main

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestServe_AHiddenToolAndAMissingOneAnswerAlike: with OAuth and public
// lists, tools are hidden per caller, so a caller without a token gets the
// same refusal for a tool hidden from it (admin needs tools.admin) as for
// one that does not exist, whatever it sends, on every route: the REST
// call, toolbox's invoke, MCP, the HandsAI route and OXP.
func TestServe_AHiddenToolAndAMissingOneAnswerAlike(t *testing.T) {
	const issuer = "http://127.0.0.1:1/issuer" // never asked: no token reaches the verifier
	base, _ := startServerWith(t, t.TempDir(), oauthTools, nil,
		"--oauth-issuer", issuer, "--oauth-resource", "https://tools.example.com/", "--oauth-public-list")
	big := `{"pad":"` + strings.Repeat("x", 2<<20) + `"}` // over the 1 MiB body limit
	routes := map[string]func(tool, args string) (string, string){
		"REST":    func(tool, args string) (string, string) { return "/api/tools/" + tool + "/call", args },
		"toolbox": func(tool, args string) (string, string) { return "/api/tool/" + tool + "/invoke", args },
		"MCP": func(tool, args string) (string, string) {
			return "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
		},
		"HandsAI": func(tool, args string) (string, string) {
			return "/mcp/tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
		},
		"OXP": func(tool, args string) (string, string) {
			return "/oxp/tools/call", `{"tool_id":"Tools.` + tool + `","input":` + args + `}`
		},
	}
	for name, route := range routes {
		t.Run(name, func(t *testing.T) {
			for _, args := range []string{`{}`, `[1]`, big} {
				path, body := route("admin", args)
				hidden, hiddenBody := send(t, base, http.MethodPost, path, "", body)
				path, body = route("nope", args)
				missing, missingBody := send(t, base, http.MethodPost, path, "", body)
				assert.Equal(t, hidden.StatusCode, missing.StatusCode, "%s %.20s", name, args)
				assert.Contains(t, []int{http.StatusUnauthorized, http.StatusBadRequest, http.StatusRequestEntityTooLarge}, hidden.StatusCode)
				assert.Equal(t, hiddenBody, missingBody, "%s %.20s", name, args)
				assert.Equal(t, hidden.Header.Get("WWW-Authenticate"), missing.Header.Get("WWW-Authenticate"))
				assert.NotContains(t, missingBody, "nope")
			}
		})
	}
}
