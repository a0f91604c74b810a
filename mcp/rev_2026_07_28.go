package mcp

import (
	"encoding/json"
	"github.com/toolexec/toolexec/internal/jsonwalk"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
)

// MCP 2026-07-28 is stateless: there is no initialize, every request carries
// its protocol version and the client's capabilities in params._meta, the
// Streamable HTTP transport mirrors the method and the tool's name into
// request headers, and every result says what kind of result it is. This
// file answers a request made at that version; everything before it (the
// transport checks of serveMCP, the pipeline) is shared with the 2025
// versions.

// Error codes MCP 2026-07-28 defines, answered with HTTP 400.
const (
	// CodeHeaderMismatch: a request header MCP 2026-07-28 requires
	// (MCP-Protocol-Version, Mcp-Method, Mcp-Name, or an Mcp-Param-* header
	// a tool declares through x-mcp-header) is missing, malformed, or does
	// not match the request body.
	CodeHeaderMismatch = -32020
	// CodeUnsupportedProtocolVersion: the request asked for a protocol
	// version the handler does not speak; data.supported lists those it
	// does and data.requested echoes the one asked for.
	CodeUnsupportedProtocolVersion = -32022
)

// The reserved _meta keys of MCP 2026-07-28 that the handler reads or writes.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// The request headers MCP 2026-07-28 mirrors from the body, in canonical form.
const (
	methodHeader     = "Mcp-Method"
	nameHeader       = "Mcp-Name"
	paramHeaderStart = "Mcp-Param-"
)

// CacheScope says who may cache a result that carries caching hints (MCP
// 2026-07-28): see WithCacheHints.
type CacheScope string

const (
	// CachePrivate: the result may be reused only for the same
	// authorization context. It is the default.
	CachePrivate CacheScope = "private"
	// CachePublic: the result holds nothing user-specific, and shared
	// caches may serve it to anyone.
	CachePublic CacheScope = "public"
)

// requestMeta is what a 2026-07-28 request's params._meta declares.
type requestMeta struct {
	raw                []byte // the _meta object as sent; nil when absent
	protocolVersion    string
	clientCapabilities []byte // the object as sent
	trace              traceContext
	// progressToken and logLevel: the members as sent (nil when absent),
	// which only tools/call reads (see modernCallMeta).
	progressToken, logLevel []byte
}

// read reads params._meta into meta, which must be zero. MCP 2026-07-28
// requires it on every request: an object with a protocolVersion string and
// a clientCapabilities object, and, when present, a clientInfo object.
// Anything else is -32602.
func (meta *requestMeta) read(params []byte) *wireError {
	if werr := checkParamsObject(params); werr != nil {
		return werr
	}
	for it := jsonwalk.Members(params); it.Next(); {
		if it.Is("_meta") {
			meta.raw = it.Val
		}
	}
	if meta.raw == nil || meta.raw[0] != '{' {
		return newError(CodeInvalidParams, "Invalid params: _meta is required and must be an object carrying %s and %s",
			metaProtocolVersion, metaClientCapabilities)
	}
	var version, caps, info []byte
	for it := jsonwalk.Members(meta.raw); it.Next(); {
		switch {
		case it.Is(metaProtocolVersion):
			version = it.Val
		case it.Is(metaClientCapabilities):
			caps = it.Val
		case it.Is(metaClientInfo):
			info = it.Val
		case it.Is("traceparent"):
			meta.trace.traceparent = it.Val
		case it.Is("tracestate"):
			meta.trace.tracestate = it.Val
		case it.Is("baggage"):
			meta.trace.baggage = it.Val
		case it.Is("progressToken"):
			meta.progressToken = it.Val
		case it.Is(metaLogLevel):
			meta.logLevel = it.Val
		}
	}
	v, ok := jsonString(version)
	if !ok {
		return newError(CodeInvalidParams, "Invalid params: _meta[%q] is required and must be a string", metaProtocolVersion)
	}
	meta.protocolVersion = v
	if len(caps) == 0 || caps[0] != '{' {
		return newError(CodeInvalidParams, "Invalid params: _meta[%q] is required and must be an object", metaClientCapabilities)
	}
	meta.clientCapabilities = caps
	if info != nil && info[0] != '{' {
		return newError(CodeInvalidParams, "Invalid params: _meta[%q] must be an object", metaClientInfo)
	}
	return nil
}

// metaProtocolVersionOf returns the protocol version params._meta declares,
// or "" when it declares none; it reads nothing else.
func metaProtocolVersionOf(params []byte) string {
	if len(params) == 0 || params[0] != '{' {
		return ""
	}
	for it := jsonwalk.Members(params); it.Next(); {
		if !it.Is("_meta") || len(it.Val) == 0 || it.Val[0] != '{' {
			continue
		}
		for mt := jsonwalk.Members(it.Val); mt.Next(); {
			if mt.Is(metaProtocolVersion) {
				v, _ := jsonString(mt.Val)
				return v
			}
		}
	}
	return ""
}

// unsupportedVersion is the error for a request at a protocol version the
// handler does not speak.
func unsupportedVersion(requested string) *wireError {
	e := newError(CodeUnsupportedProtocolVersion, "Unsupported protocol version: %q", requested)
	e.Data = map[string]any{"supported": SupportedProtocolVersions(), "requested": requested}
	return e
}

// writeStatus writes an encoded JSON-RPC error response with an HTTP error
// status.
func writeStatus(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(httpjson.ValidUTF8(data), '\n'))
}

// failWith is the outcome of a request refused with e and HTTP status.
func failWith(id json.RawMessage, status int, e *wireError) outcome {
	return outcome{data: encodeError(id, e), status: status}
}

// answerModern answers one request sent at MCP 2026-07-28 (a batch never
// gets here: serveBatch refuses it, as every version after 2025-03-26
// does): the Mcp-Method header, then whether the method is served here at
// all, then _meta, then the method itself (whose own checks, such as
// Mcp-Name, come first). It sets *out, which must be zero, to the outcome.
// A panic is an internal error, as in answer.
func (h *handler) answerModern(ex *exchange, m *message, out *outcome) {
	defer h.recoverAnswer(ex, m, out)
	var meta requestMeta
	if !h.admitModern(ex, m, &meta, out) {
		return
	}
	if m.method != "tools/call" {
		*out = h.dispatchModern(ex, m, &meta)
		return
	}
	name, args, _, werr := callParams(m.params) // _meta: read by admitModern
	if werr != nil {
		out.data = encodeError(m.id, werr)
		return
	}
	if werr := h.checkCallHeaders(ex.r, name, args); werr != nil {
		if !h.refusedFirst(ex.r, m.id, out) {
			*out = failWith(m.id, http.StatusBadRequest, werr)
		}
		return
	}
	// The trace context of _meta goes under the call.
	if ctx, ok := withRemoteParent(ex.r.Context(), meta.trace); ok {
		ex.r = ex.r.WithContext(ctx)
	}
	h.runCall(ex, m, name, args, &meta, out)
}

// admitModern checks what every 2026-07-28 request must get right before
// its method is served: the Mcp-Method header, the method being one this
// handler serves, and _meta, which it reads into meta. It reports whether
// the request passed, and sets *out to the refusal when it did not.
func (h *handler) admitModern(ex *exchange, m *message, meta *requestMeta, out *outcome) bool {
	if werr := checkMethodHeader(ex.r, m.method); werr != nil {
		*out = failWith(m.id, http.StatusBadRequest, werr)
		return false
	}
	switch m.method {
	case "server/discover", "tools/list", "tools/call", "subscriptions/listen",
		"tasks/get", "tasks/update", "tasks/cancel": // the tasks extension (tasks_2026_07_28.go)
	default:
		// initialize, ping, logging/setLevel, resources/subscribe and
		// resources/unsubscribe are gone from this revision, and the
		// handler serves no resources, prompts or completions: 404 with
		// -32601, which tells a client this is a modern server that lacks
		// the method, whatever else the request gets wrong.
		*out = failWith(m.id, http.StatusNotFound, newError(CodeMethodNotFound, "Method not found: %s", m.method))
		return false
	}
	if werr := meta.read(m.params); werr != nil {
		*out = failWith(m.id, http.StatusBadRequest, werr)
		return false
	}
	if meta.protocolVersion != ex.version {
		*out = failWith(m.id, http.StatusBadRequest, newError(CodeHeaderMismatch,
			"Header mismatch: %s header value %q does not match body value %q",
			protocolVersionHeader, ex.version, meta.protocolVersion))
		return false
	}
	return true
}

// dispatchModern answers a 2026-07-28 request admitModern admitted, other
// than tools/call (see answerModern), by its method.
func (h *handler) dispatchModern(ex *exchange, m *message, meta *requestMeta) outcome {
	switch m.method {
	case "tasks/get", "tasks/update", "tasks/cancel":
		return h.serveTask(ex, m, meta)
	case "server/discover":
		return outcome{data: h.encodeResult(ex.r, m.id, h.discover())}
	case "tools/list":
		return h.listToolsModern(ex.r, m)
	default: // "subscriptions/listen"
		return h.listen(ex, m, meta)
	}
}

// checkMethodHeader checks Mcp-Method against the body's method. Values
// are compared exactly (method names are case-sensitive); surrounding white
// space is not part of a header value.
func checkMethodHeader(r *http.Request, method string) *wireError {
	got, ok := headerValue(r, methodHeader)
	if !ok {
		return newError(CodeHeaderMismatch, "Header mismatch: the %s header is required", methodHeader)
	}
	if got != method {
		return newError(CodeHeaderMismatch, "Header mismatch: %s header value %q does not match body value %q", methodHeader, got, method)
	}
	return nil
}

// checkNameHeader checks Mcp-Name against the name the body's params give,
// after decoding its sentinel Base64 form.
func checkNameHeader(r *http.Request, name string) *wireError {
	raw, ok := headerValue(r, nameHeader)
	if !ok {
		return newError(CodeHeaderMismatch, "Header mismatch: the %s header is required for this method", nameHeader)
	}
	got, ok := decodeHeaderValue(raw)
	if !ok {
		return newError(CodeHeaderMismatch, "Header mismatch: the %s header value is not valid", nameHeader)
	}
	if got != name {
		return newError(CodeHeaderMismatch, "Header mismatch: %s header value %q does not match body value %q", nameHeader, got, name)
	}
	return nil
}

// headerValue returns the one value of a header, without the white space
// around it; false when the header is absent.
func headerValue(r *http.Request, key string) (string, bool) {
	values := r.Header[key]
	if len(values) == 0 {
		return "", false
	}
	return strings.Trim(values[0], " \t"), true
}

// discoverResult is the answer to server/discover.
type discoverResult struct {
	ResultType        string         `json:"resultType"`
	SupportedVersions []string       `json:"supportedVersions"`
	Capabilities      capabilities   `json:"capabilities"`
	Instructions      string         `json:"instructions,omitempty"`
	TTLMs             int64          `json:"ttlMs"`
	CacheScope        CacheScope     `json:"cacheScope"`
	Meta              map[string]any `json:"_meta"`
}

// discover describes the server: the versions it speaks, what it serves,
// and who it is.
func (h *handler) discover() discoverResult {
	res := discoverResult{
		ResultType:        resultComplete,
		SupportedVersions: SupportedProtocolVersions(),
		Instructions:      h.instructions,
		TTLMs:             h.ttl.Milliseconds(),
		CacheScope:        h.cacheScope,
		Meta:              h.serverMeta(),
	}
	// subscriptions/listen delivers notifications/tools/list_changed only
	// when the provider reports changes.
	res.Capabilities.Tools.ListChanged = h.x.SurfaceKit().NotifiesToolsChanged()
	// The tasks extension (tasks_2026_07_28.go): a tool may become a task whenever
	// its client declares it.
	res.Capabilities.Extensions = map[string]any{extTasks: struct{}{}}
	return res
}

// resultComplete is the resultType of every final result.
const resultComplete = "complete"

// serverInfoMember encodes the _meta member naming the server.
func serverInfoMember(name, version string) []byte {
	key, _ := json.Marshal(metaServerInfo)
	value, _ := json.Marshal(implementation{Name: name, Version: version})
	return append(append(key, ':'), value...)
}

// serverMeta is the _meta of a 2026-07-28 result: the server's identity.
func (h *handler) serverMeta() map[string]any {
	return map[string]any{metaServerInfo: implementation{Name: h.name, Version: h.version}}
}

// modernListToolsResult is tools/list's answer at 2026-07-28: the page, with
// the resultType, caching hints and server identity that revision adds.
type modernListToolsResult struct {
	ResultType string `json:"resultType"`
	listToolsResult
	TTLMs      int64          `json:"ttlMs"`
	CacheScope CacheScope     `json:"cacheScope"`
	Meta       map[string]any `json:"_meta"`
}

// listToolsModern is the answer to tools/list at 2026-07-28: one page of
// the tool list, sorted by name (then version) so that the same tools
// always list in the same order, whatever order the provider gives them
// in; the members in modernListToolsResult's order, written around the
// page's kept encoding (see outcome.shared).
func (h *handler) listToolsModern(r *http.Request, m *message) outcome {
	page, end, total, werr := h.listPage(r, m.params, viewSorted)
	if werr != nil {
		return outcome{data: encodeError(m.id, werr)}
	}
	out := outcome{data: listHead(m.id, `{"resultType":"complete","tools":[`), shared: page, tail: h.modernListTail}
	if end < total {
		out.tail = appendNextCursor(append(make([]byte, 0, len(h.modernListTail)+64), ']'), end, total)
		out.tail = append(out.tail, h.modernListTail[1:]...)
	}
	return out
}

// modernListTail is what follows the tools array of a 2026-07-28
// tools/list answer without a next page: the caching hints, the server's
// identity, and the ends of the result and the response.
func modernListTail(ttl time.Duration, scope CacheScope, serverInfoMember []byte) []byte {
	out := append([]byte(nil), `],"ttlMs":`...)
	out = strconv.AppendInt(out, ttl.Milliseconds(), 10)
	out = append(out, `,"cacheScope":`...)
	sc, _ := json.Marshal(scope) // a string: always encodes
	out = append(out, sc...)
	out = append(out, `,"_meta":{`...)
	out = append(out, serverInfoMember...)
	return append(out, "}}}"...)
}

func compareTools(a, b toolexec.Tool) int {
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Version, b.Version)
}

// checkCallHeaders checks the tool-specific headers of a 2026-07-28
// tools/call: Mcp-Name, and the Mcp-Param-* headers the tool declares.
func (h *handler) checkCallHeaders(r *http.Request, name string, args json.RawMessage) *wireError {
	if werr := checkNameHeader(r, name); werr != nil {
		return werr
	}
	if t, ok := h.x.Lookup(name, ""); ok {
		return checkParamHeaders(r, t.InputSchema, args)
	}
	return nil
}

// modernToolResponse encodes the response carrying res as MCP 2026-07-28
// writes it: "resultType":"complete" first, and the server's identity in
// _meta beside whatever _meta the tool set. res itself is left alone: it
// may be a cached value shared with other calls. The id is echoed as sent.
func (h *handler) modernToolResponse(id json.RawMessage, res *toolexec.CallToolResult) ([]byte, error) {
	bare := *res
	bare.Meta = nil
	data, err := bare.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var meta []byte
	if len(res.Meta) > 0 {
		m := res.Meta
		if _, ok := m[metaServerInfo]; ok { // the server's own identity wins
			m = make(map[string]any, len(res.Meta))
			for k, v := range res.Meta {
				if k != metaServerInfo {
					m[k] = v
				}
			}
		}
		if meta, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	out := make([]byte, 0, len(data)+len(meta)+len(h.serverInfoMember)+len(id)+96)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	if id == nil {
		out = append(out, "null"...)
	}
	out = append(out, id...)
	out = append(out, `,"result":{"resultType":"complete"`...)
	if inner := data[1 : len(data)-1]; len(inner) > 0 {
		out = append(append(out, ','), inner...)
	}
	out = append(out, `,"_meta":{`...)
	out = append(out, h.serverInfoMember...)
	if len(meta) > 2 {
		out = append(append(out, ','), meta[1:len(meta)-1]...)
	}
	return append(out, "}}}"...), nil
}
