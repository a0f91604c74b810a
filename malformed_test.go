package toolexec_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/oxp"
)

// This file throws malformed input at every HTTP surface (REST call, REST
// validate, MCP JSON-RPC, the HandsAI call route, OXP call) over real
// loopback HTTP, and checks that each answer is in its surface's documented
// error shape (docs/rest-api.md, docs/mcp.md, docs/oxp.md): never a 5xx,
// never a stack trace, never a hang, no goroutine left behind, and the tool
// never run.

// hostileLimit is the body limit of the fixture, small so that bodies over
// it are cheap to send.
const hostileLimit = 64 << 10

// countSchema is the one tool's input: a bounded integer n, nothing else.
const countSchema = `{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":1000}},"required":["n"],"additionalProperties":false}`

// hostileFixture serves the surfaces of one Executor on loopback:
//
//	/api/...          REST (toolexec.NewHandler)
//	/mcp, /mcp/...    MCP JSON-RPC and the HandsAI routes
//	/oxp/...          OXP
//
// Its one tool, "ns/count" (OXP id ns.count), counts its runs and records
// the arguments of its last run.
type hostileFixture struct {
	srv     *httptest.Server
	client  *http.Client
	runs    atomic.Int64
	errLogs atomic.Int64 // records at error level: a panic anywhere, or an encoding failure

	mu       sync.Mutex
	lastArgs map[string]any
}

// newHostileFixture starts the fixture. Its cleanups close the server and
// the client's connections, then check that no goroutine is left behind
// (registered first, the leak check runs last).
func newHostileFixture(t *testing.T) *hostileFixture {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })

	f := &hostileFixture{}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ns/count", Description: "Counts its runs.", InputSchema: json.RawMessage(countSchema)},
		func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			f.runs.Add(1)
			f.mu.Lock()
			f.lastArgs = args
			f.mu.Unlock()
			return []toolexec.Content{toolexec.Text("counted")}, false, "", nil
		})
	logger := slog.New(levelCounter{min: slog.LevelError, n: &f.errLogs})
	x := toolexec.New(reg, reg,
		toolexec.WithAllowExecute(true),
		toolexec.WithMaxBodyBytes(hostileLimit),
		toolexec.WithLogger(logger),
	)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))
	m := mcp.NewHandler(x)
	mux.Handle("/mcp", m)
	mux.Handle("/mcp/", m)
	mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))

	f.srv = httptest.NewServer(mux)
	f.srv.Config.ErrorLog = nil
	tr := &http.Transport{}
	f.client = &http.Client{Transport: tr}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		f.srv.Close()
	})
	return f
}

// levelCounter is a slog.Handler that counts the records at or above min
// and drops everything.
type levelCounter struct {
	min slog.Level
	n   *atomic.Int64
}

func (h levelCounter) Enabled(context.Context, slog.Level) bool { return true }
func (h levelCounter) Handle(_ context.Context, r slog.Record) error {
	if r.Level >= h.min {
		h.n.Add(1)
	}
	return nil
}
func (h levelCounter) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h levelCounter) WithGroup(string) slog.Handler      { return h }

// probe is one hostile request and what its surface must answer.
type probe struct {
	name    string
	method  string // "" is POST
	path    string
	body    string
	header  []string // name/value pairs, set after the default Content-Type: application/json ("" removes it)
	chunked bool     // send the body without a Content-Length
	want    func(t *testing.T, r *reply)
}

type reply struct {
	status int
	header http.Header
	body   []byte
}

// perRequest bounds every request: a surface that hangs fails the test
// instead of stalling it.
const perRequest = 20 * time.Second

// send makes the probe's request and reads the whole answer.
func (f *hostileFixture) send(t *testing.T, p probe) *reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), perRequest)
	defer cancel()
	method := p.method
	if method == "" {
		method = http.MethodPost
	}
	var body io.Reader = strings.NewReader(p.body)
	if p.chunked {
		body = io.MultiReader(strings.NewReader(p.body)) // hides the length: sent chunked
	}
	if p.body == "" && !p.chunked {
		body = nil
	}
	req, err := http.NewRequestWithContext(ctx, method, f.srv.URL+p.path, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	require.Zero(t, len(p.header)%2)
	for i := 0; i < len(p.header); i += 2 {
		if p.header[i+1] == "" {
			req.Header.Del(p.header[i])
			continue
		}
		req.Header.Set(p.header[i], p.header[i+1])
	}
	resp, err := f.client.Do(req)
	require.NoError(t, err, "no answer (a hang or a dropped connection)")
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return &reply{status: resp.StatusCode, header: resp.Header, body: data}
}

// checkCommon holds for every answer of every surface to bad input.
func checkCommon(t *testing.T, p probe, r *reply) {
	t.Helper()
	assert.Less(t, r.status, 500, "a 5xx for bad input: %s", r.body)
	for _, leak := range []string{"goroutine ", ".go:", "runtime/", "panic("} {
		assert.NotContains(t, string(r.body), leak, "the answer looks like a stack trace")
	}
	if len(r.body) > 0 {
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
		assert.True(t, json.Valid(r.body), "the body is not JSON: %q", r.body)
		assert.Equal(t, byte('\n'), r.body[len(r.body)-1], "a JSON body ends with a newline")
	}
	assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"))
}

// runProbes sends each probe in a subtest and checks its answer, that the
// tool did not run, and that nothing was logged at error level.
func (f *hostileFixture) runProbes(t *testing.T, probes []probe) {
	t.Helper()
	for _, p := range probes {
		t.Run(p.name, func(t *testing.T) {
			runs, errs := f.runs.Load(), f.errLogs.Load()
			r := f.send(t, p)
			checkCommon(t, p, r)
			p.want(t, r)
			assert.Equal(t, runs, f.runs.Load(), "the tool ran on bad input: %s", r.body)
			assert.Equal(t, errs, f.errLogs.Load(), "something was logged at error level (a panic?)")
		})
	}
}

// ---- expected answers, per surface ----------------------------------------

func members(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &m), "not a JSON object: %s", body)
	return m
}

// restError: the REST surface's {"error": MESSAGE} and nothing else.
func restError(status int, msg string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, status, r.status, "%s", r.body)
		want, _ := json.Marshal(map[string]string{"error": msg})
		assert.JSONEq(t, string(want), string(r.body))
	}
}

// restMethod: 405 {"error":"Method not allowed"} with Allow.
func restMethod(allow string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		restError(http.StatusMethodNotAllowed, "Method not allowed")(t, r)
		assert.Equal(t, allow, r.header.Get("Allow"))
	}
}

// failurePaths decodes {"errors": [{path, message, keyword}]} and returns
// the paths, checking every failure is complete.
func failurePaths(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var v struct {
		Errors []toolexec.ValidationFailure `json:"errors"`
	}
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	paths := []string{}
	for _, f := range v.Errors {
		assert.NotEmpty(t, f.Message, "a failure without a message")
		assert.NotEmpty(t, f.Keyword, "a failure without a keyword")
		paths = append(paths, f.Path)
	}
	return paths
}

// isErrorResult checks a CallToolResult with isError true whose
// structuredContent lists failures at paths, one text line each.
func isErrorResult(t *testing.T, raw json.RawMessage, paths []string) {
	t.Helper()
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(raw, &res), "%s", raw)
	assert.True(t, res.IsError, "isError: %s", raw)
	require.Len(t, res.Content, 1, "%s", raw)
	assert.Equal(t, "text", res.Content[0].Type)
	assert.Len(t, strings.Split(res.Content[0].Text, "\n"), len(paths), "one line per failure: %q", res.Content[0].Text)
	assert.Equal(t, paths, failurePaths(t, res.StructuredContent))
}

// restInvalid: 422 with an isError result listing failures at paths.
func restInvalid(paths ...string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
		isErrorResult(t, r.body, paths)
	}
}

// validateResult: 200 {"valid": false, "errors": [...]} at paths.
func validateResult(paths ...string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		m := members(t, r.body)
		assert.JSONEq(t, "false", string(m["valid"]))
		assert.Equal(t, paths, failurePaths(t, r.body))
		assert.Len(t, m, 2, "only valid and errors: %s", r.body)
	}
}

// validateBadJSON: 400 with one failure, path "", keyword format.
func validateBadJSON() func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
		var v toolexec.ValidateResult
		require.NoError(t, json.Unmarshal(r.body, &v))
		assert.False(t, v.Valid)
		require.Len(t, v.Errors, 1)
		assert.Equal(t, "", v.Errors[0].Path)
		assert.Equal(t, "format", v.Errors[0].Keyword)
		assert.True(t, strings.HasPrefix(v.Errors[0].Message, "Invalid JSON: "), v.Errors[0].Message)
	}
}

// rpcMessage checks one JSON-RPC 2.0 response and returns its members.
func rpcMessage(t *testing.T, raw json.RawMessage, id string) map[string]json.RawMessage {
	t.Helper()
	m := members(t, raw)
	assert.JSONEq(t, `"2.0"`, string(m["jsonrpc"]))
	gotID, hasID := m["id"]
	require.True(t, hasID, "a JSON-RPC response always has an id: %s", raw)
	assert.Equal(t, id, string(gotID), "id echoed byte for byte")
	_, hasResult := m["result"]
	_, hasError := m["error"]
	assert.True(t, hasResult != hasError, "exactly one of result and error: %s", raw)
	return m
}

func rpcErrorCode(t *testing.T, m map[string]json.RawMessage) int {
	t.Helper()
	var e struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	require.NoError(t, json.Unmarshal(m["error"], &e), "not an error response")
	assert.NotEmpty(t, e.Message)
	return e.Code
}

// rpcError: a single JSON-RPC error response with code, under id.
func rpcError(status, code int, id string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, status, r.status, "%s", r.body)
		assert.Equal(t, code, rpcErrorCode(t, rpcMessage(t, r.body, id)), "%s", r.body)
	}
}

// rpcReject: the MCP endpoint's transport refusal: -32000, id null.
func rpcReject(status int, allow string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		rpcError(status, mcp.CodeRequestRejected, "null")(t, r)
		assert.Equal(t, allow, r.header.Get("Allow"))
	}
}

// rpcBatch: a batch answer, one error response per element with codes.
func rpcBatch(codes ...int) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		var many []json.RawMessage
		require.NoError(t, json.Unmarshal(r.body, &many), "%s", r.body)
		require.Len(t, many, len(codes))
		for i, raw := range many {
			assert.Equal(t, codes[i], rpcErrorCode(t, rpcMessage(t, raw, "null")))
		}
	}
}

// rpcInvalid: tools/call answered with an isError result listing
// validation failures at paths (MCP 2025-11-25).
func rpcInvalid(id string, paths ...string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		m := rpcMessage(t, r.body, id)
		isErrorResult(t, m["result"], paths)
	}
}

// handsAIError: HandsAI's envelope with an error of code; id "" means the
// envelope must carry no id.
func handsAIError(status, code int, id string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, status, r.status, "%s", r.body)
		m := members(t, r.body)
		assert.JSONEq(t, `"2.0"`, string(m["jsonrpc"]))
		gotID, hasID := m["id"]
		if id == "" {
			assert.False(t, hasID, "HandsAI echoes an id only when one was sent: %s", r.body)
		} else {
			assert.Equal(t, id, string(gotID))
		}
		_, hasResult := m["result"]
		assert.False(t, hasResult, "%s", r.body)
		assert.Equal(t, code, rpcErrorCode(t, m), "%s", r.body)
	}
}

// oxpError: OXP's server error {message, developer_message?} with status
// and the exact message.
func oxpError(status int, msg string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, status, r.status, "%s", r.body)
		assert.Equal(t, oxp.Version, r.header.Get(oxp.VersionHeader))
		m := members(t, r.body)
		var got string
		require.NoError(t, json.Unmarshal(m["message"], &got), "%s", r.body)
		assert.Equal(t, msg, got)
		for k := range m {
			assert.Contains(t, []string{"message", "developer_message"}, k, "an undocumented member: %s", r.body)
		}
	}
}

// oxpMethod: 405 {"message":"Method not allowed"} with Allow.
func oxpMethod(allow string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		oxpError(http.StatusMethodNotAllowed, "Method not allowed")(t, r)
		assert.Equal(t, allow, r.header.Get("Allow"))
	}
}

// oxpInvalid: 422 with parameter_errors naming params.
func oxpInvalid(params ...string) func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
		assert.Equal(t, oxp.Version, r.header.Get(oxp.VersionHeader))
		var v struct {
			Message         string            `json:"message"`
			ParameterErrors map[string]string `json:"parameter_errors"`
		}
		require.NoError(t, json.Unmarshal(r.body, &v))
		assert.NotEmpty(t, v.Message)
		var got []string
		for k, msg := range v.ParameterErrors {
			assert.NotEmpty(t, msg)
			got = append(got, k)
		}
		assert.ElementsMatch(t, params, got, "%s", r.body)
	}
}

// oxpNotObject: 422 {"message": "The input must be a JSON object"}.
func oxpNotObject() func(*testing.T, *reply) {
	return func(t *testing.T, r *reply) {
		require.Equal(t, http.StatusUnprocessableEntity, r.status, "%s", r.body)
		assert.JSONEq(t, `{"message":"The input must be a JSON object"}`, string(r.body))
	}
}

// ---- hostile payloads -------------------------------------------------------

var (
	deepArrays    = strings.Repeat("[", 10000) + strings.Repeat("]", 10000)                    // 10,000 levels: the most encoding/json takes
	deeperArray   = strings.Repeat("[", 10001) + strings.Repeat("]", 10001)                    // one past it
	deepObjects   = strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)          // 10,000 levels of objects
	bigInteger    = "1" + strings.Repeat("0", 99)                                              // 100 digits: fits a float64, inexactly
	hugeInteger   = "9" + strings.Repeat("9", 399)                                             // 400 digits: does not fit
	nonUTF8       = "\xff\xfe\xfd\x80"                                                         // no JSON, no UTF-8
	overLimit     = `{"n":1,"pad":"` + strings.Repeat("x", hostileLimit) + `"}`                // valid JSON, over the limit
	nestedTooDeep = func(prefix, suffix string) string { return prefix + deepArrays + suffix } // deep nesting inside an envelope: past the limit
)

// ---- the table --------------------------------------------------------------

func TestMalformedInputOnEverySurface(t *testing.T) {
	f := newHostileFixture(t)

	t.Run("rest call", func(t *testing.T) { f.runProbes(t, restCallProbes()) })
	t.Run("rest validate", func(t *testing.T) { f.runProbes(t, restValidateProbes()) })
	t.Run("mcp", func(t *testing.T) { f.runProbes(t, mcpProbes()) })
	t.Run("handsai", func(t *testing.T) { f.runProbes(t, handsAIProbes()) })
	t.Run("oxp", func(t *testing.T) { f.runProbes(t, oxpProbes()) })

	assert.Zero(t, f.runs.Load(), "no malformed request may run the tool")
}

func restCallProbes() []probe {
	const path = "/api/tools/ns/count/call"
	missingN := restInvalid("/n") // a body read as {}: the required n is missing
	tooLarge := restError(http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: the limit is %d bytes", hostileLimit))
	return []probe{
		// Bodies that are not one JSON object are read as {}, as the REST call route documents;
		// validation then refuses the call without its required n.
		{name: "empty body", path: path, body: "", want: missingN},
		{name: "white space only", path: path, body: " \n\t ", want: missingN},
		{name: "truncated object", path: path, body: `{"n":1`, want: missingN},
		{name: "truncated string", path: path, body: `{"n":1,"s":"abc`, want: missingN},
		{name: "object then garbage", path: path, body: `{"n":1} x`, want: missingN},
		{name: "two objects", path: path, body: `{"n":1}{"n":2}`, want: missingN},
		{name: "non-UTF-8 bytes", path: path, body: nonUTF8, want: missingN},
		{name: "UTF-8 byte order mark", path: path, body: "\xef\xbb\xbf{\"n\":1}", want: missingN},
		{name: "NUL bytes", path: path, body: "\x00\x00", want: missingN},
		{name: "non-UTF-8 inside a string", path: path, body: "{\"n\":\"\xff\"}", want: restInvalid("/n")},
		{name: "array", path: path, body: `[{"n":1}]`, want: missingN},
		{name: "string", path: path, body: `"{\"n\":1}"`, want: missingN},
		{name: "number", path: path, body: `1`, want: missingN},
		{name: "null", path: path, body: `null`, want: missingN},
		{name: "true", path: path, body: `true`, want: missingN},
		{name: "n of the wrong type", path: path, body: `{"n":"1"}`, want: restInvalid("/n")},
		{name: "n an object", path: path, body: `{"n":{"n":1}}`, want: restInvalid("/n")},
		{name: "unknown member", path: path, body: `{"n":1,"m":2}`, want: restInvalid("/m")},
		{name: "10,000 nested arrays", path: path, body: deepArrays, want: missingN},
		{name: "10,001 nested arrays", path: path, body: deeperArray, want: missingN},
		{name: "10,000 nested objects", path: path, body: deepObjects, want: restInvalid("/a", "/n")},
		{name: "nested past the limit inside n", path: path, body: nestedTooDeep(`{"n":`, `}`), want: missingN},
		{name: "nested objects in a member", path: path, body: `{"n":1,"a":` + strings.Repeat(`{"a":`, 9998) + "1" + strings.Repeat("}", 9998) + `}`, want: restInvalid("/a")},
		{name: "1e400", path: path, body: `{"n":1e400}`, want: restInvalid("/n")},
		{name: "-1e400", path: path, body: `{"n":-1e400}`, want: restInvalid("/n")},
		{name: "400-digit integer", path: path, body: `{"n":` + hugeInteger + `}`, want: restInvalid("/n")},
		{name: "100-digit integer over the maximum", path: path, body: `{"n":` + bigInteger + `}`, want: restInvalid("/n")},
		{name: "numbers too large to check are refused at their paths", path: path, body: `{"n":1,"x":[1e999,{"y":-1e-999999}]}`, want: restInvalid("/x/0", "/x/1/y")},
		{name: "duplicate key, the last wrong", path: path, body: `{"n":1,"n":"x"}`, want: restInvalid("/n")},
		{name: "duplicate key, the last extra", path: path, body: `{"n":1,"m":1,"m":2}`, want: restInvalid("/m")},
		{name: "over the limit", path: path, body: overLimit, want: tooLarge},
		{name: "over the limit, chunked", path: path, body: overLimit, chunked: true, want: tooLarge},
		{name: "over the limit, unknown tool", path: "/api/tools/nope/call", body: overLimit, want: restError(http.StatusNotFound, "Tool not found: nope")},
		// Content-Type is not looked at (docs/rest-api.md): the body decides.
		{name: "text/plain", path: path, body: `{"n":"x"}`, header: []string{"Content-Type", "text/plain"}, want: restInvalid("/n")},
		{name: "form", path: path, body: `n=1`, header: []string{"Content-Type", "application/x-www-form-urlencoded"}, want: missingN},
		{name: "multipart", path: path, body: "--b\r\n\r\n{\"n\":1}\r\n--b--", header: []string{"Content-Type", "multipart/form-data; boundary=b"}, want: missingN},
		{name: "no content type", path: path, body: `{"n":-1}`, header: []string{"Content-Type", ""}, want: restInvalid("/n")},
		{name: "GET", method: http.MethodGet, path: path, want: restMethod("POST")},
		{name: "PUT", method: http.MethodPut, path: path, body: `{"n":1}`, want: restMethod("POST")},
		{name: "DELETE", method: http.MethodDelete, path: path, want: restMethod("POST")},
		{name: "PATCH", method: http.MethodPatch, path: path, body: `{"n":1}`, want: restMethod("POST")},
		{name: "OPTIONS", method: http.MethodOptions, path: path, want: restMethod("POST")},
		{name: "POST without an action", path: "/api/tools/ns/count", body: `{"n":1}`, want: restMethod("GET, HEAD")},
		{name: "POST to an unknown action", path: "/api/tools/ns/count/run", body: `{"n":1}`, want: restMethod("GET, HEAD")},
		{name: "unknown tool", path: "/api/tools/nope/call", body: `{"n":1}`, want: restError(http.StatusNotFound, "Tool not found: nope")},
		{name: "name with the case changed", path: "/api/tools/NS/count/call", body: `{"n":1}`, want: restError(http.StatusNotFound, "Tool not found: NS/count")},
		{name: "name with a NUL", path: "/api/tools/ns%00count/call", body: `{"n":1}`, want: restError(http.StatusNotFound, "Tool not found: ns\x00count")},
		{name: "name with non-UTF-8", path: "/api/tools/ns%2F%FFcount/call", body: `{"n":1}`, want: restError(http.StatusNotFound, "Tool not found: ns/\ufffdcount")},
		{name: "name doubly encoded", path: "/api/tools/ns%252Fcount/call", body: `{"n":1}`, want: restError(http.StatusNotFound, "Tool not found: ns%2Fcount")},
		{name: "very long name", path: "/api/tools/" + strings.Repeat("a", 16<<10) + "/call", body: `{"n":1}`, want: restError(http.StatusNotFound, "Tool not found: "+strings.Repeat("a", 16<<10))},
	}
}

func restValidateProbes() []probe {
	const path = "/api/tools/ns/count/validate"
	return []probe{
		{name: "empty body", path: path, body: "", want: validateBadJSON()},
		{name: "white space only", path: path, body: " \n ", want: validateBadJSON()},
		{name: "truncated object", path: path, body: `{"n":1`, want: validateBadJSON()},
		{name: "object then garbage", path: path, body: `{"n":1} x`, want: validateBadJSON()},
		{name: "non-UTF-8 bytes", path: path, body: nonUTF8, want: validateBadJSON()},
		{name: "UTF-8 byte order mark", path: path, body: "\xef\xbb\xbf{\"n\":1}", want: validateBadJSON()},
		{name: "non-UTF-8 inside a string", path: path, body: "{\"n\":\"\xff\"}", want: validateResult("/n")},
		{name: "array", path: path, body: `[{"n":1}]`, want: validateResult("")},
		{name: "null", path: path, body: `null`, want: validateResult("")},
		{name: "n of the wrong type", path: path, body: `{"n":true}`, want: validateResult("/n")},
		{name: "10,000 nested arrays", path: path, body: deepArrays, want: validateResult("")},
		{name: "10,001 nested arrays", path: path, body: deeperArray, want: validateBadJSON()},
		{name: "10,000 nested objects", path: path, body: deepObjects, want: validateResult("/a", "/n")},
		{name: "1e400", path: path, body: `{"n":1e400}`, want: validateResult("/n")},
		{name: "400-digit integer", path: path, body: `{"n":` + hugeInteger + `}`, want: validateResult("/n")},
		{name: "100-digit integer over the maximum", path: path, body: `{"n":` + bigInteger + `}`, want: validateResult("/n")},
		{name: "duplicate key, the last wrong", path: path, body: `{"n":1,"n":"x"}`, want: validateResult("/n")},
		{name: "over the limit", path: path, body: overLimit, want: restError(http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: the limit is %d bytes", hostileLimit))},
		{name: "over the limit, chunked", path: path, body: overLimit, chunked: true, want: restError(http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body too large: the limit is %d bytes", hostileLimit))},
		{name: "unknown tool", path: "/api/tools/nope/validate", body: `{}`, want: restError(http.StatusNotFound, "Tool not found: nope")},
		{name: "text/plain", path: path, body: `{"n":"x"}`, header: []string{"Content-Type", "text/plain"}, want: validateResult("/n")},
		{name: "GET", method: http.MethodGet, path: path, want: restMethod("POST")},
		{name: "PUT", method: http.MethodPut, path: path, body: `{}`, want: restMethod("POST")},
		{name: "DELETE", method: http.MethodDelete, path: path, want: restMethod("POST")},
	}
}

// rpcCall is a tools/call request for the fixture's tool with args.
func rpcCall(args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ns/count","arguments":` + args + `}}`
}

func mcpProbes() []probe {
	const path = "/mcp"
	parse := rpcError(http.StatusBadRequest, mcp.CodeParseError, "null")
	invalid := rpcError(http.StatusBadRequest, mcp.CodeInvalidRequest, "null")
	invalidWithID := rpcError(http.StatusBadRequest, mcp.CodeInvalidRequest, "1")
	params := rpcError(http.StatusOK, mcp.CodeInvalidParams, "1")
	return []probe{
		{name: "empty body", path: path, body: "", want: parse},
		{name: "white space only", path: path, body: " \n ", want: parse},
		{name: "truncated", path: path, body: rpcCall(`{"n":1}`)[:40], want: parse},
		{name: "truncated by one byte", path: path, body: strings.TrimSuffix(rpcCall(`{"n":1}`), "}"), want: parse},
		{name: "non-UTF-8 bytes", path: path, body: nonUTF8, want: parse},
		{name: "UTF-8 byte order mark", path: path, body: "\xef\xbb\xbf" + rpcCall(`{"n":1}`), want: parse},
		{name: "two messages", path: path, body: rpcCall(`{"n":1}`) + rpcCall(`{"n":1}`), want: parse},
		{name: "non-UTF-8 in the tool name", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ns/count` + "\xff" + `"}}`, want: params},
		{name: "non-UTF-8 in the method", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call` + "\xff" + `"}`, want: rpcError(http.StatusOK, mcp.CodeMethodNotFound, "1")},
		{name: "non-UTF-8 in an argument", path: path, body: rpcCall("{\"n\":\"\xff\"}"), want: rpcInvalid("1", "/n")},
		{name: "10,000 nested arrays", path: path, body: deepArrays, want: rpcBatch(mcp.CodeInvalidRequest)},
		{name: "10,001 nested arrays", path: path, body: deeperArray, want: parse},
		{name: "10,000 nested objects", path: path, body: deepObjects, want: invalid},
		{name: "nested past the limit in the arguments", path: path, body: rpcCall(deepArrays), want: parse},
		{name: "nested objects in the arguments", path: path, body: rpcCall(`{"n":1,"a":` + strings.Repeat(`{"a":`, 9990) + "1" + strings.Repeat("}", 9990) + `}`), want: rpcInvalid("1", "/a")},
		{name: "1e400 argument", path: path, body: rpcCall(`{"n":1e400}`), want: rpcInvalid("1", "/n")},
		{name: "400-digit integer argument", path: path, body: rpcCall(`{"n":` + hugeInteger + `}`), want: rpcInvalid("1", "/n")},
		{name: "100-digit integer over the maximum", path: path, body: rpcCall(`{"n":` + bigInteger + `}`), want: rpcInvalid("1", "/n")},
		{name: "1e400 id is echoed", path: path, body: `{"jsonrpc":"2.0","id":1e400,"method":"tools/call","params":{"name":"ns/count","arguments":{"n":"x"}}}`, want: rpcInvalid("1e400", "/n")},
		{name: "100-digit id is echoed", path: path, body: `{"jsonrpc":"2.0","id":` + bigInteger + `,"method":"nope"}`, want: rpcError(http.StatusOK, mcp.CodeMethodNotFound, bigInteger)},
		{name: "duplicate argument, the last wrong", path: path, body: rpcCall(`{"n":1,"n":"x"}`), want: rpcInvalid("1", "/n")},
		{name: "duplicate method, the last unknown", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"nope"}`, want: rpcError(http.StatusOK, mcp.CodeMethodNotFound, "1")},
		{name: "duplicate name, the last unknown", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ns/count","name":"nope","arguments":{"n":1}}}`, want: params},
		// Every envelope member of the wrong type.
		{name: "not an object: number", path: path, body: `1`, want: invalid},
		{name: "not an object: string", path: path, body: `"x"`, want: invalid},
		{name: "not an object: null", path: path, body: `null`, want: invalid},
		{name: "not an object: true", path: path, body: `true`, want: invalid},
		{name: "jsonrpc missing", path: path, body: `{"id":1,"method":"ping"}`, want: invalidWithID},
		{name: "jsonrpc a number", path: path, body: `{"jsonrpc":2.0,"id":1,"method":"ping"}`, want: invalidWithID},
		{name: "jsonrpc 1.0", path: path, body: `{"jsonrpc":"1.0","id":1,"method":"ping"}`, want: invalidWithID},
		{name: "jsonrpc null", path: path, body: `{"jsonrpc":null,"id":1,"method":"ping"}`, want: invalidWithID},
		{name: "id an object", path: path, body: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, want: invalid},
		{name: "id an array", path: path, body: `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, want: invalid},
		{name: "id true", path: path, body: `{"jsonrpc":"2.0","id":true,"method":"ping"}`, want: invalid},
		{name: "id null", path: path, body: `{"jsonrpc":"2.0","id":null,"method":"ping"}`, want: invalid},
		{name: "method missing", path: path, body: `{"jsonrpc":"2.0","id":1}`, want: invalidWithID},
		{name: "method a number", path: path, body: `{"jsonrpc":"2.0","id":1,"method":1}`, want: invalidWithID},
		{name: "method null", path: path, body: `{"jsonrpc":"2.0","id":1,"method":null}`, want: invalidWithID},
		{name: "method an object", path: path, body: `{"jsonrpc":"2.0","id":1,"method":{"x":"tools/call"}}`, want: invalidWithID},
		{name: "method empty", path: path, body: `{"jsonrpc":"2.0","id":1,"method":""}`, want: rpcError(http.StatusOK, mcp.CodeMethodNotFound, "1")},
		{name: "a request with a result", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, want: invalidWithID},
		{name: "params a string", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"ns/count"}`, want: invalidWithID},
		{name: "params a number", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":1}`, want: invalidWithID},
		{name: "params true", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":true}`, want: invalidWithID},
		{name: "params an array", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["ns/count",{"n":1}]}`, want: params},
		{name: "params null", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`, want: params},
		{name: "name missing", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"n":1}}}`, want: params},
		{name: "name a number", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1,"arguments":{"n":1}}}`, want: params},
		{name: "name null", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":null,"arguments":{"n":1}}}`, want: params},
		{name: "name an object", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":{"name":"ns/count"},"arguments":{"n":1}}}`, want: params},
		{name: "name an array", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":["ns/count"],"arguments":{"n":1}}}`, want: params},
		{name: "name empty", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"","arguments":{"n":1}}}`, want: params},
		{name: "name unknown", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope","arguments":{"n":1}}}`, want: params},
		{name: "arguments an array", path: path, body: rpcCall(`[{"n":1}]`), want: params},
		{name: "arguments a string", path: path, body: rpcCall(`"{\"n\":1}"`), want: params},
		{name: "arguments a number", path: path, body: rpcCall(`1`), want: params},
		{name: "arguments true", path: path, body: rpcCall(`true`), want: params},
		{name: "arguments null", path: path, body: rpcCall(`null`), want: rpcInvalid("1", "/n")},
		{name: "arguments of the wrong type", path: path, body: rpcCall(`{"n":"1"}`), want: rpcInvalid("1", "/n")},
		{name: "cursor a number", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":1}}`, want: params},
		{name: "cursor forged", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"AAAA"}}`, want: params},
		{name: "protocolVersion a number", path: path, body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2025}}`, want: params},
		{name: "empty batch", path: path, body: `[]`, want: invalid},
		{name: "batch of junk", path: path, body: `[1,"x",null]`, want: rpcBatch(mcp.CodeInvalidRequest, mcp.CodeInvalidRequest, mcp.CodeInvalidRequest)},
		{name: "batch under 2025-06-18", path: path, body: `[` + rpcCall(`{"n":1}`) + `]`, header: []string{"MCP-Protocol-Version", "2025-06-18"}, want: invalid},
		{name: "unknown protocol version", path: path, body: rpcCall(`{"n":1}`), header: []string{"MCP-Protocol-Version", "1999-01-01"}, want: rpcError(http.StatusBadRequest, mcp.CodeUnsupportedProtocolVersion, "1")},
		{name: "over the limit", path: path, body: rpcCall(overLimit), want: rpcReject(http.StatusRequestEntityTooLarge, "")},
		{name: "over the limit, chunked", path: path, body: rpcCall(overLimit), chunked: true, want: rpcReject(http.StatusRequestEntityTooLarge, "")},
		{name: "text/plain", path: path, body: rpcCall(`{"n":1}`), header: []string{"Content-Type", "text/plain"}, want: rpcReject(http.StatusUnsupportedMediaType, "")},
		{name: "form", path: path, body: `n=1`, header: []string{"Content-Type", "application/x-www-form-urlencoded"}, want: rpcReject(http.StatusUnsupportedMediaType, "")},
		{name: "multipart", path: path, body: rpcCall(`{"n":1}`), header: []string{"Content-Type", "multipart/form-data; boundary=b"}, want: rpcReject(http.StatusUnsupportedMediaType, "")},
		{name: "malformed content type", path: path, body: rpcCall(`{"n":1}`), header: []string{"Content-Type", "application/json; charset"}, want: rpcReject(http.StatusUnsupportedMediaType, "")},
		{name: "accepts neither JSON nor SSE", path: path, body: rpcCall(`{"n":1}`), header: []string{"Accept", "text/html"}, want: rpcReject(http.StatusNotAcceptable, "")},
		{name: "GET", method: http.MethodGet, path: path, want: rpcReject(http.StatusMethodNotAllowed, "POST")},
		{name: "PUT", method: http.MethodPut, path: path, body: rpcCall(`{"n":1}`), want: rpcReject(http.StatusMethodNotAllowed, "POST")},
		{name: "DELETE", method: http.MethodDelete, path: path, want: rpcReject(http.StatusMethodNotAllowed, "POST")},
		{name: "OPTIONS", method: http.MethodOptions, path: path, want: rpcReject(http.StatusMethodNotAllowed, "POST")},
	}
}

// handsAICall is HandsAI's tools/call request with args.
func handsAICall(args string) string {
	return `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ns/count","arguments":` + args + `},"id":"h-1"}`
}

func handsAIProbes() []probe {
	const path = "/mcp/tools/call"
	const id = `"h-1"`
	parse := handsAIError(http.StatusOK, mcp.CodeParseError, "")
	missing := handsAIError(http.StatusOK, mcp.CodeInvalidParams, "")
	params := handsAIError(http.StatusOK, mcp.CodeInvalidParams, id)
	invalid := handsAIError(http.StatusOK, mcp.CodeInvalidRequest, "")
	invalidWithID := handsAIError(http.StatusOK, mcp.CodeInvalidRequest, id)
	reject := func(status int, allow string) func(*testing.T, *reply) {
		return func(t *testing.T, r *reply) {
			handsAIError(status, mcp.CodeRequestRejected, "")(t, r)
			assert.Equal(t, allow, r.header.Get("Allow"))
		}
	}
	return []probe{
		{name: "empty body", path: path, body: "", want: missing},
		{name: "null", path: path, body: `null`, want: missing},
		{name: "truncated", path: path, body: handsAICall(`{"n":1}`)[:50], want: parse},
		{name: "non-UTF-8 bytes", path: path, body: nonUTF8, want: parse},
		{name: "UTF-8 byte order mark", path: path, body: "\xef\xbb\xbf" + handsAICall(`{"n":1}`), want: parse},
		{name: "non-UTF-8 in the tool name", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ns/count` + "\xff" + `"},"id":"h-1"}`, want: params},
		{name: "non-UTF-8 in an argument", path: path, body: handsAICall("{\"n\":\"\xff\"}"), want: params},
		{name: "10,000 nested arrays", path: path, body: deepArrays, want: invalid},
		{name: "10,001 nested arrays", path: path, body: deeperArray, want: parse},
		{name: "nested past the limit in the arguments", path: path, body: handsAICall(deepArrays), want: parse},
		{name: "1e400 argument", path: path, body: handsAICall(`{"n":1e400}`), want: params},
		{name: "400-digit integer argument", path: path, body: handsAICall(`{"n":` + hugeInteger + `}`), want: params},
		{name: "100-digit integer over the maximum", path: path, body: handsAICall(`{"n":` + bigInteger + `}`), want: params},
		{name: "duplicate argument, the last wrong", path: path, body: handsAICall(`{"n":1,"n":"x"}`), want: params},
		{name: "duplicate method, the last unknown", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","method":"tools/list","params":{"name":"ns/count"},"id":"h-1"}`, want: handsAIError(http.StatusOK, mcp.CodeMethodNotFound, id)},
		{name: "array", path: path, body: `[` + handsAICall(`{"n":1}`) + `]`, want: invalid},
		{name: "number", path: path, body: `1`, want: invalid},
		{name: "string", path: path, body: `"x"`, want: invalid},
		{name: "jsonrpc a number", path: path, body: `{"jsonrpc":2,"method":"tools/call","params":{"name":"ns/count"},"id":"h-1"}`, want: invalidWithID},
		{name: "jsonrpc 1.0", path: path, body: `{"jsonrpc":"1.0","method":"tools/call","params":{"name":"ns/count"},"id":"h-1"}`, want: invalidWithID},
		{name: "id an object", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ns/count"},"id":{}}`, want: invalid},
		{name: "id true", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"ns/count"},"id":true}`, want: invalid},
		{name: "method a number", path: path, body: `{"jsonrpc":"2.0","method":1,"params":{"name":"ns/count"},"id":"h-1"}`, want: invalidWithID},
		{name: "method unknown", path: path, body: `{"jsonrpc":"2.0","method":"tools/list","params":{"name":"ns/count"},"id":"h-1"}`, want: handsAIError(http.StatusOK, mcp.CodeMethodNotFound, id)},
		{name: "params missing", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","id":"h-1"}`, want: params},
		{name: "params a string", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":"ns/count","id":"h-1"}`, want: params},
		{name: "params an array", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":["ns/count"],"id":"h-1"}`, want: params},
		{name: "name missing", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"n":1}},"id":"h-1"}`, want: params},
		{name: "name a number", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":1},"id":"h-1"}`, want: params},
		{name: "name an array", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":["ns/count"]},"id":"h-1"}`, want: params},
		{name: "name unknown", path: path, body: `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope","arguments":{"n":1}},"id":"h-1"}`, want: params},
		{name: "arguments an array", path: path, body: handsAICall(`[{"n":1}]`), want: params},
		{name: "arguments a string", path: path, body: handsAICall(`"x"`), want: params},
		{name: "arguments a number", path: path, body: handsAICall(`1`), want: params},
		{name: "arguments of the wrong type", path: path, body: handsAICall(`{"n":[1]}`), want: params},
		{name: "over the limit", path: path, body: handsAICall(overLimit), want: reject(http.StatusRequestEntityTooLarge, "")},
		{name: "over the limit, chunked", path: path, body: handsAICall(overLimit), chunked: true, want: reject(http.StatusRequestEntityTooLarge, "")},
		{name: "text/plain", path: path, body: handsAICall(`{"n":1}`), header: []string{"Content-Type", "text/plain"}, want: reject(http.StatusUnsupportedMediaType, "")},
		{name: "form", path: path, body: `n=1`, header: []string{"Content-Type", "application/x-www-form-urlencoded"}, want: reject(http.StatusUnsupportedMediaType, "")},
		{name: "GET", method: http.MethodGet, path: path, want: reject(http.StatusMethodNotAllowed, "POST")},
		{name: "PUT", method: http.MethodPut, path: path, body: handsAICall(`{"n":1}`), want: reject(http.StatusMethodNotAllowed, "POST")},
		{name: "DELETE", method: http.MethodDelete, path: path, want: reject(http.StatusMethodNotAllowed, "POST")},
		{name: "POST to the list", path: "/mcp/tools/list", body: handsAICall(`{"n":1}`), want: reject(http.StatusMethodNotAllowed, "GET")},
	}
}

// oxpCall is an OXP call request for the fixture's tool with input.
func oxpCall(input string) string {
	return `{"tool_id":"ns.count","call_id":"c-1","input":` + input + `}`
}

func oxpProbes() []probe {
	const path = "/oxp/tools/call"
	const malformed = "The request is malformed"
	bad := oxpError(http.StatusBadRequest, malformed)
	tooLarge := oxpError(http.StatusRequestEntityTooLarge, "The request is too large")
	return []probe{
		{name: "empty body", path: path, body: "", want: bad},
		{name: "white space only", path: path, body: " \n ", want: bad},
		{name: "truncated", path: path, body: oxpCall(`{"n":1}`)[:30], want: bad},
		{name: "truncated by one byte", path: path, body: strings.TrimSuffix(oxpCall(`{"n":1}`), "}"), want: bad},
		{name: "non-UTF-8 bytes", path: path, body: nonUTF8, want: bad},
		{name: "UTF-8 byte order mark", path: path, body: "\xef\xbb\xbf" + oxpCall(`{"n":1}`), want: bad},
		{name: "object then garbage", path: path, body: oxpCall(`{"n":1}`) + "x", want: bad},
		{name: "non-UTF-8 in the tool id", path: path, body: `{"tool_id":"ns.count` + "\xff" + `"}`, want: oxpError(http.StatusBadRequest, "Tool 'ns.count\ufffd' is not available")},
		{name: "non-UTF-8 in an input", path: path, body: oxpCall("{\"n\":\"\xff\"}"), want: oxpInvalid("n")},
		{name: "10,000 nested arrays", path: path, body: deepArrays, want: bad},
		{name: "10,001 nested arrays", path: path, body: deeperArray, want: bad},
		{name: "10,000 nested objects", path: path, body: deepObjects, want: bad},
		{name: "nested past the limit in the input", path: path, body: oxpCall(deepArrays), want: bad},
		{name: "nested objects in the input", path: path, body: oxpCall(`{"n":1,"a":` + strings.Repeat(`{"a":`, 9990) + "1" + strings.Repeat("}", 9990) + `}`), want: oxpInvalid("a")},
		{name: "1e400 input", path: path, body: oxpCall(`{"n":1e400}`), want: oxpInvalid("n")},
		{name: "400-digit integer input", path: path, body: oxpCall(`{"n":` + hugeInteger + `}`), want: oxpInvalid("n")},
		{name: "100-digit integer over the maximum", path: path, body: oxpCall(`{"n":` + bigInteger + `}`), want: oxpInvalid("n")},
		{name: "duplicate input member, the last wrong", path: path, body: oxpCall(`{"n":1,"n":"x"}`), want: oxpInvalid("n")},
		{name: "duplicate tool_id, the last unknown", path: path, body: `{"tool_id":"ns.count","tool_id":"nope.nope","input":{"n":1}}`, want: oxpError(http.StatusBadRequest, "Tool 'nope.nope' is not available")},
		// Every envelope member of the wrong type.
		{name: "array", path: path, body: `[` + oxpCall(`{"n":1}`) + `]`, want: bad},
		{name: "number", path: path, body: `1`, want: bad},
		{name: "string", path: path, body: `"x"`, want: bad},
		{name: "null", path: path, body: `null`, want: bad},
		{name: "tool_id missing", path: path, body: `{"input":{"n":1}}`, want: oxpError(http.StatusBadRequest, "The request names no tool")},
		{name: "tool_id null", path: path, body: `{"tool_id":null,"input":{"n":1}}`, want: oxpError(http.StatusBadRequest, "The request names no tool")},
		{name: "tool_id empty", path: path, body: `{"tool_id":"","input":{"n":1}}`, want: oxpError(http.StatusBadRequest, "The request names no tool")},
		{name: "tool_id a number", path: path, body: `{"tool_id":1,"input":{"n":1}}`, want: bad},
		{name: "tool_id an object", path: path, body: `{"tool_id":{"id":"ns.count"},"input":{"n":1}}`, want: bad},
		{name: "tool_id an array", path: path, body: `{"tool_id":["ns.count"],"input":{"n":1}}`, want: bad},
		{name: "tool_id unknown", path: path, body: `{"tool_id":"ns.nope","input":{"n":1}}`, want: oxpError(http.StatusBadRequest, "Tool 'ns.nope' is not available")},
		{name: "tool_id with an empty version", path: path, body: `{"tool_id":"ns.count@","input":{"n":1}}`, want: oxpError(http.StatusBadRequest, "Tool 'ns.count@' is not available")},
		{name: "call_id a number", path: path, body: `{"tool_id":"ns.count","call_id":1,"input":{"n":1}}`, want: bad},
		{name: "call_id 1e400", path: path, body: `{"tool_id":"ns.count","call_id":1e400,"input":{"n":1}}`, want: bad},
		{name: "trace_id an object", path: path, body: `{"tool_id":"ns.count","trace_id":{},"input":{"n":1}}`, want: bad},
		{name: "input an array", path: path, body: oxpCall(`[{"n":1}]`), want: oxpNotObject()},
		{name: "input a string", path: path, body: oxpCall(`"x"`), want: oxpNotObject()},
		{name: "input a number", path: path, body: oxpCall(`1`), want: oxpNotObject()},
		{name: "input true", path: path, body: oxpCall(`true`), want: oxpNotObject()},
		{name: "input null", path: path, body: oxpCall(`null`), want: oxpInvalid("n")},
		{name: "input of the wrong type", path: path, body: oxpCall(`{"n":"1"}`), want: oxpInvalid("n")},
		{name: "input and inputs", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"inputs":{"n":1}}`, want: bad},
		{name: "unknown member", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"tool":"x"}`, want: bad},
		{name: "context an array", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":[]}`, want: bad},
		{name: "context a string", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":"x"}`, want: bad},
		{name: "authorization an object", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"authorization":{}}}`, want: bad},
		{name: "authorization of numbers", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"authorization":[1]}}`, want: bad},
		{name: "authorization id a number", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"authorization":[{"id":1,"token":"t"}]}}`, want: bad},
		{name: "authorization without a token", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"authorization":[{"id":"g"}]}}`, want: bad},
		{name: "authorization listed twice", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"authorization":[{"id":"g","token":"a"},{"id":"g","token":"b"}]}}`, want: bad},
		{name: "secrets a string", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"secrets":"k"}}`, want: bad},
		{name: "secret value a number", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"secrets":[{"id":"k","value":1}]}}`, want: bad},
		{name: "user_id a number", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"user_id":1}}`, want: bad},
		{name: "user_info an array", path: path, body: `{"tool_id":"ns.count","input":{"n":1},"context":{"user_info":[]}}`, want: bad},
		{name: "request a string", path: path, body: `{"request":"x"}`, want: bad},
		{name: "request with a sibling", path: path, body: `{"request":{"tool_id":"ns.count","input":{"n":1}},"tool_id":"ns.count"}`, want: bad},
		{name: "unsupported OXP-Version", path: path, body: oxpCall(`{"n":1}`), header: []string{"OXP-Version", "2.0"}, want: oxpError(http.StatusBadRequest, `OXP version "2.0" is not supported`)},
		{name: "over the limit", path: path, body: oxpCall(overLimit), want: tooLarge},
		{name: "over the limit, chunked", path: path, body: oxpCall(overLimit), chunked: true, want: tooLarge},
		// Content-Type is not looked at (docs/oxp.md): the body decides.
		{name: "text/plain", path: path, body: oxpCall(`{"n":"x"}`), header: []string{"Content-Type", "text/plain"}, want: oxpInvalid("n")},
		{name: "form", path: path, body: `tool_id=ns.count`, header: []string{"Content-Type", "application/x-www-form-urlencoded"}, want: bad},
		{name: "GET", method: http.MethodGet, path: path, want: oxpMethod("POST")},
		{name: "PUT", method: http.MethodPut, path: path, body: oxpCall(`{"n":1}`), want: oxpMethod("POST")},
		{name: "DELETE", method: http.MethodDelete, path: path, want: oxpMethod("POST")},
		{name: "POST to the list", path: "/oxp/tools", body: oxpCall(`{"n":1}`), want: oxpMethod("GET")},
	}
}

// ---- transport-level breakage -------------------------------------------

// rawExchange writes request bytes on a fresh connection, optionally closes
// the writing side, and reads the answer if one comes; the deadline bounds
// it all.
func (f *hostileFixture) rawExchange(t *testing.T, request string, closeWrite bool) (*http.Response, []byte) {
	t.Helper()
	d := net.Dialer{Timeout: perRequest}
	conn, err := d.DialContext(t.Context(), "tcp", f.srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(perRequest)))
	_, err = io.WriteString(conn, request)
	require.NoError(t, err)
	if closeWrite {
		require.NoError(t, conn.(*net.TCPConn).CloseWrite())
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer before the deadline")
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// A client that declares more body than it sends and then stops sending
// gets a 400 in its surface's shape, and the tool does not run.
func TestBodyCutShortByTheClientIsRefusedOnEverySurface(t *testing.T) {
	f := newHostileFixture(t)
	for _, tc := range []struct {
		surface, path, sent string
		want                func(*testing.T, *reply)
	}{
		{"rest call", "/api/tools/ns/count/call", `{"n":1}`, restError(http.StatusBadRequest, "could not read request body")},
		{"rest validate", "/api/tools/ns/count/validate", `{"n":1}`, restError(http.StatusBadRequest, "could not read request body")},
		{"mcp", "/mcp", rpcCall(`{"n":1}`), rpcReject(http.StatusBadRequest, "")},
		{"handsai", "/mcp/tools/call", handsAICall(`{"n":1}`), handsAIError(http.StatusBadRequest, mcp.CodeRequestRejected, "")},
		{"oxp", "/oxp/tools/call", oxpCall(`{"n":1}`), oxpError(http.StatusBadRequest, "The request body could not be read")},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			runs := f.runs.Load()
			req := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
				tc.path, len(tc.sent)+100, tc.sent)
			resp, body := f.rawExchange(t, req, true)
			r := &reply{status: resp.StatusCode, header: resp.Header, body: body}
			checkCommon(t, probe{}, r)
			tc.want(t, r)
			assert.Equal(t, runs, f.runs.Load(), "the tool ran on a body cut short")
		})
	}
}

// A client that stalls in the middle of its body and then goes away leaves
// nothing behind: the handler's read fails, it returns, and the fixture's
// leak check finds no goroutine of it.
func TestClientGoingAwayMidBodyLeavesNothingBehind(t *testing.T) {
	f := newHostileFixture(t)
	for _, path := range []string{"/api/tools/ns/count/call", "/api/tools/ns/count/validate", "/mcp", "/mcp/tools/call", "/oxp/tools/call"} {
		t.Run(path, func(t *testing.T) {
			d := net.Dialer{Timeout: perRequest}
			conn, err := d.DialContext(t.Context(), "tcp", f.srv.Listener.Addr().String())
			require.NoError(t, err)
			_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"n\":", path)
			require.NoError(t, err)
			require.NoError(t, conn.Close())
		})
	}
	assert.Zero(t, f.runs.Load())
}

// A tool name with a malformed escape never reaches the handler: Go's
// server refuses the request line (docs/rest-api.md).
func TestMalformedEscapeInAToolNameIsRefusedBeforeTheHandler(t *testing.T) {
	f := newHostileFixture(t)
	for _, path := range []string{"/api/tools/ns%zzcount/call", "/api/tools/ns%2/call", "/api/tools/ns%zzcount/validate"} {
		t.Run(path, func(t *testing.T) {
			resp, _ := f.rawExchange(t, "POST "+path+" HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{\"n\":1}", false)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		})
	}
	assert.Zero(t, f.runs.Load())
}

// ---- duplicate keys ---------------------------------------------------------

// With duplicate keys the last one counts, on every surface, and the
// validator and the handler see the same value: a duplicate cannot smuggle
// a value past validation.
func TestDuplicateKeysTheLastCountsForValidatorAndHandlerAlike(t *testing.T) {
	f := newHostileFixture(t)
	const args = `{"n":"not a number","n":7}`
	for _, tc := range []struct {
		surface, path, body string
	}{
		{"rest", "/api/tools/ns/count/call", args},
		{"mcp", "/mcp", rpcCall(args)},
		{"handsai", "/mcp/tools/call", handsAICall(args)},
		{"oxp", "/oxp/tools/call", oxpCall(args)},
	} {
		t.Run(tc.surface, func(t *testing.T) {
			runs := f.runs.Load()
			r := f.send(t, probe{path: tc.path, body: tc.body})
			require.Equal(t, http.StatusOK, r.status, "%s", r.body)
			require.Equal(t, runs+1, f.runs.Load())
			f.mu.Lock()
			defer f.mu.Unlock()
			assert.Equal(t, map[string]any{"n": float64(7)}, f.lastArgs)
		})
	}
}

// The table's payloads are what their names claim: the sanity check behind
// the expectations above.
func TestHostilePayloadsAreWhatTheyClaim(t *testing.T) {
	assert.True(t, json.Valid([]byte(deepArrays)), "10,000 levels are the most encoding/json accepts")
	assert.False(t, json.Valid([]byte(deeperArray)))
	assert.True(t, json.Valid([]byte(deepObjects)))
	assert.Greater(t, len(overLimit), hostileLimit)
	assert.True(t, json.Valid([]byte(overLimit)))
	assert.Len(t, bigInteger, 100)
	assert.False(t, bytes.ContainsRune([]byte(nonUTF8), '{'))
}
