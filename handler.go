package toolexec

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec/internal/hostguard"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"github.com/toolexec/toolexec/internal/rawjson"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// NewHandler returns the REST surface of x, an http.Handler that serves,
// relative to wherever the host mounts it:
//
//	GET  /tools                  the tool list: [{name, description, annotations?}]
//	GET  /tools/{name}           one tool: {name, title?, description, inputSchema, outputSchema?, annotations?}
//	POST /tools/{name}/call      run the tool; the body is the arguments object
//	POST /tools/{name}/validate  check arguments against inputSchema, never running the tool
//	GET  /tasks/{id}             a call that became a task (Prefer: respond-async): its status, then its result
//	DELETE /tasks/{id}           cancel that task
//	GET  /openapi.json           the OpenAPI 3.1 document of these routes, one operation per tool (see OpenAPI)
//	GET  /openapi.yaml           the same as YAML
//	GET  /llms.txt               a Markdown index of the tools for language models
//
// Tool names may contain '/' and '.', and may arrive percent-encoded. Every
// response is JSON with X-Content-Type-Options: nosniff; docs/rest-api.md
// lists every status and body.
//
// Mount it under any prefix: chi's r.Mount("/api", h), or
// mux.Handle("/api/", http.StripPrefix("/api", h)). With
// WithRebindingProtection on the Executor, a request that fails its Host or
// Origin check is answered 403 before anything else.
func NewHandler(x *Executor) http.Handler {
	h := &restHandler{x: x, headers: httpjson.NewHeaders(), guard: x.rebindingGuard(), docs: newDocs(x)}
	h.details = toolenc.Cache[Tool]{Key: func(t *Tool) string { return t.Name }, Same: sameDetail, Encode: encodeDetail, Clone: cloneListed}
	h.summaries = toolenc.Cache[Tool]{Key: func(t *Tool) string { return t.Name }, Same: sameSummary, Encode: encodeSummary, Clone: cloneListed}
	if x.notifiesToolsChanged() {
		h.lists = toolenc.NewLists(toolenc.Watch(x.onToolsChanged), func(t *Tool) string { return t.Name })
	}
	return httpjson.Recoverer(x.logger, "toolexec: REST handler", func(w http.ResponseWriter) {
		writeError(w, http.StatusInternalServerError, "Internal server error")
	})(h)
}

// ServeHTTP routes a request by hand, as a switch over the routes costs
// less than a router: GET /tools, GET /tools/{name}, POST
// /tools/{name}/call and POST /tools/{name}/validate (HEAD is GET), and
// GET and DELETE /tasks/{id} (rest_tasks.go). The path
// is the one chi would route on (see routePath), so a name's encoded '/'
// stays in the name and the handler can be mounted under chi or
// http.StripPrefix. Any other path is 404; another method on a route, or a
// method that is not one of HTTP's on any path, is 405 with Allow.
func (h *restHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.headers.Set(w.Header())
	if h.guard != nil && !h.guard.Allowed(r) {
		h.refuseRebinding(w, r)
		return
	}
	path := routePath(r)
	if h.serveDocument(w, r, path) { // rest_openapi.go
		return
	}
	if id, ok := strings.CutPrefix(path, "/tasks/"); ok && !strings.Contains(id, "/") && standardMethod(r.Method) {
		h.tasks(w, r, id) // rest_tasks.go
		return
	}
	rest, isTool := strings.CutPrefix(path, "/tools/")
	if !isTool && path != "/tools" && standardMethod(r.Method) {
		writeError(w, http.StatusNotFound, "Not found")
		return
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if !isTool {
			h.list(w, r)
			return
		}
		h.describe(w, r, rest)
	case http.MethodPost:
		if !isTool {
			methodNotAllowed(w, "GET, HEAD")
			return
		}
		h.post(w, r, rest)
	default:
		allow := "GET, HEAD"
		if _, action := splitAction(path); action == "call" || action == "validate" {
			allow = "POST"
		}
		methodNotAllowed(w, allow)
	}
}

type restHandler struct {
	x *Executor
	// summaries and details cache each tool's encoding in GET /tools and
	// GET /tools/{name} (see rest_tools.go).
	summaries, details toolenc.Cache[Tool]
	// lists keeps GET /tools between the changes the provider reports;
	// nil when it reports none (see rest_tools.go).
	lists *toolenc.Lists[Tool, string]
	// headers are the JSON headers every response carries (rest_headers.go).
	headers httpjson.Headers
	// guard is the rebinding protection (rebinding.go); nil when it is off.
	guard *hostguard.Guard
	// docs serves the OpenAPI document and llms.txt (rest_openapi.go);
	// nil when they are off.
	docs *docs
}

// toolSummary is one entry of GET /tools.
type toolSummary struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
}

// toolDetail is the body of GET /tools/{name}.
type toolDetail struct {
	Name         string           `json:"name"`
	Title        string           `json:"title,omitempty"`
	Description  string           `json:"description"`
	InputSchema  json.RawMessage  `json:"inputSchema"`
	OutputSchema json.RawMessage  `json:"outputSchema,omitempty"`
	Annotations  *ToolAnnotations `json:"annotations,omitempty"`
}

func (h *restHandler) describe(w http.ResponseWriter, r *http.Request, raw string) {
	if raw == "" {
		h.list(w, r) // GET /tools/ is the list, as GET /tools
		return
	}
	name, ok := unescapeSegment(r, raw)
	if !ok {
		writeError(w, http.StatusNotFound, "Tool not found: "+raw)
		return
	}
	if t, found := h.x.Lookup(name, ""); found && len(h.x.visibleTools(r, []Tool{t})) == 1 {
		h.writeDetail(w, &t)
		return
	}
	if _, action := splitAction(raw); action == "call" || action == "validate" {
		methodNotAllowed(w, "POST")
		return
	}
	writeError(w, http.StatusNotFound, "Tool not found: "+name)
}

func (h *restHandler) post(w http.ResponseWriter, r *http.Request, raw string) {
	rawName, action := splitAction(raw)
	if action != "call" && action != "validate" {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	name, ok := unescapeSegment(r, rawName)
	if !ok {
		writeError(w, http.StatusNotFound, "Tool not found: "+rawName)
		return
	}
	if action == "validate" {
		h.validate(w, r, name)
		return
	}
	h.call(w, r, name)
}

// call is POST /tools/{name}/call: the body is the arguments object, and
// the answer is the result (200) or the failed stage's status.
func (h *restHandler) call(w http.ResponseWriter, r *http.Request, name string) {
	// The body is read by the pipeline's decode stage, after the gate and
	// the lookup, so a disabled gate (403) and an unknown tool (404) answer
	// before a body that is too large (413); a body that is not a JSON
	// object is read as {} (see CallRequest.bodyWriter).
	if async, wait := preferAsync(r); async {
		h.callAsync(w, r, name, wait) // rest_tasks.go
		return
	}
	res, err := h.x.Call(r.Context(), CallRequest{Name: name, bodyWriter: w, Request: r, Surface: SurfaceREST})
	if err != nil {
		h.writeCallError(w, err)
		return
	}
	status := http.StatusOK
	if res.IsError {
		status = http.StatusInternalServerError
	}
	h.writeResult(w, status, res)
}

// writeCallError maps a failed call to its REST status and body (see
// docs/errors.md).
func (h *restHandler) writeCallError(w http.ResponseWriter, err error) {
	e, ok := AsError(err)
	if !ok {
		e = &Error{Stage: StageIntercept, Code: CodeInternal, Message: err.Error(), Err: err}
	}
	switch e.Code {
	case CodeExecutionDisabled:
		writeError(w, http.StatusForbidden, e.Message)
	case CodeNotFound:
		writeError(w, http.StatusNotFound, e.Message)
	case CodeUnauthorized, CodeForbidden:
		writeChallengeResponse(w, statusOf(e), e.Challenge)
	case CodeTooLarge:
		writeError(w, http.StatusRequestEntityTooLarge, e.Message)
	case CodeTaskRequired:
		writeError(w, http.StatusBadRequest, e.Message+" Send Prefer: respond-async.")
	case CodeInvalidArguments:
		if len(e.Failures) > 0 || e.Omitted > 0 { // from validation, or a transform that refuses the arguments the same way
			h.writeResult(w, http.StatusUnprocessableEntity, e.Result())
			return
		}
		writeError(w, http.StatusBadRequest, e.Message)
	case CodeUnavailable, CodeRateLimited:
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", httpjson.RetryAfter(e.RetryAfter))
		}
		status := http.StatusServiceUnavailable
		if e.Code == CodeRateLimited {
			status = http.StatusTooManyRequests
		}
		h.writeResult(w, status, e.Result())
	default:
		h.writeResult(w, http.StatusInternalServerError, e.Result())
	}
}

// writeResult encodes res; a result that cannot be encoded (a channel in
// StructuredContent, say) becomes an isError result saying so.
//
// The result's own encoding is written as it is: MarshalJSON already writes
// compact JSON escaped as encoding/json escapes it, so json.Marshal would
// only check and copy it once more.
func (h *restHandler) writeResult(w http.ResponseWriter, status int, res *CallToolResult) {
	data, err := res.MarshalJSON()
	if err != nil {
		h.x.logger.Error("toolexec: result could not be encoded", "error", err)
		data, _ = ErrorResult(encodingFailedMessage).MarshalJSON()
		status = http.StatusInternalServerError
	}
	w.WriteHeader(status)
	_, _ = w.Write(append(httpjson.ValidUTF8(data), '\n'))
}

// standardMethod reports whether m is one of HTTP's methods. Any other is
// answered 405 whatever the path, as chi, which routed this handler before,
// answered it.
func standardMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return true
	}
	return false
}

// splitAction splits "image%2Fresize/call" into ("image%2Fresize", "call"),
// on the still-escaped path so that an encoded '/' stays in the name.
func splitAction(raw string) (name, action string) {
	i := strings.LastIndexByte(raw, '/')
	if i < 0 {
		return raw, ""
	}
	return raw[:i], raw[i+1:]
}

// unescapeSegment decodes a piece of the path ServeHTTP routed on. That is
// the escaped path when the request has one (URL.RawPath set), so only then
// is there anything to decode; a name with a literal '%' arrives decoded.
func unescapeSegment(r *http.Request, s string) (string, bool) {
	if r.URL.RawPath == "" {
		return s, true
	}
	out, err := url.PathUnescape(s)
	return out, err == nil
}

// routePath is the path to route on, relative to the mount point: what a
// chi router that mounted this handler left of it, else the escaped path
// when the request has one, else the path.
func routePath(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
		return rctx.RoutePath
	}
	if r.URL.RawPath != "" {
		return r.URL.RawPath
	}
	return r.URL.Path
}

// isJSONObject reports whether b is one well-formed JSON object.
func isJSONObject(b []byte) bool {
	t := rawjson.TrimSpace(b)
	return len(t) > 0 && t[0] == '{' && jsonwalk.Valid(t)
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "Method not allowed")
}

type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	httpjson.Write(w, status, errorBody{Error: msg})
}
