package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// ProtectedResourceMetadata is the RFC 9728 document Verifier.Metadata
// serves for one resource.
type ProtectedResourceMetadata struct {
	// Resource is the resource's identifier: one of Config.Resources.
	Resource string `json:"resource"`
	// AuthorizationServers lists the issuer that grants its tokens.
	AuthorizationServers []string `json:"authorization_servers"`
	// ScopesSupported are Config.ScopesSupported, when set, each
	// "{resource}" in them replaced by Resource.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported is ["header"]: tokens travel in the
	// Authorization header only.
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	// ResourceName is Config.ResourceName, when set.
	ResourceName string `json:"resource_name,omitempty"`
}

// MetadataFor returns the protected resource metadata of resource (one of
// Config.Resources), and whether it is one of them.
func (v *Verifier) MetadataFor(resource string) (ProtectedResourceMetadata, bool) {
	for _, r := range v.s.resources {
		if r.uri == resource {
			return v.metadataOf(&r), true
		}
	}
	return ProtectedResourceMetadata{}, false
}

func (v *Verifier) metadataOf(r *resource) ProtectedResourceMetadata {
	return ProtectedResourceMetadata{
		Resource:               r.uri,
		AuthorizationServers:   []string{v.s.Issuer},
		ScopesSupported:        r.scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           v.s.ResourceName,
	}
}

// Metadata returns the handler serving the protected resource metadata
// (RFC 9728) of every resource of the Config, at the well-known URI RFC
// 9728 derives from it: "https://api.example.com/mcp" at
// /.well-known/oauth-protected-resource/mcp, "https://api.example.com" at
// /.well-known/oauth-protected-resource. These are the URLs AuthHook's
// challenges name. Mount it at the root of the host's server for both
// forms:
//
//	mux.Handle("/.well-known/oauth-protected-resource", v.Metadata())
//	mux.Handle("/.well-known/oauth-protected-resource/", v.Metadata())
//
// It answers GET and HEAD with the JSON document, 404 for a path naming no
// resource, 405 for other methods, and allows any origin (CORS), since
// browser-based MCP clients read it cross-origin and it holds nothing
// secret.
func (v *Verifier) Metadata() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("X-Content-Type-Options", "nosniff")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "*")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			h.Set("Allow", "GET, HEAD, OPTIONS")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "Method not allowed"})
			return
		}
		p := requestPath(r)
		i := strings.Index(p, wellKnownPath)
		if i >= 0 {
			suffix := strings.TrimSuffix(p[i+len(wellKnownPath):], "/")
			for _, res := range v.s.resources {
				if res.path == suffix {
					h.Set("Cache-Control", "public, max-age=300")
					writeJSON(w, http.StatusOK, v.metadataOf(&res))
					return
				}
			}
		}
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "No protected resource here"})
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, _ := json.Marshal(v) // plain strings and slices: always encodes
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// IssuerScopes returns the scopes the authorization server's own metadata
// lists ("scopes_supported", RFC 8414 and OpenID Connect Discovery), read
// and cached as Verify reads it; nil when it lists none. A host uses it to
// choose Config.ScopesSupported among scopes the server knows.
func (v *Verifier) IssuerScopes(ctx context.Context) ([]string, error) {
	m, err := v.remote.metadata(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range m.ScopesSupported {
		if isScopeToken(s) {
			out = append(out, s)
		}
	}
	return out, nil
}
