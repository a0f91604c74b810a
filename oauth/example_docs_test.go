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

func deploy(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	id, _ := oauth.FromContext(ctx) // Subject, ClientID, Scopes, Claims, ...
	return []toolexec.Content{toolexec.Text(fmt.Sprintf("%v deployed by %s", args["service"], id.Subject))}, false, "", nil
}

// The set-up of a service with a REST and an MCP endpoint: the Verifier
// guards every call, hides the tools a caller may not call, and serves the
// metadata that tells clients where to get a token.
func ExampleNewVerifier() {
	reg := toolexec.NewRegistry()
	mux := http.NewServeMux()

	v, err := oauth.NewVerifier(oauth.Config{
		Issuer:          "https://auth.example.com/realms/tools",
		Resources:       []string{"https://tools.example.com/api", "https://tools.example.com/mcp"},
		ScopesSupported: []string{"tools.call"}, // basic use; other scopes by step-up
	})
	if err != nil {
		log.Fatal(err)
	}

	reg.MustAdd(toolexec.Tool{Name: "deploy", Options: toolexec.ToolOptions{Scopes: []string{"deploy"}}}, deploy)

	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(v.AuthHook),      // every call: a valid token with the tool's scopes
		toolexec.WithToolFilter(v.FilterTools), // lists: only the tools the caller may call
	)
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	mux.Handle("/mcp", v.AuthHook(mcp.NewHandler(x))) // MCP: a token for everything, see below
	mux.Handle("/.well-known/oauth-protected-resource", v.Metadata())
	mux.Handle("/.well-known/oauth-protected-resource/", v.Metadata())

	w := httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "https://tools.example.com/api/tools/deploy/call", strings.NewReader(`{"service":"web"}`)))
	fmt.Println(w.Code, w.Header().Get("WWW-Authenticate"))
	fmt.Print(metadata(v, "https://tools.example.com/.well-known/oauth-protected-resource/api"))
	// Output:
	// 401 Bearer scope="tools.call", resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource/api"
	// {"resource":"https://tools.example.com/api","authorization_servers":["https://auth.example.com/realms/tools"],"scopes_supported":["tools.call"],"bearer_methods_supported":["header"]}
}

// The provider examples below write each oauth.Config on lines of its own,
// as docs/auth.md prints them: the guide's blocks are quoted from here, and
// its test reads them as Go literals.

// metadata returns the protected-resource metadata v serves at url.
func metadata(v *oauth.Verifier, url string) string {
	w := httptest.NewRecorder()
	v.Metadata().ServeHTTP(w, httptest.NewRequest(http.MethodGet, url, nil))
	return w.Body.String()
}

// The Config for Introspection; the metadata tells clients where to get a token.
func ExampleConfig_introspection() {
	cfg :=
		oauth.Config{
			Issuer:          "http://127.0.0.1:3000",
			Resources:       []string{"http://127.0.0.1:8080/mcp"},
			ScopesSupported: []string{"tools.call"},
			Introspection: &oauth.Introspection{ // opaque tokens; JWTs are checked locally
				ClientID:     "toolexec",
				ClientSecret: "toolexec-secret",
			},
		}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(metadata(v, "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"))
	// Output:
	// {"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["http://127.0.0.1:3000"],"scopes_supported":["tools.call"],"bearer_methods_supported":["header"]}
}

// The Config for Dex; the metadata tells clients where to get a token.
func ExampleConfig_dex() {
	cfg :=
		oauth.Config{
			Issuer:          "http://127.0.0.1:5556/dex",
			Resources:       []string{"http://127.0.0.1:8080/mcp"},
			ScopeClaims:     []string{"groups"},
			ScopesSupported: []string{"openid", "groups", "audience:server:client_id:{resource}"},
		}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(metadata(v, "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"))
	// Output:
	// {"resource":"http://127.0.0.1:8080/mcp","authorization_servers":["http://127.0.0.1:5556/dex"],"scopes_supported":["openid","groups","audience:server:client_id:http://127.0.0.1:8080/mcp"],"bearer_methods_supported":["header"]}
}

// The Config for Keycloak; the metadata tells clients where to get a token.
func ExampleConfig_keycloak() {
	cfg :=
		oauth.Config{
			Issuer:          "https://keycloak.example.com/realms/tools",
			Resources:       []string{"https://tools.example.com/mcp"},
			ScopeClaims:     []string{"scope", "realm_access.roles", "resource_access.tools-api.roles"},
			ScopesSupported: []string{"openid", "tools.call", "tools.write"},
		}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(metadata(v, "https://tools.example.com/.well-known/oauth-protected-resource/mcp"))
	// Output:
	// {"resource":"https://tools.example.com/mcp","authorization_servers":["https://keycloak.example.com/realms/tools"],"scopes_supported":["openid","tools.call","tools.write"],"bearer_methods_supported":["header"]}
}

// The Config for EntraID; the metadata tells clients where to get a token.
func ExampleConfig_entraID() {
	cfg :=
		oauth.Config{
			Issuer:            "https://login.microsoftonline.com/TENANT_ID/v2.0",
			Resources:         []string{"https://tools.example.com/mcp"},
			Audiences:         []string{"6e1a4c52-0f3b-4a0e-9d1e-3c4f5a6b7c8d"},                                         // the API app's client id
			AuthorizedParties: []string{"0b3d2f71-7a55-4c8e-b1a2-9e8d7c6b5a40", "a7c0e6f3-1d2b-4c5a-8e9f-0a1b2c3d4e5f"}, // the MCP client app, a daemon app
			ScopeClaims:       []string{"scp", "roles"},
			ScopePrefix:       "https://tools.example.com/mcp/", // challenges ask for https://tools.example.com/mcp/tools.call
			ScopesSupported:   []string{"https://tools.example.com/mcp/tools.call", "https://tools.example.com/mcp/tools.write"},
		}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(metadata(v, "https://tools.example.com/.well-known/oauth-protected-resource/mcp"))
	// Output:
	// {"resource":"https://tools.example.com/mcp","authorization_servers":["https://login.microsoftonline.com/TENANT_ID/v2.0"],"scopes_supported":["https://tools.example.com/mcp/tools.call","https://tools.example.com/mcp/tools.write"],"bearer_methods_supported":["header"]}
}

// The Config for Auth0; the metadata tells clients where to get a token.
func ExampleConfig_auth0() {
	cfg :=
		oauth.Config{
			Issuer:          "https://tenant.us.auth0.com/",
			Resources:       []string{"https://tools.example.com/mcp"},
			ScopesSupported: []string{"openid", "tools.call"},
		}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(metadata(v, "https://tools.example.com/.well-known/oauth-protected-resource/mcp"))
	// Output:
	// {"resource":"https://tools.example.com/mcp","authorization_servers":["https://tenant.us.auth0.com/"],"scopes_supported":["openid","tools.call"],"bearer_methods_supported":["header"]}
}

// The Config for Okta; the metadata tells clients where to get a token.
func ExampleConfig_okta() {
	cfg :=
		oauth.Config{
			Issuer:          "https://example.okta.com/oauth2/default",
			Resources:       []string{"https://tools.example.com/mcp"},
			ScopesSupported: []string{"openid", "tools.call"},
		}
	v, err := oauth.NewVerifier(cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(metadata(v, "https://tools.example.com/.well-known/oauth-protected-resource/mcp"))
	// Output:
	// {"resource":"https://tools.example.com/mcp","authorization_servers":["https://example.okta.com/oauth2/default"],"scopes_supported":["openid","tools.call"],"bearer_methods_supported":["header"]}
}
