package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// discoveryKept are the members of the provider's discovery document that
// describe what the demo really serves: its issuer, its token endpoint with
// the client authentications that work there, its keys and its scopes.
// code_challenge_methods_supported stays: the official Go SDK's client
// refuses an authorization server that does not name PKCE S256, whatever
// grant it then uses.
var discoveryKept = []string{
	"issuer", "token_endpoint", "jwks_uri", "scopes_supported", "code_challenge_methods_supported",
	"token_endpoint_auth_methods_supported", "id_token_signing_alg_values_supported",
	"subject_types_supported", "claims_supported",
}

// honestDiscovery serves the provider's discovery document
// (/.well-known/openid-configuration) advertising only what the demo
// offers: the client_credentials grant at the token endpoint. The op
// package advertises every flow it knows (authorization code, implicit,
// device, refresh, public clients) although the demo's storage refuses
// them, and an MCP client that reads them (mcp-remote) starts a browser
// flow that can only fail, with an error that misleads (a redirect_uri
// complaint). With no authorization_endpoint and no response type, such a
// client says plainly that the server offers no interactive sign-in.
func honestDiscovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/.well-known/openid-configuration") {
			next.ServeHTTP(w, r)
			return
		}
		rec := &captured{header: make(http.Header)}
		next.ServeHTTP(rec, r)
		var doc map[string]json.RawMessage
		if rec.status != http.StatusOK || json.Unmarshal(rec.body.Bytes(), &doc) != nil {
			rec.replay(w)
			return
		}
		out := map[string]any{
			"grant_types_supported":    []string{"client_credentials"},
			"response_types_supported": []string{},
		}
		for _, k := range discoveryKept {
			if v, ok := doc[k]; ok {
				out[k] = v
			}
		}
		body, err := json.Marshal(out)
		if err != nil {
			rec.replay(w)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
}

// captured is an http.ResponseWriter that keeps what it is given.
type captured struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *captured) Header() http.Header { return c.header }

func (c *captured) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *captured) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	return c.body.Write(p)
}

// replay writes what was captured, unchanged.
func (c *captured) replay(w http.ResponseWriter) {
	for k, v := range c.header {
		w.Header()[k] = v
	}
	if c.status == 0 {
		c.status = http.StatusOK
	}
	w.WriteHeader(c.status)
	_, _ = w.Write(c.body.Bytes())
}
