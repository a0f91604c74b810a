package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/hostguard"
)

// mcp-toolbox's native HTTP API, which the "toolbox" protocol of its SDKs
// calls (toolbox-core for Python with Protocol.TOOLBOX, the Go SDK's
// toolbox transport, @toolbox-sdk/core before 1.0) and toolbox users' own
// scripts:
//
//	GET  /api/toolset, /api/toolset/NAME   a toolset's manifest ("" or none: every tool)
//	GET  /api/tool/NAME                    one tool's manifest
//	POST /api/tool/NAME/invoke             a call: {"result": "<JSON text>"}
//
// A call runs as a REST call (POST /api/tools/NAME/call) does, through the
// whole pipeline, and its answer is translated into toolbox's shape.
const (
	toolboxToolsetPath = RESTPrefix + "/toolset"
	toolboxToolPath    = RESTPrefix + "/tool/"
	toolboxInvoke      = "/invoke"
)

// toolboxAPI serves the native API (see above).
type toolboxAPI struct {
	p       *Provider
	x       *toolexec.Executor // the full tool set's: its tool filter decides what a caller sees
	rest    http.Handler       // the REST surface, as mounted under /api (calls are forwarded to it)
	guard   *hostguard.Guard
	version string
	// manifests serves the manifests: serveManifest, behind /api's token
	// check when OAuth protects lists (calls get theirs from rest).
	manifests http.Handler
}

// newToolboxAPI returns the native API of the full tool set, whose REST
// surface is rest.
func newToolboxAPI(p *Provider, o Options, x *toolexec.Executor, rest http.Handler, guard *hostguard.Guard) *toolboxAPI {
	_, version := o.serverInfo()
	a := &toolboxAPI{p: p, x: x, rest: rest, guard: guard, version: version}
	a.manifests = http.HandlerFunc(a.serveManifest)
	if o.OAuth != nil && !o.OAuthPublicList {
		a.manifests = requireToken(o.OAuth, a.manifests, nil, writeUnauthorized)
	}
	return a
}

// toolboxManifest is toolbox's ManifestSchema.
type toolboxManifest struct {
	ServerVersion string                 `json:"serverVersion"`
	Tools         map[string]toolboxTool `json:"tools"`
}

// toolboxTool is toolbox's ToolSchema.
type toolboxTool struct {
	Description  string             `json:"description"`
	Parameters   []toolboxParameter `json:"parameters"`
	AuthRequired []string           `json:"authRequired"`
}

// toolboxParameter is toolbox's ParameterSchema.
type toolboxParameter struct {
	Name                 string            `json:"name"`
	Type                 string            `json:"type"`
	Required             bool              `json:"required"`
	Description          string            `json:"description"`
	AuthSources          []string          `json:"authSources"`
	Items                *toolboxParameter `json:"items,omitempty"`
	AdditionalProperties any               `json:"additionalProperties,omitempty"`
	Default              any               `json:"default,omitempty"`
}

func (a *toolboxAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if name, ok := strings.CutPrefix(r.URL.Path, toolboxToolPath); ok {
		if tool, isInvoke := strings.CutSuffix(name, toolboxInvoke); isInvoke && tool != "" {
			a.invoke(w, r, tool)
			return
		}
	}
	a.manifests.ServeHTTP(w, r)
}

// serveManifest answers GET /api/toolset[/NAME] and GET /api/tool/NAME.
func (a *toolboxAPI) serveManifest(w http.ResponseWriter, r *http.Request) {
	if !a.readable(w, r) {
		return
	}
	if name, ok := strings.CutPrefix(r.URL.Path, toolboxToolPath); ok {
		a.toolManifest(w, r, strings.TrimSuffix(name, "/"))
		return
	}
	a.toolsetManifest(w, r, strings.Trim(strings.TrimPrefix(r.URL.Path, toolboxToolsetPath), "/"))
}

// readable checks what every manifest request must pass: GET (or HEAD),
// and the DNS-rebinding defense the surfaces run.
func (a *toolboxAPI) readable(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		toolboxError(w, http.StatusMethodNotAllowed, "use GET")
		return false
	}
	if !a.guard.Allowed(r) {
		toolboxError(w, http.StatusForbidden, "origin or host not allowed")
		return false
	}
	return true
}

func (a *toolboxAPI) toolsetManifest(w http.ResponseWriter, r *http.Request, name string) {
	set := a.p.Current()
	if name != "" && !set.HasToolset(name) {
		toolboxError(w, http.StatusNotFound, "toolset "+jsonQuote(name)+" does not exist")
		return
	}
	a.writeManifest(w, a.x.SurfaceKit().VisibleTools(r, set.Tools(name)))
}

func (a *toolboxAPI) toolManifest(w http.ResponseWriter, r *http.Request, name string) {
	t, ok := a.p.Current().Lookup("", name)
	if ok {
		ok = len(a.x.SurfaceKit().VisibleTools(r, []toolexec.Tool{t})) == 1
	}
	if !ok {
		toolboxError(w, http.StatusNotFound, "invalid tool name: tool with name "+jsonQuote(name)+" does not exist")
		return
	}
	a.writeManifest(w, []toolexec.Tool{t})
}

func (a *toolboxAPI) writeManifest(w http.ResponseWriter, tools []toolexec.Tool) {
	m := toolboxManifest{ServerVersion: a.version, Tools: make(map[string]toolboxTool, len(tools))}
	for _, t := range tools {
		m.Tools[t.Name] = toolboxTool{
			Description:  t.Description,
			Parameters:   toolboxParameters(t.InputSchema),
			AuthRequired: []string{},
		}
	}
	writeJSON(w, http.StatusOK, m)
}

// invoke runs the call as the REST surface's POST /tools/NAME/call and
// answers it in toolbox's shape: {"result": TEXT} with the rows as JSON
// text (null for none), or the upstream's answer for an http tool; a tool
// error or invalid arguments as {"result": "{\"error\": MESSAGE}"} with
// status 200, as toolbox answers them; any refusal (unknown tool, no
// token, a limit) with its status and {"status", "error"}, and the
// Retry-After of a limit's. It has no tasks: a tool that may run as one
// runs as an ordinary call (Prefer is not passed on), and one that runs
// only as a task is refused (400), saying where to call it.
func (a *toolboxAPI) invoke(w http.ResponseWriter, r *http.Request, name string) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		toolboxError(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	fwd := r.Clone(r.Context())
	// toolbox's API has no tasks: a call holds its request until it ends,
	// whatever the caller prefers (RFC 7240 lets a server ignore it).
	fwd.Header.Del("Prefer")
	fwd.URL.Path = "/tools/" + name + "/call"
	fwd.URL.RawPath = "/tools/" + url.PathEscape(name) + "/call"
	rec := &bufferedResponse{header: http.Header{}}
	a.rest.ServeHTTP(rec, fwd)
	for _, h := range []string{"WWW-Authenticate", "Retry-After"} {
		if v := rec.header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	var res toolexec.CallToolResult
	// A SQL tool's result with no row has no content block, only its
	// structuredContent.
	isResult := json.Unmarshal(rec.body.Bytes(), &res) == nil && (len(res.Content) > 0 || res.StructuredContent != nil)
	switch {
	case rec.status == http.StatusOK && isResult:
		writeJSON(w, http.StatusOK, map[string]string{"result": toolboxResult(&res)})
	case (rec.status == http.StatusInternalServerError || rec.status == http.StatusUnprocessableEntity) && isResult:
		errText, _ := json.Marshal(map[string]string{"error": res.Text()})
		writeJSON(w, http.StatusOK, map[string]string{"result": string(errText)})
	default:
		var e struct {
			Error string `json:"error"`
		}
		msg := http.StatusText(rec.status)
		switch {
		case json.Unmarshal(rec.body.Bytes(), &e) == nil && e.Error != "":
			msg = e.Error
			if rec.status == http.StatusBadRequest && strings.HasPrefix(msg, "Tool "+name+" runs only as a task") {
				// The REST surface's refusal asks for Prefer:
				// respond-async, which this API does not take.
				msg = "Tool " + name + " runs only as a task: call it at " + RESTPrefix + "/tools/" + name +
					"/call with Prefer: respond-async, or over MCP with the tasks extension."
			}
		case isResult && res.Text() != "":
			// A limit's refusal (429, 503) is a result whose text says
			// when to try again.
			msg = res.Text()
		}
		toolboxError(w, rec.status, msg)
	}
}

// toolboxResult is the result text of a successful call in toolbox's form:
// a SQL tool's rows (a mongodb tool's documents) as a JSON array, columns
// in the statement's order ([] when there is none), a redis tool's
// results as a JSON array, one element per command (see listResult),
// anything else (an http tool's answer) as its text. The rows are read
// from the text content, which keeps the columns' order: one JSON object
// a row (none for no row), or one {"rows": [...]} block.
func toolboxResult(res *toolexec.CallToolResult) string {
	list := listResult(res)
	if !list && !sqlResult(res) {
		return res.Text()
	}
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*toolexec.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	if len(texts) == 1 && !list {
		var env struct {
			Rows json.RawMessage `json:"rows"`
		}
		if json.Unmarshal([]byte(texts[0]), &env) == nil && len(env.Rows) > 0 && env.Rows[0] == '[' {
			return string(env.Rows)
		}
	}
	rows := make([]json.RawMessage, 0, len(texts))
	for _, t := range texts {
		if !json.Valid([]byte(t)) || !list && !strings.HasPrefix(strings.TrimSpace(t), "{") {
			return res.Text()
		}
		rows = append(rows, json.RawMessage(t))
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return res.Text()
	}
	return string(b)
}

// sqlResult reports whether res is a SQL tool's: its structuredContent has
// the rows, rowCount and truncated members of sqltool's results, a shape
// an http tool's upstream answer is not taken for.
func sqlResult(res *toolexec.CallToolResult) bool {
	sc, ok := res.StructuredContent.(map[string]any)
	if !ok {
		return false
	}
	_, rows := sc["rows"].([]any)
	_, count := sc["rowCount"]
	_, truncated := sc["truncated"].(bool)
	return rows && count && truncated
}

// toolboxError writes toolbox's error response: {"status", "error"}.
func toolboxError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"status": http.StatusText(status), "error": msg})
}

// toolboxParameters reads a tool's input schema back into toolbox's
// parameter list, in the schema's order (the file's).
func toolboxParameters(schema json.RawMessage) []toolboxParameter {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	out := []toolboxParameter{}
	if json.Unmarshal(schema, &s) != nil {
		return out
	}
	required := map[string]bool{}
	for _, n := range s.Required {
		required[n] = true
	}
	for _, p := range orderedMembers(s.Properties) {
		tp := toolboxParam(p.name, p.value)
		tp.Required = required[p.name]
		out = append(out, tp)
	}
	return out
}

// toolboxParam is one property of an input schema as a toolbox parameter.
func toolboxParam(name string, raw json.RawMessage) toolboxParameter {
	var s struct {
		Type                 any             `json:"type"`
		Description          string          `json:"description"`
		Default              any             `json:"default"`
		Items                json.RawMessage `json:"items"`
		AdditionalProperties json.RawMessage `json:"additionalProperties"`
	}
	_ = json.Unmarshal(raw, &s)
	p := toolboxParameter{Name: name, Description: s.Description, Default: s.Default, AuthSources: []string{}}
	typ, _ := s.Type.(string)
	switch typ {
	case "number":
		p.Type = "float"
	case "integer", "boolean", "array", "object", "string":
		p.Type = typ
	default:
		p.Type = "string"
	}
	if p.Type == "array" && len(s.Items) > 0 {
		items := toolboxParam("", s.Items)
		p.Items = &items
	}
	if p.Type == "object" {
		var ap struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(s.AdditionalProperties, &ap) == nil {
			if t, ok := ap.Type.(string); ok {
				if t == "number" {
					t = "float"
				}
				p.AdditionalProperties = map[string]string{"type": t}
			} else {
				p.AdditionalProperties = true
			}
		}
	}
	return p
}

// member is one member of a JSON object.
type member struct {
	name  string
	value json.RawMessage
}

// orderedMembers returns the members of a JSON object in their order; nil
// for anything else.
func orderedMembers(obj json.RawMessage) []member {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		out = append(out, member{key, v})
	}
	return out
}

// bufferedResponse holds the REST surface's answer to a forwarded call.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

var _ io.Writer = (*bufferedResponse)(nil)
