package toolexec

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/jsontree"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// The REST handler serves its own description (see OpenAPI): GET
// /openapi.json, /openapi.yaml and /llms.txt. Each answer is the view of
// the caller (the tools WithToolFilter leaves it) assembled from each
// tool's part (toolDoc, made once per change of the tool), with the server
// URL, which depends on the request, written after it. When the provider
// reports its changes, each view is kept until the next change, per form
// and exact list of tools (at most maxDocViews per-caller views per form
// besides the whole one), as GET /tools keeps its lists; a request then
// costs the filter, if any, and writing the bytes.

// The documents, by form (the form numbers toolenc.Kept keeps them under).
const (
	formJSON = iota
	formYAML
	formLLMS
)

// docRoutes are the documents' paths, relative to the mount point.
var docRoutes = map[string]int{"/openapi.json": formJSON, "/openapi.yaml": formYAML, "/llms.txt": formLLMS}

// maxDocViews bounds the per-caller views kept per form: each can be as
// large as the whole document.
const maxDocViews = 8

// docs is what serves the documents of one REST handler.
type docs struct {
	x     *Executor
	shape *docShape
	tools toolenc.Memo[Tool, *toolDoc]
	// llmsHead is llms.txt before the base URL.
	llmsHead []byte
	// contentTypes are the forms' Content-Type values.
	contentTypes [3][]string
}

// newDocs returns what serves x's documents, or nil when they are off.
func newDocs(x *Executor) *docs {
	if x.openAPI.Disabled {
		return nil
	}
	shape, err := newDocShape(x)
	if err != nil { // only strings and fixed shapes: cannot happen
		x.logger.Error("toolexec: the OpenAPI document could not be made", "error", err)
		return nil
	}
	d := &docs{x: x, shape: shape, llmsHead: httpjson.ValidUTF8(shape.llmsHead())}
	d.tools = toolenc.Memo[Tool, *toolDoc]{Key: func(t *Tool) string { return t.Name }, Same: documented,
		Make: shape.makeToolDoc, Clone: cloneDocumented}
	d.contentTypes = [3][]string{{"application/json"}, {"application/yaml"}, {"text/plain; charset=utf-8"}}
	return d
}

// serveDocument answers the request when its path is one of the
// documents', and reports whether it did.
func (h *restHandler) serveDocument(w http.ResponseWriter, r *http.Request, path string) bool {
	form, ok := docRoutes[path]
	if !ok || h.docs == nil || !standardMethod(r.Method) {
		return false
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return true
	}
	d := h.docs
	pre, post := d.view(r, form, h.lists, h.latestTools)
	base := d.serverURL(r, path)
	var mid []byte
	switch form {
	case formJSON:
		mid = jsontree.AppendJSONString(nil, base)
	case formYAML:
		mid = append(jsontree.AppendYAMLString(nil, base), '\n')
	default:
		mid = []byte(oneLine(base))
	}
	hdr := w.Header()
	hdr["Content-Type"] = d.contentTypes[form]
	hdr.Set("Content-Length", strconv.Itoa(len(pre)+len(mid)+len(post)))
	vary := "Host"
	if d.shape.cfg.TrustForwardedHeaders {
		vary += ", X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-Prefix"
	}
	hdr.Set("Vary", vary)
	if d.x.toolFilter != nil {
		hdr.Set("Cache-Control", "private, no-cache")
	} else {
		hdr.Set("Cache-Control", "no-cache")
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return true
	}
	for _, b := range [][]byte{pre, mid, post} {
		if _, err := w.Write(b); err != nil {
			return true
		}
	}
	return true
}

// view returns the caller's view of form, the bytes before and after the
// server URL.
func (d *docs) view(r *http.Request, form int, lists *toolenc.Lists[Tool, string], latest func() []Tool) (pre, post []byte) {
	var body []byte
	if s := lists.Snapshot(latest); s != nil {
		var pos []int32 // nil: every tool
		tools := s.Items
		if d.x.toolFilter != nil {
			var unchanged bool
			tools, pos, unchanged = filterSnapshot(d.x, r, s, documented)
			if !unchanged {
				body = d.assemble(form, tools)
			}
		}
		if body == nil {
			body = toolenc.Kept(s, form, pos, maxDocViews, func() []byte { return d.assemble(form, tools) })
		}
	} else {
		body = d.assemble(form, d.x.visibleTools(r, latest()))
	}
	switch form {
	case formJSON:
		return body, []byte(docEnd)
	case formYAML:
		return body, nil
	}
	return d.llmsHead, body
}

// assemble makes form's bytes (up to the server URL, or after it for
// llms.txt) for tools.
func (d *docs) assemble(form int, tools []Tool) []byte {
	parts := make([]*toolDoc, 0, len(tools))
	for i := range tools {
		if td := d.tools.Get(&tools[i]); td.ok {
			parts = append(parts, td)
		}
	}
	switch form {
	case formJSON:
		return httpjson.ValidUTF8(d.shape.assemble(parts, false))
	case formYAML:
		return httpjson.ValidUTF8(d.shape.assemble(parts, true))
	}
	return httpjson.ValidUTF8(d.shape.llmsBody(parts))
}

// filterSnapshot passes the tools of s through the Executor's filter for
// r's caller: the tools kept, and their positions in s.Items when the
// filter kept each unchanged (as same compares them), so that a surface can
// keep what it made for that exact list.
func filterSnapshot(x *Executor, r *http.Request, s *toolenc.Snapshot[Tool, string], same func(a, b *Tool) bool) (kept []Tool, pos []int32, unchanged bool) {
	kept = x.toolFilter(r, slices.Clone(s.Items))
	pos = make([]int32, len(kept))
	for i := range kept {
		p, ok := s.Position(kept[i].Name)
		if !ok || !same(&s.Items[p], &kept[i]) {
			return kept, nil, false
		}
		pos[i] = p
	}
	return kept, pos, true
}

// serverURL is the URL the documents name as their server: where the
// handler is mounted, as the client reached it (see OpenAPI.ServerURL and
// OpenAPI.TrustForwardedHeaders). route is the document's path relative
// to the mount point.
func (d *docs) serverURL(r *http.Request, route string) string {
	cfg := &d.shape.cfg
	if cfg.ServerURL != "" {
		return cfg.ServerURL
	}
	scheme, host, prefix := "http", r.Host, mountPrefix(r, route)
	if r.TLS != nil {
		scheme = "https"
	}
	if cfg.TrustForwardedHeaders {
		if p := strings.ToLower(firstForwarded(r, "X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if h := firstForwarded(r, "X-Forwarded-Host"); validForwardedHost(h) {
			host = h
		}
		if p := firstForwarded(r, "X-Forwarded-Prefix"); validForwardedPrefix(p) {
			prefix = strings.TrimRight(p, "/") + prefix
		}
	}
	return scheme + "://" + host + prefix
}

// mountPrefix is the path the handler is mounted at, as the client sent
// it: the request's path (from its request line, which neither chi's Mount
// nor http.StripPrefix changes) less route, the path the handler routed
// on. It is "" when the handler is at the root, or when the request line
// does not end in route (the host rewrote the path).
func mountPrefix(r *http.Request, route string) string {
	p := r.URL.EscapedPath()
	if r.RequestURI != "" && r.RequestURI != "*" {
		if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
			p = u.EscapedPath()
		}
	}
	prefix, ok := strings.CutSuffix(p, route)
	if !ok {
		return ""
	}
	return prefix
}

// firstForwarded is the first of a forwarded header's comma-separated
// values (the one the proxy nearest the client set).
func firstForwarded(r *http.Request, name string) string {
	v, _, _ := strings.Cut(r.Header.Get(name), ",")
	return strings.TrimSpace(v)
}

// validForwardedHost accepts a host name or address with an optional port.
func validForwardedHost(h string) bool {
	return h != "" && len(h) <= 255 && madeOf(h, ".-:[]_")
}

// validForwardedPrefix accepts an absolute path of URL path characters.
func validForwardedPrefix(p string) bool {
	return p != "" && p[0] == '/' && !strings.HasPrefix(p, "//") && len(p) <= 1024 && madeOf(p, "-._~!$&'()*+,;=:@/%")
}

// madeOf reports whether s holds only ASCII letters, digits and the bytes
// of extra.
func madeOf(s, extra string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(extra, c) >= 0) {
			return false
		}
	}
	return true
}
