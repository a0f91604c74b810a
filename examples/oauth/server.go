package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oauth"
	"github.com/toolexec/toolexec/oxp"
)

// demo is the whole example: the provider and the protected surfaces.
type demo struct {
	handler  http.Handler
	keys     *keyRing
	provider *provider
	verifier *oauth.Verifier
}

// newDemo builds the example served at base ("http://localhost:8080"):
//
//	/oauth/...                                    the authorization server (issuer base/oauth),
//	/.well-known/oauth-authorization-server/oauth its metadata, as RFC 8414 places it, and
//	/.well-known/openid-configuration/oauth       as MCP clients also look for it
//	/api/..., /mcp, /oxp/...                      REST, MCP and OXP, each its own resource;
//	                                              calls need a token with the tool's scope,
//	                                              lists show only the tools the caller may
//	                                              call, and MCP needs a token for everything
//	/.well-known/oauth-protected-resource/...     their protected resource metadata
//
// fetch, when not nil, is the client the provider fetches Client ID
// Metadata Documents with (the tests trust their TLS server with it); tune,
// when given, adjusts the verifier's configuration (the tests shorten its
// key refresh interval).
func newDemo(base string, fetch *http.Client, tune ...func(*oauth.Config)) (*demo, error) {
	issuer := base + "/oauth"
	resources := []string{base + "/api", base + "/mcp", base + "/oxp"}

	keys := &keyRing{}
	if _, err := keys.rotate(); err != nil {
		return nil, err
	}
	as := newProvider(issuer, keys, resources, fetch)

	// The resource server: tokens from issuer, for one of the resources.
	cfg := oauth.Config{
		Issuer:          issuer,
		Resources:       resources,
		ScopesSupported: []string{"tools.call"}, // basic use; tools.admin comes by step-up
		ResourceName:    "toolexec OAuth demo",
	}
	for _, t := range tune {
		t(&cfg)
	}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		return nil, err
	}

	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "echo",
		Description: "Echoes the text, signed by the caller.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Options:     toolexec.ToolOptions{Scopes: []string{"tools.call"}},
	}, toolexec.ToolCallHandlerFunc(echo))
	reg.MustAdd(toolexec.Tool{
		Name:        "secret",
		Description: "Tells the secret; admins only.",
		Options:     toolexec.ToolOptions{Scopes: []string{"tools.admin"}},
	}, toolexec.ToolCallHandlerFunc(secret))

	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(v.AuthHook),      // every call needs a valid token with the tool's scopes
		toolexec.WithToolFilter(v.FilterTools), // lists show each caller only what it may call
	)

	mux := http.NewServeMux()
	mux.Handle("/oauth/", http.StripPrefix("/oauth", as.handler()))
	mux.HandleFunc("GET /.well-known/oauth-authorization-server/oauth", as.serveMetadata)
	mux.HandleFunc("GET /.well-known/openid-configuration/oauth", as.serveMetadata)
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	// MCP clients expect every request of a protected endpoint to need a
	// token: they start their authorization flow on the first 401.
	mux.Handle("/mcp", v.AuthHook(mcp.NewHandler(x)))
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))
	mux.Handle("/.well-known/oauth-protected-resource/", v.Metadata())
	return &demo{handler: mux, keys: keys, provider: as, verifier: v}, nil
}

func echo(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	id, _ := oauth.FromContext(ctx)
	text, _ := args["text"].(string)
	return []toolexec.Content{toolexec.Text(id.Subject + " says: " + text)}, false, "", nil
}

func secret(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
	return []toolexec.Content{toolexec.Text("the secret is 42")}, false, "", nil
}
