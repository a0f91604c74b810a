package toolexec

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/toolexec/toolexec/internal/toolenc"
)

// docTools is a registry with one tool of every kind the document
// describes differently.
func docTools(t *testing.T) *Registry {
	t.Helper()
	reg := NewRegistry(WithRegistryLogger(discardLogger()))
	ok := func(context.Context, string, map[string]any) ([]Content, bool, string, error) {
		return []Content{Text("ok")}, false, "", nil
	}
	reg.MustAdd(Tool{Name: "echo", Title: "Echo", Description: "Says it back.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Annotations: &ToolAnnotations{ReadOnlyHint: Bool(true)}}, ok)
	reg.MustAdd(Tool{Name: "weather", Description: "Forecast.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"tempC":{"type":"number"}},"required":["tempC"]}`)}, ok)
	reg.MustAdd(Tool{Name: "image/resize", Description: "Namespaced."}, ok)
	reg.MustAdd(Tool{Name: "report", Description: "Long.", Options: ToolOptions{TaskSupport: TaskSupportOptional, Scopes: []string{"reports"}}}, ok)
	return reg
}

// getDoc fetches the JSON document from h at target.
func getDoc(t *testing.T, h http.Handler, target string, headers ...string) map[string]any {
	t.Helper()
	res := do(t, h, http.MethodGet, target, "", headers...)
	require.Equal(t, http.StatusOK, res.status, res.body)
	assert.Equal(t, "application/json", res.header.Get("Content-Type"))
	return res.json(t)
}

// operation returns the operation at path and method, or nil.
func operation(doc map[string]any, path, method string) map[string]any {
	item, _ := doc["paths"].(map[string]any)[path].(map[string]any)
	op, _ := item[method].(map[string]any)
	return op
}

// at walks doc by keys.
func at(doc any, keys ...string) any {
	for _, k := range keys {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		doc = m[k]
	}
	return doc
}

func TestOpenAPIDocumentHasOneOperationPerTool(t *testing.T) {
	h := http.StripPrefix("/api", NewHandler(New(docTools(t), docTools(t), WithLogger(discardLogger()))))
	doc := getDoc(t, h, "/api/openapi.json")

	assert.Equal(t, "3.1.0", doc["openapi"])
	assert.Equal(t, map[string]any{"title": "Tools", "version": "1.0.0", "description": defaultDescription}, doc["info"])
	var calls []string
	for path, item := range doc["paths"].(map[string]any) {
		if post := at(item, "post"); at(post, "tags") != nil && at(post, "tags").([]any)[0] == "tools" {
			calls = append(calls, path)
		}
	}
	slices.Sort(calls)
	assert.Equal(t, []string{"/tools/echo/call", "/tools/image/resize/call", "/tools/report/call", "/tools/weather/call"}, calls)

	echo := operation(doc, "/tools/echo/call", "post")
	assert.Equal(t, "echo", echo["operationId"])
	assert.Equal(t, "Echo", echo["summary"])
	assert.Equal(t, "Says it back.", echo["description"])
	assert.Equal(t, "echo", echo["x-toolexec-name"])
	assert.Equal(t, map[string]any{"readOnlyHint": true}, echo["x-toolexec-annotations"])
	assert.Equal(t, false, echo["x-openai-isConsequential"])
	assert.Equal(t, []any{}, echo["security"], "no auth hook: no credentials")
	assert.Equal(t, true, at(echo, "requestBody", "required"))
	assert.Equal(t, "#/components/schemas/tools.echo.input", at(echo, "requestBody", "content", "application/json", "schema", "$ref"))
	assert.Equal(t, map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}},
		at(doc, "components", "schemas", "tools.echo.input"), "the input schema, as the host wrote it")
	assert.NotContains(t, echo["responses"], "202", "a tool that runs no tasks is never answered 202")
	assert.NotContains(t, echo["responses"], "401", "nor 401 without an auth hook")
	for _, code := range []string{"200", "400", "403", "404", "413", "422", "429", "500", "503"} {
		assert.Contains(t, echo["responses"], code)
	}

	weather := operation(doc, "/tools/weather/call", "post")
	assert.Nil(t, at(weather, "requestBody", "required"), "no required property: the body may be left out")
	assert.Equal(t, "#/components/schemas/tools.weather.output",
		at(weather, "responses", "200", "content", "application/json", "schema", "allOf").([]any)[1].(map[string]any)["properties"].(map[string]any)["structuredContent"].(map[string]any)["$ref"])

	resize := operation(doc, "/tools/image/resize/call", "post")
	assert.Regexp(t, `^image_resize_[0-9a-f]{8}$`, resize["operationId"], "a name outside [A-Za-z0-9_-] gets a stable id")
	assert.Equal(t, "image/resize", resize["x-toolexec-name"])
	assert.Nil(t, resize["requestBody"], "a tool whose schema names nothing to send has no body")
	assert.NotContains(t, at(doc, "components", "schemas"), "tools."+resize["operationId"].(string)+".input")

	report := operation(doc, "/tools/report/call", "post")
	assert.Equal(t, "optional", report["x-toolexec-task-support"])
	assert.Contains(t, report["responses"], "202")
	assert.Equal(t, "#/components/schemas/Task", at(report, "responses", "202", "content", "application/json", "schema", "$ref"))

	for _, p := range []string{"/tools", "/tools/{name}", "/tools/{name}/validate", "/tasks/{id}"} {
		assert.Contains(t, doc["paths"], p)
	}
	assert.Equal(t, []any{map[string]any{"url": "http://example.com/api"}}, doc["servers"])
}

func TestOpenAPISecurityFollowsTheAuthSettings(t *testing.T) {
	hook := func(next http.Handler) http.Handler { return next }
	reg := docTools(t)

	doc := getDoc(t, NewHandler(New(reg, reg, WithAuthHook(hook), WithLogger(discardLogger()))), "/openapi.json")
	assert.Equal(t, map[string]any{"type": "http", "scheme": "bearer", "description": "The token the server's auth hook accepts, as Authorization: Bearer TOKEN."},
		at(doc, "components", "securitySchemes", "bearerAuth"))
	report := operation(doc, "/tools/report/call", "post")
	assert.Equal(t, []any{map[string]any{"bearerAuth": []any{}}}, report["security"], "a bearer scheme has no scopes")
	assert.Contains(t, report["responses"], "401")
	assert.Equal(t, []any{}, operation(doc, "/tools", "get")["security"], "discovery needs no credentials")
	assert.Equal(t, []any{map[string]any{"bearerAuth": []any{}}}, operation(doc, "/tasks/{id}", "get")["security"])

	doc = getDoc(t, NewHandler(New(reg, reg, WithAuthHook(hook), WithLogger(discardLogger()),
		WithOpenAPI(OpenAPI{OpenIDConnectURL: "https://auth.example.com/.well-known/openid-configuration", GuardedDiscovery: true}))), "/openapi.json")
	assert.Equal(t, "openIdConnect", at(doc, "components", "securitySchemes", "oauth", "type"))
	assert.Equal(t, "https://auth.example.com/.well-known/openid-configuration", at(doc, "components", "securitySchemes", "oauth", "openIdConnectUrl"))
	assert.Equal(t, []any{map[string]any{"oauth": []any{"reports"}}}, operation(doc, "/tools/report/call", "post")["security"], "the tool's scopes")
	assert.Equal(t, []any{map[string]any{"oauth": []any{}}}, operation(doc, "/tools/echo/call", "post")["security"])
	assert.Equal(t, []any{map[string]any{"oauth": []any{}}}, operation(doc, "/tools", "get")["security"], "guarded discovery")
	assert.Contains(t, at(operation(doc, "/tools", "get"), "responses"), "401")
}

func TestOpenAPIInfoIsTheHostsChoice(t *testing.T) {
	reg := docTools(t)
	doc := getDoc(t, NewHandler(New(reg, reg, WithLogger(discardLogger()), WithOpenAPI(OpenAPI{
		Title: "Acme tools", Version: "2.3.0", Description: "Acme's.",
		Contact: OpenAPIContact{Name: "Ops", Email: "ops@acme.test"}}))), "/openapi.json")
	assert.Equal(t, map[string]any{"title": "Acme tools", "version": "2.3.0", "description": "Acme's.",
		"contact": map[string]any{"name": "Ops", "email": "ops@acme.test"}}, doc["info"])
}

func TestOpenAPIServerURLIsWhereTheClientReachedTheHandler(t *testing.T) {
	reg := docTools(t)
	handler := func(o OpenAPI) http.Handler {
		return NewHandler(New(reg, reg, WithLogger(discardLogger()), WithOpenAPI(o)))
	}
	chiMounted := func(o OpenAPI) http.Handler {
		r := chi.NewRouter()
		r.Mount("/v1/tools-api", handler(o))
		return r
	}
	stripped := func(o OpenAPI) http.Handler { return http.StripPrefix("/api", handler(o)) }
	forwarded := []string{"X-Forwarded-Proto", "https", "X-Forwarded-Host", "tools.example.com", "X-Forwarded-Prefix", "/public/"}
	for _, c := range []struct {
		name    string
		h       http.Handler
		target  string
		tls     bool
		headers []string
		want    string
	}{
		{"at the root", handler(OpenAPI{}), "/openapi.json", false, nil, "http://example.com"},
		{"http.StripPrefix", stripped(OpenAPI{}), "/api/openapi.json", false, nil, "http://example.com/api"},
		{"chi's Mount", chiMounted(OpenAPI{}), "/v1/tools-api/openapi.json", false, nil, "http://example.com/v1/tools-api"},
		{"TLS", stripped(OpenAPI{}), "/api/openapi.json", true, nil, "https://example.com/api"},
		{"forwarded headers, not trusted", stripped(OpenAPI{}), "/api/openapi.json", false, forwarded, "http://example.com/api"},
		{"forwarded headers, trusted", stripped(OpenAPI{TrustForwardedHeaders: true}), "/api/openapi.json", false, forwarded, "https://tools.example.com/public/api"},
		{"malformed forwarded headers are ignored", stripped(OpenAPI{TrustForwardedHeaders: true}), "/api/openapi.json", false,
			[]string{"X-Forwarded-Proto", "javascript", "X-Forwarded-Host", "evil.test/x?y", "X-Forwarded-Prefix", "no-slash"}, "http://example.com/api"},
		{"the first of several forwarded values", stripped(OpenAPI{TrustForwardedHeaders: true}), "/api/openapi.json", false,
			[]string{"X-Forwarded-Host", "a.example.com, b.internal"}, "http://a.example.com/api"},
		{"a fixed URL", stripped(OpenAPI{ServerURL: "https://api.example.com/tools/", TrustForwardedHeaders: true}), "/api/openapi.json", false,
			forwarded, "https://api.example.com/tools"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, c.target, nil)
			if c.tls {
				req.TLS = &tls.ConnectionState{}
			}
			for i := 0; i+1 < len(c.headers); i += 2 {
				req.Header.Set(c.headers[i], c.headers[i+1])
			}
			rec := httptest.NewRecorder()
			c.h.ServeHTTP(rec, req)
			require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			var doc map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
			assert.Equal(t, []any{map[string]any{"url": c.want}}, doc["servers"])
			assert.Contains(t, rec.Header().Get("Vary"), "Host")
		})
	}
}

func TestOpenAPIYAMLIsTheSameDocument(t *testing.T) {
	reg := docTools(t)
	h := http.StripPrefix("/api", NewHandler(New(reg, reg, WithLogger(discardLogger()), WithAuthHook(func(next http.Handler) http.Handler { return next }))))
	fromJSON := getDoc(t, h, "/api/openapi.json")
	res := do(t, h, http.MethodGet, "/api/openapi.yaml", "")
	require.Equal(t, http.StatusOK, res.status)
	assert.Equal(t, "application/yaml", res.header.Get("Content-Type"))
	var fromYAML map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(res.body), &fromYAML))
	assert.Equal(t, fromJSON, normalizeYAML(fromYAML))
}

// normalizeYAML turns what yaml.v3 decodes into what encoding/json does:
// numbers as float64.
func normalizeYAML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeYAML(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeYAML(e)
		}
	case int:
		return float64(x)
	}
	return v
}

// scopeFilter shows a tool only to a caller whose X-Scopes header lists
// every scope the tool needs.
func scopeFilter(r *http.Request, tools []Tool) []Tool {
	held := strings.Fields(r.Header.Get("X-Scopes"))
	var out []Tool
	for _, t := range tools {
		if !slices.ContainsFunc(t.Options.Scopes, func(s string) bool { return !slices.Contains(held, s) }) {
			out = append(out, t)
		}
	}
	return out
}

func TestOpenAPIDocumentsArePerCaller(t *testing.T) {
	for _, p := range []struct {
		name     string
		provider func(*Registry) ToolProvider
	}{
		{"a provider that reports changes", func(r *Registry) ToolProvider { return r }},
		{"a provider that does not", func(r *Registry) ToolProvider { return ToolProviderFunc(r.Tools) }},
	} {
		t.Run(p.name, func(t *testing.T) {
			reg := docTools(t)
			h := NewHandler(New(p.provider(reg), reg, WithLogger(discardLogger()), WithToolFilter(scopeFilter)))
			for range 2 { // the second time from what was kept
				without := getDoc(t, h, "/openapi.json")
				assert.Nil(t, operation(without, "/tools/report/call", "post"), "a caller without the scope does not see the tool")
				assert.NotNil(t, operation(without, "/tools/echo/call", "post"))
				with := getDoc(t, h, "/openapi.json", "X-Scopes", "reports")
				assert.NotNil(t, operation(with, "/tools/report/call", "post"), "a caller with it does")

				llms := do(t, h, http.MethodGet, "/llms.txt", "").body
				assert.NotContains(t, llms, "[report]")
				assert.Contains(t, llms, "[echo](tools/echo)")
				assert.Contains(t, do(t, h, http.MethodGet, "/llms.txt", "", "X-Scopes", "reports").body, "[report](tools/report)")
				yml := do(t, h, http.MethodGet, "/openapi.yaml", "")
				assert.NotContains(t, yml.body, "/tools/report/call")
				assert.Equal(t, "private, no-cache", yml.header.Get("Cache-Control"))
			}
			reg.MustAdd(Tool{Name: "late", Description: "Added later."}, func(string, map[string]any) ([]Content, bool, string, error) {
				return nil, false, "", nil
			})
			assert.NotNil(t, operation(getDoc(t, h, "/openapi.json"), "/tools/late/call", "post"), "a change is seen")
			require.True(t, reg.Remove("echo", ""))
			assert.Nil(t, operation(getDoc(t, h, "/openapi.json"), "/tools/echo/call", "post"), "so is a removal")
		})
	}
}

func TestOpenAPIViewIsKeptUntilTheToolsChange(t *testing.T) {
	reg := docTools(t)
	var makes atomic.Int64
	x := New(reg, reg, WithLogger(discardLogger()))
	d := newDocs(x)
	make0 := d.tools.Make
	d.tools.Make = func(t *Tool) *toolDoc { makes.Add(1); return make0(t) }
	lists := toolenc.NewLists(toolenc.Watch(x.onToolsChanged), func(t *Tool) string { return t.Name })
	req := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
	first, _ := d.view(req, formJSON, lists, x.latestTools)
	again, _ := d.view(req, formJSON, lists, x.latestTools)
	assert.Same(t, &first[0], &again[0], "the same bytes: nothing assembled again")
	assert.Equal(t, int64(4), makes.Load(), "each tool's part made once")
	yaml1, _ := d.view(req, formYAML, lists, x.latestTools)
	assert.NotEmpty(t, yaml1)
	assert.Equal(t, int64(4), makes.Load(), "another form reuses the parts")

	reg.MustAdd(Tool{Name: "late"}, func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil })
	after, _ := d.view(req, formJSON, lists, x.latestTools)
	assert.NotSame(t, &first[0], &after[0])
	assert.Equal(t, int64(5), makes.Load(), "after a change, only the new tool's part is made")
}

func TestOpenAPIDocumentsAnswerGETAndHEADOnly(t *testing.T) {
	reg := docTools(t)
	h := NewHandler(New(reg, reg, WithLogger(discardLogger())))
	for _, path := range []string{"/openapi.json", "/openapi.yaml", "/llms.txt"} {
		head := do(t, h, http.MethodHead, path, "")
		get := do(t, h, http.MethodGet, path, "")
		assert.Equal(t, http.StatusOK, head.status)
		assert.Empty(t, head.body)
		assert.Equal(t, head.header.Get("Content-Length"), get.header.Get("Content-Length"))
		assert.Equal(t, strconv.Itoa(len(get.body)), get.header.Get("Content-Length"))
		assert.Equal(t, "nosniff", get.header.Get("X-Content-Type-Options"))
		post := do(t, h, http.MethodPost, path, "{}")
		assert.Equal(t, http.StatusMethodNotAllowed, post.status)
		assert.Equal(t, "GET, HEAD", post.header.Get("Allow"))
		assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodGet, path+"/", "").status)
	}
	assert.Equal(t, "text/plain; charset=utf-8", do(t, h, http.MethodGet, "/llms.txt", "").header.Get("Content-Type"))
}

func TestOpenAPIDisabledIsNotFound(t *testing.T) {
	reg := docTools(t)
	x := New(reg, reg, WithLogger(discardLogger()), WithOpenAPI(OpenAPI{Disabled: true}))
	h := NewHandler(x)
	for _, path := range []string{"/openapi.json", "/openapi.yaml", "/llms.txt"} {
		res := do(t, h, http.MethodGet, path, "")
		assert.Equal(t, http.StatusNotFound, res.status)
		assert.JSONEq(t, `{"error":"Not found"}`, res.body)
	}
	assert.False(t, x.SurfaceKit().OpenAPIServed())
	assert.True(t, New(reg, reg).SurfaceKit().OpenAPIServed(), "served by default")
}

func TestOpenAPIRefusesRebindingAsEveryRouteDoes(t *testing.T) {
	reg := docTools(t)
	h := NewHandler(New(reg, reg, WithLogger(discardLogger()), WithRebindingProtection(RebindingProtection{})))
	req := httptest.NewRequest(http.MethodGet, "http://localhost/openapi.json", nil)
	req.Header.Set("Origin", "http://attacker.test")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusForbidden, rec.Code)
	doc := getDoc(t, h, "http://localhost/openapi.json")
	assert.Contains(t, at(operation(doc, "/tools", "get"), "responses"), "403", "the document says so")
}

func TestOpenAPILeavesOutAToolWhoseSchemaIsNotJSON(t *testing.T) {
	tools := StaticTools{
		{Name: "good", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}}}`)},
		{Name: "broken", InputSchema: json.RawMessage(`{"type":`)},
	}
	h := NewHandler(New(tools, func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil },
		WithLogger(discardLogger())))
	doc := getDoc(t, h, "/openapi.json")
	assert.NotNil(t, operation(doc, "/tools/good/call", "post"))
	assert.Nil(t, operation(doc, "/tools/broken/call", "post"))
}

func TestEveryDocumentedCallPathReachesItsTool(t *testing.T) {
	names := []string{"plain", "a/b", "jobs/call", "x/validate", "a b", "percent%", "dots.v1", "q?x", "brace{x}", "trail/", "/lead", "a//b", "..", "é"}
	reg := NewRegistry(WithRegistryLogger(discardLogger()))
	for _, n := range names {
		name := n
		reg.MustAdd(Tool{Name: name}, func(string, map[string]any) ([]Content, bool, string, error) {
			return []Content{Text(name)}, false, "", nil
		})
	}
	srv := httptest.NewServer(http.StripPrefix("/api", NewHandler(New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger())))))
	defer srv.Close()
	res, err := http.Get(srv.URL + "/api/openapi.json")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.NewDecoder(res.Body).Decode(&doc))
	_ = res.Body.Close()
	base := doc["servers"].([]any)[0].(map[string]any)["url"].(string)
	seen := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		post := at(item, "post")
		name, ok := at(post, "x-toolexec-name").(string)
		if !ok {
			continue
		}
		ids := at(post, "operationId").(string)
		assert.Regexp(t, `^[A-Za-z0-9_-]{1,64}$`, ids)
		assert.NotContains(t, path, "{", "no templating in a tool's path")
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader("{}"))
		require.NoError(t, err)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		var body map[string]any
		require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
		_ = res.Body.Close()
		if name == ".." {
			continue // clients and servers resolve dot segments: documented, not routable through ServeMux
		}
		assert.Equal(t, http.StatusOK, res.StatusCode, "%s at %s", name, path)
		assert.Equal(t, name, at(body, "content").([]any)[0].(map[string]any)["text"], "%s at %s", name, path)
		seen[name] = true
	}
	assert.Len(t, seen, len(names)-1)
}

func TestOperationIDs(t *testing.T) {
	assert.Equal(t, "text_upper", operationID("text_upper"))
	assert.Equal(t, "Get-Thing9", operationID("Get-Thing9"))
	id := operationID("image/resize")
	assert.Regexp(t, `^image_resize_[0-9a-f]{8}$`, id)
	assert.Equal(t, id, operationID("image/resize"), "stable")
	assert.NotEqual(t, id, operationID("image.resize"), "names that sanitize alike differ by their hash")
	long := strings.Repeat("a", 65)
	assert.Len(t, operationID(long), 64, "over 64 characters: cut, with the hash")
	assert.Equal(t, strings.Repeat("a", 64), operationID(strings.Repeat("a", 64)))
	assert.Regexp(t, `^_{2}_[0-9a-f]{8}$`, operationID("éé"), "one '_' per character")
}

func TestLLMSTxtIndexesTheTools(t *testing.T) {
	reg := NewRegistry(WithRegistryLogger(discardLogger()))
	ok := func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil }
	reg.MustAdd(Tool{Name: "echo", Description: "Says it back.\nOn two lines.\n\nA second paragraph is left out."}, ok)
	reg.MustAdd(Tool{Name: "a/[b]", Description: strings.Repeat("é", 200)}, ok)
	reg.MustAdd(Tool{Name: "quiet"}, ok)
	h := http.StripPrefix("/api", NewHandler(New(reg, reg, WithLogger(discardLogger()),
		WithAuthHook(func(next http.Handler) http.Handler { return next }),
		WithOpenAPI(OpenAPI{Title: "Acme\n# tools", Description: "Acme's tools."}))))
	res := do(t, h, http.MethodGet, "/api/llms.txt", "")
	require.Equal(t, http.StatusOK, res.status)
	body := res.body
	assert.True(t, strings.HasPrefix(body, "# Acme # tools\n\n> Acme's tools.\n\nBase URL: http://example.com/api\n\n## Calling a tool\n"), body)
	assert.Contains(t, body, "- Calls need `Authorization: Bearer <token>`.\n")
	assert.Contains(t, body, "[openapi.json](openapi.json)")
	assert.Contains(t, body, "\n## Tools\n\n- [echo](tools/echo): Says it back. On two lines.\n")
	assert.NotContains(t, body, "second paragraph")
	assert.Contains(t, body, "- [a/\\[b\\]](tools/a/%5Bb%5D): "+strings.Repeat("é", 150)+"…\n", "a name escaped for Markdown, a long description cut at a character")
	assert.True(t, strings.HasSuffix(body, "- [quiet](tools/quiet)\n"), body)
}
