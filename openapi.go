package toolexec

import "strings"

// OpenAPI configures the documents the REST handler (NewHandler) serves
// about itself, relative to wherever it is mounted:
//
//	GET /openapi.json  an OpenAPI 3.1 description of every route, with one
//	                   operation per tool the caller may see
//	GET /openapi.yaml  the same document as YAML
//	GET /llms.txt      a short Markdown index of the same tools and how to
//	                   call them, for language models (the llms.txt convention)
//
// They are served by default, with the zero value's settings; WithOpenAPI
// changes them. They show what GET /tools and GET /tools/{name} already
// show the same caller, filtered the same way (WithToolFilter), and like
// them they are never gated and never pass through the auth hook. Each is
// made once per change of the tool set and per caller's view of it when the
// provider reports its changes (as Registry does), and assembled from
// per-tool pieces made once per change of each tool otherwise;
// docs/rest-api.md describes the documents.
type OpenAPI struct {
	// Disabled leaves the three documents out: their paths answer 404, as
	// any unknown path does.
	Disabled bool
	// Title is the document's info.title and the heading of llms.txt; ""
	// is "Tools".
	Title string
	// Version is info.version, the version of the API the document
	// describes; "" is "1.0.0".
	Version string
	// Description is info.description (CommonMark) and the summary of
	// llms.txt; "" is a sentence saying how the tools are called.
	Description string
	// Contact is info.contact; the zero value leaves it out.
	Contact OpenAPIContact
	// ServerURL, when set, is the one URL the document names as its server:
	// the public URL of where the REST handler is mounted
	// ("https://api.example.com/tools"; a trailing slash is dropped).
	// Otherwise each request's own URL gives it: its scheme (https on TLS),
	// its Host, and the path the handler is mounted at, which the handler
	// finds under chi's Mount and under http.StripPrefix alike.
	ServerURL string
	// TrustForwardedHeaders lets a request's X-Forwarded-Proto,
	// X-Forwarded-Host and X-Forwarded-Prefix (the path a reverse proxy
	// strips) give the server URL instead. Anyone can send those headers:
	// set this only behind a proxy that sets them. Malformed values are
	// ignored.
	TrustForwardedHeaders bool
	// OpenIDConnectURL, when set, describes calls as needing an OAuth 2
	// access token from the authorization server whose metadata
	// (OpenID Connect Discovery or RFC 8414) is at this URL: an
	// openIdConnect security scheme, with each call listing its tool's
	// ToolOptions.Scopes. Otherwise, calls are described as needing a
	// bearer token (Authorization: Bearer) when the Executor has an auth
	// hook (WithAuthHook), and no credentials when it has none.
	OpenIDConnectURL string
	// GuardedDiscovery describes the discovery and validation routes as
	// needing the same credentials as calls, for a host that puts its own
	// authentication in front of the whole handler (the auth hook never
	// guards them).
	GuardedDiscovery bool
}

// OpenAPIContact is the contact information of an OpenAPI document
// (info.contact): whom to ask about the API. Empty fields are left out.
type OpenAPIContact struct {
	Name  string
	URL   string
	Email string
}

// WithOpenAPI configures the OpenAPI document and llms.txt the REST
// handler serves (see OpenAPI); without it they are served with the zero
// value's settings. OpenAPI{Disabled: true} turns them off.
func WithOpenAPI(o OpenAPI) Option {
	return func(x *Executor) { x.openAPI = o }
}

// OpenAPIServed reports whether the REST handler serves its OpenAPI
// document and llms.txt (see OpenAPI), so that a page in front of it, such
// as the explorer, can link to them.
func (k SurfaceKit) OpenAPIServed() bool { return !k.x.openAPI.Disabled }

// withDefaults returns o with its empty settings filled in.
func (o OpenAPI) withDefaults() OpenAPI {
	if o.Title == "" {
		o.Title = "Tools"
	}
	if o.Version == "" {
		o.Version = "1.0.0"
	}
	o.ServerURL = strings.TrimRight(o.ServerURL, "/")
	return o
}
