// Command oauth runs, in one process, a small OAuth 2.1 authorization
// server and OpenID Provider, and a toolexec server protected by it as an
// OAuth 2.1 resource server:
//
//	PORT=8080 go run ./oauth     (from the examples module)
//
// MCP clients that implement the MCP authorization specification complete
// it from the MCP URL alone: they find the provider, register (RFC 7591)
// or present a Client ID Metadata Document, and sign the user in with the
// authorization code flow and PKCE (alice, on a consent page that allows
// by itself); or they use the client credentials or device grant with the
// preregistered client demo/demo-secret. It prints how, with mcp-remote
// and curl. See docs/auth.md.
//
// It listens on 127.0.0.1 only: its client secret is printed and mints
// tokens that may call every tool, anyone may register a client, and it
// signs everyone in, so it is for this machine alone. Set ADDR (such as
// ADDR=0.0.0.0) to listen elsewhere, knowingly.
package main

import (
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	base := "http://localhost:" + port
	d, err := newDemo(base, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf(`Authorization server: %[1]s/oauth (metadata: %[1]s/.well-known/oauth-authorization-server/oauth)
REST %[1]s/api   MCP %[1]s/mcp   OXP %[1]s/oxp

# An MCP client signs alice in with a browser (registering itself):
npx -y mcp-remote@0.15.1 %[1]s/mcp
# ... as the preregistered client:
npx -y mcp-remote@0.15.1 %[1]s/mcp --static-oauth-client-info '{"client_id":"demo","client_secret":"demo-secret"}'
# ... without a browser on this machine (it prints a code to approve at %[1]s/oauth/device):
npx -y mcp-remote@0.15.1 %[1]s/mcp --device-code
# ... or signs in as itself:
npx -y mcp-remote@0.15.1 %[1]s/mcp --client-credentials --static-oauth-client-info '{"client_id":"demo","client_secret":"demo-secret"}'

# A token for the MCP endpoint (the resource parameter names it), then a call:
TOKEN=$(curl -s -u demo:demo-secret -d grant_type=client_credentials -d scope=tools.call \
  --data-urlencode resource=%[1]s/mcp %[1]s/oauth/token | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
curl -s -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}' %[1]s/mcp

# The same token cannot call secret (403 insufficient_scope names tools.admin):
curl -si -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
  -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"secret"}}' %[1]s/mcp

# REST wants a token for its own resource:
TOKEN=$(curl -s -u demo:demo-secret -d grant_type=client_credentials -d 'scope=tools.call tools.admin' \
  --data-urlencode resource=%[1]s/api %[1]s/oauth/token | sed 's/.*"access_token":"\([^"]*\)".*/\1/')
curl -s -H "Authorization: Bearer $TOKEN" -d '{}' %[1]s/api/tools/secret/call
`, base)
	srv := &http.Server{Addr: listenAddr(os.Getenv("ADDR"), port), Handler: d.handler,
		ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	log.Printf("listening on %s", srv.Addr)
	log.Fatal(srv.ListenAndServe())
}

// listenAddr is where the demo listens: host (ADDR) and port, host
// 127.0.0.1 unless ADDR names another.
func listenAddr(host, port string) string {
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
