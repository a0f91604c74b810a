package openapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/toolexec/toolexec/internal/testserver"
)

// allowedWarnings are the warnings of Redocly's recommended rules the
// documents draw on purpose, by rule, and where ("" for anywhere); any
// other warning, and every error, fails.
var allowedWarnings = map[string]string{
	// Only the operations that run a tool have an operationId: clients that
	// turn operations into tools (Open WebUI, GPT Actions, LangChain's
	// toolkits) take every operation with one for a tool, and a model
	// should see the tools, not the routes that list them.
	"operation-operationId": "",
	// info.license is the host's to state about its API, not toolexec's.
	"info-license": "",
	// The servers here listen on localhost.
	"no-server-example.com": "",
	// The list has no client error to describe (without the rebinding
	// protection, which adds 403).
	"operation-4xx-response": "#/paths/~1tools/get/responses",
}

func TestDocumentsLintCleanAndValidate(t *testing.T) {
	tc := tools(t)
	dir := t.TempDir()
	ex := exampleServer(t)
	sv := serveServer(t)
	f := newFeatures(t)
	many := thousandTools(t)
	docs := []string{
		save(t, dir, "example.json", ex+"/openapi.json"),
		save(t, dir, "example.yaml", ex+"/openapi.yaml"),
		save(t, dir, "features.json", f.base+"/openapi.json", "X-Scopes", "reports"),
		save(t, dir, "features.yaml", f.base+"/openapi.yaml"),
		save(t, dir, "thousand.json", many+"/openapi.json"),
		save(t, dir, "serve.json", sv+"/api/openapi.json"),
		save(t, dir, "serve.yaml", sv+"/api/openapi.yaml"),
		save(t, dir, "serve-toolset.json", sv+"/toolsets/readonly/api/openapi.json"),
	}
	var thousand map[string]any
	require.NoError(t, json.Unmarshal(get(t, many+"/openapi.json"), &thousand))
	calls := 0
	for p := range thousand["paths"].(map[string]any) {
		if strings.HasSuffix(p, "/call") {
			calls++
		}
	}
	assert.Equal(t, 1000, calls, "one operation per tool")

	// Redocly, with its recommended rules, from a directory without a
	// configuration of its own.
	// It writes one JSON report per document.
	out, stderr, _ := tc.run(t, t.TempDir(), 5*time.Minute, tc.bin("redocly"), append([]string{"lint", "--format=json"}, docs...)...)
	dec := json.NewDecoder(strings.NewReader(out))
	reports := 0
	for dec.More() {
		var lint struct {
			Totals   struct{ Errors, Warnings int }
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Severity string
				Message  string
				Location []struct {
					Source  struct{ Ref string }
					Pointer string
				}
			}
		}
		require.NoError(t, dec.Decode(&lint), "redocly's output: %s %s", out, stderr)
		reports++
		assert.Zero(t, lint.Totals.Errors, "Redocly finds no error")
		for _, p := range lint.Problems {
			where := ""
			if len(p.Location) > 0 {
				where = filepath.Base(p.Location[0].Source.Ref) + " " + p.Location[0].Pointer
			}
			if at, ok := allowedWarnings[p.RuleID]; !ok || p.Severity != "warn" || (at != "" && (len(p.Location) == 0 || p.Location[0].Pointer != at)) {
				t.Errorf("redocly %s %s at %s: %s", p.Severity, p.RuleID, where, p.Message)
			}
		}
	}
	assert.Equal(t, len(docs), reports, "a report per document: %s", stderr)

	// swagger-parser: the structure, then every $ref resolved.
	work := tc.workDir(t)
	copyFile(t, "validate.mjs", filepath.Join(work, "validate.mjs"))
	out, stderr, code := tc.run(t, work, 5*time.Minute, "node", append([]string{"validate.mjs"}, docs...)...)
	assert.Zero(t, code, "swagger-parser: %s %s", out, stderr)
	assert.Equal(t, len(docs), strings.Count(out, "valid "), out)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

// prism starts Prism as a validating proxy in front of upstream, with doc
// as its description, and returns its URL. Prism passes every request and
// answer through unchanged, and lists what breaks the description in the
// answer's sl-violations header.
func prism(t *testing.T, tc *toolchain, doc, upstream string) string {
	t.Helper()
	p, err := testserver.FreePort()
	require.NoError(t, err)
	port := strconv.Itoa(p)
	cmd := exec.Command(tc.bin("prism"), "proxy", doc, upstream, "--host", "127.0.0.1", "--port", port)
	cmd.Env = tc.env
	start(t, cmd, `Prism is listening on (http://\S+)`, false)
	return "http://127.0.0.1:" + port
}

// exchange is one request of a scripted run and what it must get.
type exchange struct {
	name    string
	method  string
	path    string
	body    string
	headers []string
	status  int
	// invalid marks a request that breaks the description on purpose (no
	// token, arguments that break the schema): only the answer is held to
	// the document.
	invalid bool
}

var auth = []string{"Authorization", "Bearer " + token}

func jsonBody(headers ...string) []string {
	return append([]string{"Content-Type", "application/json"}, headers...)
}

// violation is one entry of Prism's sl-violations header.
type violation struct {
	Location []string
	Severity string
	Message  string
}

// send runs e through Prism at base and checks the answer's status and
// that Prism found it conforming; it returns the answer's headers and body.
func send(t *testing.T, base string, e exchange) (http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(e.method, base+e.path, strings.NewReader(e.body))
	require.NoError(t, err)
	for i := 0; i+1 < len(e.headers); i += 2 {
		req.Header.Set(e.headers[i], e.headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err, e.name)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	assert.Equal(t, e.status, res.StatusCode, "%s: %s", e.name, body)
	var vs []violation
	if h := res.Header.Get("sl-violations"); h != "" {
		require.NoError(t, json.Unmarshal([]byte(h), &vs), "%s: sl-violations %s", e.name, h)
	}
	for _, v := range vs {
		if !e.invalid || (len(v.Location) > 0 && v.Location[0] == "response") {
			t.Errorf("%s (%d): Prism: %s %v: %s", e.name, res.StatusCode, v.Severity, v.Location, v.Message)
		}
	}
	return res.Header, body
}

func TestPrismFindsEveryLiveResponseConforming(t *testing.T) {
	tc := tools(t)
	dir := t.TempDir()

	t.Run("examples/server", func(t *testing.T) {
		ex := exampleServer(t)
		p := prism(t, tc, save(t, dir, "example.json", ex+"/openapi.json"), ex)
		big := `{"text":"` + strings.Repeat("a", 1<<20) + `"}`
		for _, e := range []exchange{
			{name: "list", method: "GET", path: "/tools", status: 200},
			{name: "describe", method: "GET", path: "/tools/math_add", status: 200},
			{name: "describe an unknown tool", method: "GET", path: "/tools/nope", status: 404},
			{name: "validate, valid", method: "POST", path: "/tools/echo/validate", body: `{"text":"x"}`, headers: jsonBody(), status: 200},
			{name: "validate, invalid", method: "POST", path: "/tools/echo/validate", body: `{"text":1}`, headers: jsonBody(), status: 200},
			{name: "validate an unknown tool", method: "POST", path: "/tools/nope/validate", body: `{}`, headers: jsonBody(), status: 404},
			{name: "validate, not JSON", method: "POST", path: "/tools/echo/validate", body: `{"text":`, headers: jsonBody(), status: 400, invalid: true},
			{name: "echo", method: "POST", path: "/tools/echo/call", body: `{"text":"hi"}`, headers: jsonBody(auth...), status: 200},
			{name: "text_upper", method: "POST", path: "/tools/text_upper/call", body: `{"text":"hi"}`, headers: jsonBody(auth...), status: 200},
			{name: "stats", method: "POST", path: "/tools/stats/call", body: `{"numbers":[1,2.5]}`, headers: jsonBody(auth...), status: 200},
			{name: "image_swatch", method: "POST", path: "/tools/image_swatch/call", headers: auth, status: 200},
			{name: "divide", method: "POST", path: "/tools/divide/call", body: `{"a":1,"b":4}`, headers: jsonBody(auth...), status: 200},
			{name: "a tool error: divide by zero", method: "POST", path: "/tools/divide/call", body: `{"a":1,"b":0}`, headers: jsonBody(auth...), status: 500},
			{name: "a tool error: fail", method: "POST", path: "/tools/fail/call", headers: auth, status: 500},
			{name: "sleep", method: "POST", path: "/tools/sleep/call", body: `{"seconds":0}`, headers: jsonBody(auth...), status: 200},
			{name: "whoami", method: "POST", path: "/tools/whoami/call", headers: auth, status: 200},
			{name: "math_add", method: "POST", path: "/tools/math_add/call", body: `{"numbers":[1,2]}`, headers: jsonBody(auth...), status: 200},
			{name: "countdown", method: "POST", path: "/tools/countdown/call", body: `{"steps":1}`, headers: jsonBody(auth...), status: 200},
			{name: "greet", method: "POST", path: "/tools/greet/call", body: `{"name":"Ada"}`, headers: jsonBody(auth...), status: 200},
			{name: "an unknown task", method: "GET", path: "/tasks/nope", headers: auth, status: 404},
			{name: "401: no token", method: "POST", path: "/tools/echo/call", body: `{"text":"hi"}`, headers: jsonBody(), status: 401, invalid: true},
			{name: "401: a wrong token", method: "POST", path: "/tools/echo/call", body: `{"text":"hi"}`,
				headers: jsonBody("Authorization", "Bearer wrong"), status: 401, invalid: true},
			{name: "422: arguments that break the schema", method: "POST", path: "/tools/echo/call", body: `{}`, headers: jsonBody(auth...), status: 422, invalid: true},
			{name: "413: a body over the limit", method: "POST", path: "/tools/echo/call", body: big, headers: jsonBody(auth...), status: 413},
		} {
			send(t, p, e)
		}
	})

	t.Run("tasks, limits, scopes", func(t *testing.T) {
		f := newFeatures(t)
		p := prism(t, tc, save(t, dir, "features.json", f.base+"/openapi.json", "X-Scopes", "reports"), f.base)
		require.True(t, f.reg.Remove("gone", ""), "removed after the document was read")
		scoped := append(jsonBody(auth...), "X-Scopes", "reports")
		for _, e := range []exchange{
			{name: "recursive arguments", method: "POST", path: "/tools/tree/call",
				body: `{"root":{"name":"a","children":[{"name":"b","children":[{"name":"c"}]},{"name":"d"}]}}`, headers: jsonBody(auth...), status: 200},
			{name: "recursive arguments that break the schema", method: "POST", path: "/tools/tree/call",
				body: `{"root":{"name":"a","children":[{"children":[]}]}}`, headers: jsonBody(auth...), status: 422, invalid: true},
			{name: "a rate limit: the first call", method: "POST", path: "/tools/limited/call", headers: auth, status: 200},
			{name: "429: the second", method: "POST", path: "/tools/limited/call", headers: auth, status: 429},
			{name: "a scoped tool with the scope", method: "POST", path: "/tools/report/call", headers: scoped, status: 200},
			{name: "403: without it", method: "POST", path: "/tools/report/call", headers: auth, status: 403},
			{name: "404: a documented tool that is gone", method: "POST", path: "/tools/gone/call", headers: auth, status: 404},
			{name: "400: a task-only tool without Prefer", method: "POST", path: "/tools/batch/call", headers: auth, status: 400},
			{name: "a task-capable tool that ends in time", method: "POST", path: "/tools/job/call", body: `{"ms":0}`, headers: jsonBody(auth...), status: 200},
		} {
			send(t, p, e)
		}

		// 503: a second call while the one slot is taken.
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			send(t, p, exchange{name: "the call holding the slot", method: "POST", path: "/tools/busy/call", headers: auth, status: 200})
		}()
		select {
		case <-f.running:
		case <-time.After(time.Minute):
			t.Fatal("the first call of busy never ran")
		}
		send(t, p, exchange{name: "503: the slot is taken", method: "POST", path: "/tools/busy/call", headers: auth, status: 503})
		close(f.release)
		wg.Wait()

		// 202 and the task routes.
		hdr, body := send(t, p, exchange{name: "202: a call that becomes a task", method: "POST", path: "/tools/job/call", body: `{"ms":60000}`,
			headers: jsonBody(append(auth, "Prefer", "respond-async, wait=0")...), status: 202})
		var task struct{ TaskID string }
		require.NoError(t, json.Unmarshal(body, &task), "%s", body)
		loc, err := url.Parse(hdr.Get("Location"))
		require.NoError(t, err)
		taskPath := (&url.URL{Path: "/tools/job/call"}).ResolveReference(loc).Path
		assert.Equal(t, "/tasks/"+task.TaskID, taskPath)
		send(t, p, exchange{name: "the task", method: "GET", path: taskPath, headers: auth, status: 200})
		send(t, p, exchange{name: "the task cancelled", method: "DELETE", path: taskPath, headers: auth, status: 200})
		send(t, p, exchange{name: "401: the task without a token", method: "GET", path: taskPath, status: 401, invalid: true})
	})
}

func TestGeneratedClientCallsEveryTool(t *testing.T) {
	tc := tools(t)
	ex := exampleServer(t)
	work := tc.workDir(t)
	doc := save(t, work, "openapi.json", ex+"/openapi.json")
	for _, f := range []string{"client.ts", "tsconfig.json", "package.json"} {
		copyFile(t, filepath.Join("client", f), filepath.Join(work, f))
	}
	out, stderr, code := tc.run(t, work, 5*time.Minute, tc.bin("openapi-typescript"), doc, "-o", "schema.d.ts")
	require.Zero(t, code, "openapi-typescript: %s %s", out, stderr)
	out, stderr, code = tc.run(t, work, 5*time.Minute, tc.bin("tsc"), "-p", ".")
	require.Zero(t, code, "tsc: the client does not type-check against the generated types: %s %s", out, stderr)
	out, stderr, code = tc.run(t, work, 2*time.Minute, "node", "out/client.js", ex, token)
	require.Zero(t, code, "client: %s %s", out, stderr)

	type call struct {
		Tool   string
		Status int
		Text   string
	}
	got := map[string]call{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var c call
		require.NoError(t, json.Unmarshal([]byte(line), &c), line)
		got[c.Tool] = c
	}
	var listed []struct{ Name string }
	require.NoError(t, json.Unmarshal(get(t, ex+"/tools"), &listed))
	require.NotEmpty(t, listed)
	for _, tool := range listed {
		c, ok := got[tool.Name]
		if assert.True(t, ok, "the client calls %s", tool.Name) {
			want := http.StatusOK
			if tool.Name == "divide" || tool.Name == "fail" {
				want = http.StatusInternalServerError // their tool errors
			}
			assert.Equal(t, want, c.Status, "%s: %s", tool.Name, c.Text)
		}
	}
	assert.Equal(t, call{"echo", 200, "hello"}, got["echo"])
	assert.Equal(t, call{"math_add", 200, "42"}, got["math_add"], "structuredContent, typed by the output schema")
	assert.Equal(t, call{"image_swatch", 200, "image/png"}, got["image_swatch"])
	assert.Equal(t, call{"echo (no text)", 422, "/text required"}, got["echo (no text)"])
}

func TestPerCallerDocumentsHideWhatTheCallerCannotCall(t *testing.T) {
	f := newFeatures(t)
	paths := func(headers ...string) []string {
		var doc struct{ Paths map[string]any }
		require.NoError(t, json.Unmarshal(get(t, f.base+"/openapi.json", headers...), &doc))
		var out []string
		for p := range doc.Paths {
			out = append(out, p)
		}
		slices.Sort(out)
		return out
	}
	without, with := paths(), paths("X-Scopes", "reports")
	assert.NotContains(t, without, "/tools/report/call", "a caller without the scope does not see the tool")
	assert.Contains(t, with, "/tools/report/call")
	assert.Len(t, with, len(without)+1, "and sees nothing else differently")
	assert.NotContains(t, string(get(t, f.base+"/openapi.yaml")), "/tools/report/call")
	assert.NotContains(t, string(get(t, f.base+"/llms.txt")), "[report]")
	assert.Contains(t, string(get(t, f.base+"/llms.txt", "X-Scopes", "reports")), "[report](tools/report)")
}
