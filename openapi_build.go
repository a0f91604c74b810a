package toolexec

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec/internal/jsontree"
)

// The OpenAPI document is assembled from pieces: the parts every view of
// it shares (info, the discovery and task routes, the shapes of the REST
// API's bodies), made once per handler, and each tool's operation and
// schemas (toolDoc), made once per change of the tool. A view is the
// shared head, the operations of the tools the caller sees, the shared
// middle, their schemas, and the shared tail, which ends where the server
// URL goes, so that the URL, the one part that depends on the request, is
// written after the assembled bytes (see rest_openapi.go).

// The security schemes the document may declare.
const (
	bearerScheme = "bearerAuth"
	oauthScheme  = "oauth"
)

// docShape is what an Executor's settings make of the document: the parts
// every view shares, in JSON and YAML.
type docShape struct {
	cfg OpenAPI
	// scheme is the security scheme calls need ("" for none).
	scheme string
	// head ... tail are the shared parts of the JSON form (see above);
	// yhead ... ytail the same in YAML.
	head, mid, tail    []byte
	yhead, ymid, ytail []byte
}

// jobj is a JSON object whose members are written in order.
type jobj []jkv

type jkv struct {
	k string
	v any
}

// MarshalJSON writes the members in order.
func (o jobj) MarshalJSON() ([]byte, error) { return appendValue(nil, o) }

// appendValue appends v as compact JSON: the document's own shapes
// directly, anything else (annotations) as encoding/json writes it. It is
// what MarshalJSON does without encoding/json checking and compacting each
// nested object's output again.
func appendValue(dst []byte, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case jobj:
		dst = append(dst, '{')
		for i, m := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(jsontree.AppendJSONString(dst, m.k), ':')
			if dst, err = appendValue(dst, m.v); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	case []jobj:
		return appendArray(dst, len(x), func(dst []byte, i int) ([]byte, error) { return appendValue(dst, x[i]) })
	case []any:
		return appendArray(dst, len(x), func(dst []byte, i int) ([]byte, error) { return appendValue(dst, x[i]) })
	case []string:
		return appendArray(dst, len(x), func(dst []byte, i int) ([]byte, error) { return jsontree.AppendJSONString(dst, x[i]), nil })
	case string:
		return jsontree.AppendJSONString(dst, x), nil
	case bool:
		return strconv.AppendBool(dst, x), nil
	case json.RawMessage: // the document's own fixed shapes, compact
		return append(dst, x...), nil
	}
	b, err := json.Marshal(v)
	return append(dst, b...), err
}

func appendArray(dst []byte, n int, elem func(dst []byte, i int) ([]byte, error)) ([]byte, error) {
	dst = append(dst, '[')
	var err error
	for i := range n {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = elem(dst, i); err != nil {
			return nil, err
		}
	}
	return append(dst, ']'), nil
}

// with returns o with k: v added when v is not empty.
func (o jobj) with(k string, v any) jobj {
	switch x := v.(type) {
	case string:
		if x == "" {
			return o
		}
	case jobj:
		if len(x) == 0 {
			return o
		}
	case nil:
		return o
	}
	return append(o, jkv{k, v})
}

func ref(to string) jobj { return jobj{{"$ref", to}} }

func jsonContent(schema any) jobj {
	return jobj{{"application/json", jobj{{"schema", schema}}}}
}

// The shapes the REST API answers, as component schemas.
var fixedSchemas = jobj{
	{"Error", json.RawMessage(`{"type":"object","description":"A failure that is not a tool result.",` +
		`"required":["error"],"properties":{"error":{"type":"string","description":"What went wrong."}}}`)},
	{"ToolAnnotations", json.RawMessage(`{"type":"object","description":"MCP's hints about a tool's behaviour; a hint not set is left out.",` +
		`"properties":{"title":{"type":"string"},"readOnlyHint":{"type":"boolean"},"destructiveHint":{"type":"boolean"},` +
		`"idempotentHint":{"type":"boolean"},"openWorldHint":{"type":"boolean"}}}`)},
	{"ToolSummary", json.RawMessage(`{"type":"object","required":["name","description"],"properties":{"name":{"type":"string"},` +
		`"description":{"type":"string"},"annotations":{"$ref":"#/components/schemas/ToolAnnotations"}}}`)},
	{"Tool", json.RawMessage(`{"type":"object","required":["name","description","inputSchema"],"properties":{"name":{"type":"string"},` +
		`"title":{"type":"string"},"description":{"type":"string"},"inputSchema":{"description":"The JSON Schema of the arguments."},` +
		`"outputSchema":{"description":"The JSON Schema of structuredContent."},"annotations":{"$ref":"#/components/schemas/ToolAnnotations"}}}`)},
	{"ContentAnnotations", json.RawMessage(`{"type":"object","properties":{"audience":{"type":"array","items":{"type":"string","enum":["user","assistant"]}},` +
		`"priority":{"type":"number"},"lastModified":{"type":"string"}}}`)},
	{"TextContent", json.RawMessage(`{"type":"object","required":["type","text"],"properties":{"type":{"type":"string","const":"text"},` +
		`"text":{"type":"string"},"annotations":{"$ref":"#/components/schemas/ContentAnnotations"},"_meta":{"type":"object"}}}`)},
	{"ImageContent", json.RawMessage(`{"type":"object","required":["type","data","mimeType"],"properties":{"type":{"type":"string","const":"image"},` +
		`"data":{"type":"string","contentEncoding":"base64"},"mimeType":{"type":"string"},` +
		`"annotations":{"$ref":"#/components/schemas/ContentAnnotations"},"_meta":{"type":"object"}}}`)},
	{"AudioContent", json.RawMessage(`{"type":"object","required":["type","data","mimeType"],"properties":{"type":{"type":"string","const":"audio"},` +
		`"data":{"type":"string","contentEncoding":"base64"},"mimeType":{"type":"string"},` +
		`"annotations":{"$ref":"#/components/schemas/ContentAnnotations"},"_meta":{"type":"object"}}}`)},
	{"ResourceLink", json.RawMessage(`{"type":"object","required":["type","uri","name"],"properties":{"type":{"type":"string","const":"resource_link"},` +
		`"uri":{"type":"string"},"name":{"type":"string"},"title":{"type":"string"},"description":{"type":"string"},` +
		`"mimeType":{"type":"string"},"size":{"type":"integer"},"annotations":{"$ref":"#/components/schemas/ContentAnnotations"},"_meta":{"type":"object"}}}`)},
	{"EmbeddedResource", json.RawMessage(`{"type":"object","required":["type","resource"],"properties":{"type":{"type":"string","const":"resource"},` +
		`"resource":{"type":"object","required":["uri"],"properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},` +
		`"text":{"type":"string"},"blob":{"type":"string","contentEncoding":"base64"},"_meta":{"type":"object"}}},` +
		`"annotations":{"$ref":"#/components/schemas/ContentAnnotations"},"_meta":{"type":"object"}}}`)},
	{"ContentBlock", json.RawMessage(`{"oneOf":[{"$ref":"#/components/schemas/TextContent"},{"$ref":"#/components/schemas/ImageContent"},` +
		`{"$ref":"#/components/schemas/AudioContent"},{"$ref":"#/components/schemas/ResourceLink"},{"$ref":"#/components/schemas/EmbeddedResource"}]}`)},
	{"CallToolResult", json.RawMessage(`{"type":"object","description":"An MCP CallToolResult.","required":["content","isError"],` +
		`"properties":{"content":{"type":"array","items":{"$ref":"#/components/schemas/ContentBlock"}},` +
		`"structuredContent":{"description":"The result as JSON, conforming to the tool's output schema when it has one."},` +
		`"isError":{"type":"boolean"},"_meta":{"type":"object"}}}`)},
	{"ValidationFailure", json.RawMessage(`{"type":"object","required":["path","message","keyword"],"properties":{` +
		`"path":{"type":"string","description":"A JSON Pointer to the failing value; \"\" is the root."},` +
		`"message":{"type":"string"},"keyword":{"type":"string","description":"The JSON Schema keyword that failed."}}}`)},
	{"InvalidArgumentsResult", json.RawMessage(`{"description":"An isError CallToolResult listing why the arguments were refused.",` +
		`"allOf":[{"$ref":"#/components/schemas/CallToolResult"},{"type":"object","required":["structuredContent"],"properties":{` +
		`"structuredContent":{"type":"object","required":["errors"],"properties":{"errors":{"type":"array",` +
		`"items":{"$ref":"#/components/schemas/ValidationFailure"}},"omitted":{"type":"integer"}}}}}]}`)},
	{"ValidateResult", json.RawMessage(`{"type":"object","required":["valid"],"properties":{"valid":{"type":"boolean"},` +
		`"errors":{"type":"array","items":{"$ref":"#/components/schemas/ValidationFailure"}},"omitted":{"type":"integer"}}}`)},
	{"Task", json.RawMessage(`{"type":"object","description":"A call that runs on as a task.",` +
		`"required":["taskId","tool","status","createdAt","lastUpdatedAt","ttlMs","pollIntervalMs"],"properties":{` +
		`"taskId":{"type":"string"},"tool":{"type":"string"},` +
		`"status":{"type":"string","enum":["working","input_required","completed","failed","cancelled"]},` +
		`"statusMessage":{"type":"string"},"progress":{"type":"object","required":["progress"],"properties":{` +
		`"progress":{"type":"number"},"total":{"type":"number"}}},"createdAt":{"type":"string","format":"date-time"},` +
		`"lastUpdatedAt":{"type":"string","format":"date-time"},"ttlMs":{"type":"integer"},"pollIntervalMs":{"type":"integer"},` +
		`"resultStatus":{"type":"integer","description":"Once ended: the status POST .../call would have answered."},` +
		`"result":{"$ref":"#/components/schemas/CallToolResult"}}}`)},
}

var fixedHeaders = jobj{
	{"Retry-After", json.RawMessage(`{"description":"When to try again, in whole seconds.","schema":{"type":"string"}}`)},
	{"WWW-Authenticate", json.RawMessage(`{"description":"The challenge of the auth hook's refusal, when it gave one.","schema":{"type":"string"}}`)},
}

func headerRef(name string) jobj { return ref("#/components/headers/" + name) }

// schemaResponse is a response whose body is the component schema named
// schema, with the component headers named.
func schemaResponse(desc, schema string, headers ...string) jobj {
	r := jobj{{"description", desc}}
	if len(headers) > 0 {
		h := jobj{}
		for _, name := range headers {
			h = append(h, jkv{name, headerRef(name)})
		}
		r = append(r, jkv{"headers", h})
	}
	return append(r, jkv{"content", jsonContent(ref(componentRef(schema)))})
}

// errorResponse is a response whose body is {"error": ...}.
func errorResponse(desc string, headers ...string) jobj {
	return schemaResponse(desc, "Error", headers...)
}

// fixedResponses are the answers every call operation shares.
func fixedResponses(auth bool) jobj {
	out := jobj{
		{"BadRequest", errorResponse("The body could not be read, a transform refused the arguments, or the tool runs only as a task and Prefer: respond-async was not sent.")},
	}
	if auth {
		out = append(out, jkv{"Unauthorized", errorResponse("The auth hook refused the call: {\"error\":\"Unauthorized\"}.", "WWW-Authenticate")})
	}
	out = append(out,
		jkv{"Forbidden", errorResponse("Execution is disabled on this server, the caller lacks a scope the tool needs, or the request failed the host and origin check.", "WWW-Authenticate")},
		jkv{"NotFound", errorResponse("No such tool: {\"error\":\"Tool not found: NAME\"}.")},
		jkv{"TooLarge", errorResponse("The body is over the server's limit.")},
		jkv{"InvalidArguments", schemaResponse("The arguments break the tool's input schema; nothing ran.", "InvalidArgumentsResult")},
		jkv{"RateLimited", schemaResponse("The caller called too often: an isError result.", "CallToolResult", "Retry-After")},
		jkv{"ToolFailed", jobj{{"description", "The tool failed: an isError result saying why (or, for a failure of the server itself, {\"error\":\"Internal server error\"})."},
			{"content", jsonContent(jobj{{"oneOf", []any{ref(componentRef("CallToolResult")), ref(componentRef("Error"))}}})}}},
		jkv{"Unavailable", schemaResponse("A concurrency limit refused the call for now: an isError result.", "CallToolResult", "Retry-After")},
	)
	return out
}

// taskAccepted is the 202 of a call of a tool that may run as a task.
var taskAccepted = jobj{
	{"description", "The call runs on as a task (Prefer: respond-async was sent, and the call outlasted the wait): poll Location."},
	{"headers", jobj{
		{"Location", json.RawMessage(`{"description":"The task's URL, relative to the call's (tasks/{id} under the mount point).","schema":{"type":"string"}}`)},
		{"Preference-Applied", json.RawMessage(`{"description":"respond-async: the call became a task.","schema":{"type":"string"}}`)},
		{"Retry-After", headerRef("Retry-After")}}},
	{"content", jsonContent(ref(componentRef("Task")))},
}

// security is an operation's security requirement: scopes apply to the
// OAuth scheme only.
func (s *docShape) security(guarded bool, scopes []string) []jobj {
	if !guarded || s.scheme == "" {
		return []jobj{}
	}
	if s.scheme != oauthScheme || scopes == nil {
		scopes = []string{}
	}
	return []jobj{{{s.scheme, scopes}}}
}

// newDocShape makes the shared parts of x's document.
func newDocShape(x *Executor) (*docShape, error) {
	s := &docShape{cfg: x.openAPI.withDefaults()}
	switch {
	case s.cfg.OpenIDConnectURL != "":
		s.scheme = oauthScheme
	case x.authHook != nil:
		s.scheme = bearerScheme
	}
	info := jobj{{"title", s.cfg.Title}, {"version", s.cfg.Version}}
	desc := s.cfg.Description
	if desc == "" {
		desc = defaultDescription
	}
	info = info.with("description", desc)
	c := s.cfg.Contact
	info = info.with("contact", jobj{}.with("name", c.Name).with("url", c.URL).with("email", c.Email))
	tags := []jobj{
		{{"name", "tools"}, {"description", "Each operation runs one tool: its arguments are the JSON body."}},
		{{"name", "discovery"}, {"description", "The tools, their schemas, and argument checks that run nothing."}},
		{{"name", "tasks"}, {"description", "Calls that run on as tasks (Prefer: respond-async)."}},
	}
	discovery := s.cfg.GuardedDiscovery
	guardedErrs := func(r jobj) jobj {
		if discovery && s.scheme != "" {
			r = append(r, jkv{"401", ref("#/components/responses/Unauthorized")})
		}
		if discovery || x.rebinding != nil {
			r = append(r, jkv{"403", ref("#/components/responses/Forbidden")})
		}
		slices.SortStableFunc(r, func(a, b jkv) int { return strings.Compare(a.k, b.k) })
		return r
	}
	nameParam := []jobj{{{"name", "name"}, {"in", "path"}, {"required", true},
		{"description", "The tool's name, percent-encoded; a '/' in it may be sent as it is."}, {"schema", jobj{{"type", "string"}}}}}
	idParam := []jobj{{{"name", "id"}, {"in", "path"}, {"required", true}, {"schema", jobj{{"type", "string"}}}}}
	okJSON := func(desc string, schema any) jobj {
		return jobj{{"description", desc}, {"content", jsonContent(schema)}}
	}
	taskResponses := func() jobj {
		r := jobj{{"200", okJSON("The task; once ended, with the call's status and result.", ref(componentRef("Task")))}}
		if s.scheme != "" {
			r = append(r, jkv{"401", ref("#/components/responses/Unauthorized")})
		}
		return append(r, jkv{"403", ref("#/components/responses/Forbidden")},
			jkv{"404", errorResponse("No such task, or not the caller's: {\"error\":\"Task not found\"}.")},
			jkv{"500", errorResponse("The task could not be read or changed.")})
	}
	paths := jobj{
		{"/tools", jobj{{"get", jobj{
			{"summary", "List the tools"}, {"description", "The tools the caller may see, one entry per name."},
			{"tags", []string{"discovery"}}, {"security", s.security(discovery, nil)},
			{"responses", guardedErrs(jobj{{"200", okJSON("The tools.", jobj{{"type", "array"}, {"items", ref(componentRef("ToolSummary"))}})}})},
		}}}},
		{"/tools/{name}", jobj{{"get", jobj{
			{"summary", "Describe a tool"}, {"description", "The tool with its input and output schemas."},
			{"tags", []string{"discovery"}}, {"security", s.security(discovery, nil)}, {"parameters", nameParam},
			{"responses", guardedErrs(jobj{{"200", okJSON("The tool.", ref(componentRef("Tool")))},
				{"404", ref("#/components/responses/NotFound")}})},
		}}}},
		{"/tools/{name}/validate", jobj{{"post", jobj{
			{"summary", "Check arguments without running the tool"},
			{"description", "Checks the body against the tool's input schema; the tool never runs."},
			{"tags", []string{"discovery"}}, {"security", s.security(discovery, nil)}, {"parameters", nameParam},
			{"requestBody", jobj{{"description", "The value to check: any JSON."}, {"content", jsonContent(jobj{})}}},
			{"responses", guardedErrs(jobj{
				{"200", okJSON("Whether the body passes the schema, and why not.", ref(componentRef("ValidateResult")))},
				{"400", okJSON("The body is not JSON, or could not be read.",
					jobj{{"oneOf", []any{ref(componentRef("ValidateResult")), ref(componentRef("Error"))}}})},
				{"404", ref("#/components/responses/NotFound")},
				{"413", ref("#/components/responses/TooLarge")}})},
		}}}},
		{"/tasks/{id}", jobj{
			{"get", jobj{{"summary", "Read a task"}, {"tags", []string{"tasks"}}, {"security", s.security(true, nil)},
				{"parameters", idParam}, {"responses", taskResponses()}}},
			{"delete", jobj{{"summary", "Cancel a task"}, {"tags", []string{"tasks"}}, {"security", s.security(true, nil)},
				{"parameters", idParam}, {"responses", taskResponses()}}},
		}},
	}
	components := jobj{{"responses", fixedResponses(s.scheme != "")}, {"headers", fixedHeaders}}
	switch s.scheme {
	case bearerScheme:
		components = append(components, jkv{"securitySchemes", jobj{{bearerScheme, jobj{{"type", "http"}, {"scheme", "bearer"},
			{"description", "The token the server's auth hook accepts, as Authorization: Bearer TOKEN."}}}}})
	case oauthScheme:
		components = append(components, jkv{"securitySchemes", jobj{{oauthScheme, jobj{{"type", "openIdConnect"},
			{"openIdConnectUrl", s.cfg.OpenIDConnectURL},
			{"description", "An OAuth 2 access token for this server, as Authorization: Bearer TOKEN; each operation lists the scopes it needs."}}}}})
	}
	return s, s.encodeParts(info, tags, paths, components)
}

// defaultDescription is info.description unless OpenAPI.Description says
// otherwise.
const defaultDescription = "Each operation tagged tools runs one tool: POST its arguments as a JSON object, and the answer is an MCP CallToolResult. " +
	"The other operations list and describe the tools, check arguments without running anything, and follow calls that run on as tasks."

// encodeParts writes the shared parts of both forms: the document with an
// empty marker object in place of the tools' operations and schemas,
// split at the markers.
func (s *docShape) encodeParts(info jobj, tags []jobj, paths, components jobj) error {
	const marker = "x-toolexec-marker"
	paths = append(paths, jkv{marker, jobj{}})
	schemas := append(slices.Clone(fixedSchemas), jkv{marker, jobj{}})
	doc := jobj{{"openapi", "3.1.0"}, {"info", info}, {"tags", tags}, {"paths", paths},
		{"components", append(jobj{{"schemas", schemas}}, components...)}, {"servers", []jobj{{{"url", ""}}}}}
	data, err := appendValue(nil, doc)
	if err != nil {
		return err
	}
	// JSON: the parts end before each marker's comma and resume after its
	// empty object; the tail ends before the URL's empty string.
	m := []byte(`,"` + marker + `":{}`)
	i := bytes.Index(data, m)
	j := bytes.LastIndex(data, m)
	end := bytes.LastIndex(data, []byte(`""}]}`))
	s.head, s.mid, s.tail = data[:i], data[i+len(m):j], data[j+len(m):end]
	// YAML: the same, at the marker's line.
	root, err := jsontree.Parse(data)
	if err != nil {
		return err
	}
	y := root.AppendYAML(nil, 0)
	ym := []byte(marker + ": {}\n")
	i = bytes.Index(y, ym)
	j = bytes.LastIndex(y, ym)
	end = bytes.LastIndex(y, []byte(`""`))
	s.yhead, s.ymid, s.ytail = y[:lineStart(y, i)], y[i+len(ym):lineStart(y, j)], y[j+len(ym):end]
	return nil
}

func lineStart(b []byte, i int) int { return bytes.LastIndexByte(b[:i], '\n') + 1 }

// toolDoc is one tool's part of the documents: its call operation and its
// schemas in both forms, and its line of llms.txt.
type toolDoc struct {
	// ok is false for a tool whose schemas are not JSON: it is left out.
	ok bool
	// path and schemas are the members of paths and components.schemas,
	// each member preceded by a comma.
	path, schemas []byte
	// ypath and yschemas are the same members in YAML.
	ypath, yschemas []byte
	llms            []byte
}

// makeToolDoc makes t's part of the documents.
func (s *docShape) makeToolDoc(t *Tool) *toolDoc {
	id := operationID(t.Name)
	inName, outName := "tools."+id+".input", "tools."+id+".output"
	in, err := rewriteSchema(t.inputSchemaOrDefault(), inName)
	if err != nil {
		return &toolDoc{}
	}
	var out *jsontree.Node
	if len(t.OutputSchema) > 0 {
		if out, err = rewriteSchema(t.OutputSchema, outName); err != nil {
			return &toolDoc{}
		}
	}
	summary := t.Title
	if summary == "" && t.Annotations != nil {
		summary = t.Annotations.Title
	}
	if summary == "" {
		summary = t.Name
	}
	op := jobj{{"operationId", id}, {"summary", summary}}.with("description", t.Description)
	op = append(op, jkv{"tags", []string{"tools"}}, jkv{"x-toolexec-name", t.Name})
	if t.Annotations != nil {
		op = append(op, jkv{"x-toolexec-annotations", t.Annotations})
		if h := t.Annotations.ReadOnlyHint; h != nil && *h {
			op = append(op, jkv{"x-openai-isConsequential", false})
		}
	}
	task := t.Options.TaskSupport == TaskSupportOptional || t.Options.TaskSupport == TaskSupportRequired
	if task {
		op = append(op, jkv{"x-toolexec-task-support", string(t.Options.TaskSupport)})
	}
	op = append(op, jkv{"security", s.security(true, t.Options.Scopes)})
	if declaresNothing(in) {
		in = nil // no body: no schema
	} else {
		body := jobj{{"description", "The arguments."}}
		if req, ok := in.Get("required"); ok && len(req.Values) > 0 {
			body = append(body, jkv{"required", true})
		}
		op = append(op, jkv{"requestBody", append(body, jkv{"content", jsonContent(ref(componentRef(inName)))})})
	}
	var result any = ref(componentRef("CallToolResult"))
	if out != nil {
		result = jobj{{"allOf", []any{result, jobj{{"type", "object"},
			{"properties", jobj{{"structuredContent", ref(componentRef(outName))}}}}}}}
	}
	responses := jobj{{"200", jobj{{"description", "The tool's result."}, {"content", jsonContent(result)}}}}
	if task {
		responses = append(responses, jkv{"202", taskAccepted})
	}
	responses = append(responses, jkv{"400", ref("#/components/responses/BadRequest")})
	if s.scheme != "" {
		responses = append(responses, jkv{"401", ref("#/components/responses/Unauthorized")})
	}
	for _, r := range []struct{ code, name string }{{"403", "Forbidden"}, {"404", "NotFound"}, {"413", "TooLarge"},
		{"422", "InvalidArguments"}, {"429", "RateLimited"}, {"500", "ToolFailed"}, {"503", "Unavailable"}} {
		responses = append(responses, jkv{r.code, ref("#/components/responses/" + r.name)})
	}
	op = append(op, jkv{"responses", responses})
	pathItem, err := appendValue(nil, jobj{{"post", op}})
	if err != nil {
		return &toolDoc{} // annotations and strings always encode
	}
	d := &toolDoc{ok: true}
	key := "/tools/" + toolPathSegment(t.Name) + "/call"
	d.path = append(jsontree.AppendJSONString([]byte{','}, key), ':')
	d.path = append(d.path, pathItem...)
	node, err := jsontree.Parse(pathItem)
	if err != nil {
		return &toolDoc{}
	}
	d.ypath = jsontree.AppendYAMLMember(nil, key, node, 2)
	for _, c := range []struct {
		name string
		n    *jsontree.Node
	}{{inName, in}, {outName, out}} {
		if c.n == nil {
			continue
		}
		d.schemas = append(jsontree.AppendJSONString(append(d.schemas, ','), c.name), ':')
		d.schemas = c.n.AppendJSON(d.schemas)
		d.yschemas = jsontree.AppendYAMLMember(d.yschemas, c.name, c.n, 4)
	}
	d.llms = llmsLine(t)
	return d
}

// assemble writes the document (JSON, or YAML when yaml is set) of the
// tools docs, up to where the server URL goes.
func (s *docShape) assemble(docs []*toolDoc, yaml bool) []byte {
	head, mid, tail := s.head, s.mid, s.tail
	path := func(d *toolDoc) []byte { return d.path }
	schemas := func(d *toolDoc) []byte { return d.schemas }
	if yaml {
		head, mid, tail = s.yhead, s.ymid, s.ytail
		path = func(d *toolDoc) []byte { return d.ypath }
		schemas = func(d *toolDoc) []byte { return d.yschemas }
	}
	size := len(head) + len(mid) + len(tail)
	for _, d := range docs {
		size += len(path(d)) + len(schemas(d))
	}
	out := make([]byte, 0, size+len(docEnd)+256)
	out = append(out, head...)
	for _, d := range docs {
		out = append(out, path(d)...)
	}
	out = append(out, mid...)
	for _, d := range docs {
		out = append(out, schemas(d)...)
	}
	return append(out, tail...)
}

// docEnd closes the JSON form after the server URL.
const docEnd = "}]}\n"

// documented reports whether b's part of the documents is a's.
func documented(a, b *Tool) bool {
	return sameDetail(a, b) && a.Options.TaskSupport == b.Options.TaskSupport && slices.Equal(a.Options.Scopes, b.Options.Scopes)
}

// cloneDocumented copies what the documents show of t.
func cloneDocumented(t *Tool) Tool {
	c := cloneListed(t)
	c.Options.TaskSupport = t.Options.TaskSupport
	c.Options.Scopes = slices.Clone(t.Options.Scopes)
	return c
}
