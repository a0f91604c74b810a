package oxp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// refuseAll is an auth hook that never lets a call through.
func refuseAll(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "bad token: secret detail", http.StatusForbidden)
	})
}

// probe is a tool that records that it ran and answers with fn.
type probe struct {
	ran atomic.Int32
	fn  func(ctx context.Context, args map[string]any) ([]toolexec.Content, bool, string, error)
}

func (p *probe) HandleCall(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	p.ran.Add(1)
	if p.fn == nil {
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	return p.fn(ctx, args)
}

// probeHandler serves one tool, Kit.Probe@1.0.0, run by p.
func probeHandler(t *testing.T, p *probe, tool toolexec.Tool, xopts ...toolexec.Option) http.Handler {
	t.Helper()
	if tool.Name == "" {
		tool.Name = "Kit.Probe"
	}
	if tool.Version == "" {
		tool.Version = "1.0.0"
	}
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(tool, p))
	return newHandler(t, reg, xopts)
}

func TestCallIDIsGeneratedWhenAbsentAndEchoedWhenSent(t *testing.T) {
	var seen []string
	p := &probe{fn: func(ctx context.Context, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		seen = append(seen, oxp.FromContext(ctx).CallID)
		return nil, false, "", nil
	}}
	h := probeHandler(t, p, toolexec.Tool{})

	first := callBody(t, call(h, `{"tool_id": "Kit.Probe"}`))
	second := callBody(t, call(h, `{"tool_id": "Kit.Probe", "call_id": ""}`))
	for _, m := range []map[string]any{first, second} {
		id, _ := m["call_id"].(string)
		u, err := uuid.Parse(id)
		require.NoError(t, err, "call_id %q is a UUID", id)
		assert.Equal(t, uuid.Version(4), u.Version())
	}
	assert.NotEqual(t, first["call_id"], second["call_id"])

	sent := callBody(t, call(h, `{"tool_id": "Kit.Probe", "call_id": "my-call-7"}`))
	assert.Equal(t, "my-call-7", sent["call_id"])
	assert.Equal(t, []string{first["call_id"].(string), second["call_id"].(string), "my-call-7"}, seen, "the handler sees the same call id")
}

func TestDurationIsTheMeasuredCallTime(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	p := &probe{fn: func(ctx context.Context, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		close(started)
		<-release
		return nil, false, "", nil
	}}
	h := probeHandler(t, p, toolexec.Tool{})
	done := make(chan map[string]any)
	go func() {
		w := call(h, `{"tool_id": "Kit.Probe"}`)
		var m map[string]any
		_ = jsonUnmarshal(w, &m)
		done <- m
	}()
	<-started
	select {
	case <-done:
		t.Fatal("answered while the tool was still running")
	default:
	}
	close(release)
	m := <-done
	d, ok := m["duration"].(float64)
	require.True(t, ok)
	assert.Greater(t, d, 0.0, "the call took a measurable time")
}

func TestTheHandlerSeesTheCallsContext(t *testing.T) {
	var got *oxp.CallContext
	var surface toolexec.Surface
	p := &probe{fn: func(ctx context.Context, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		got = oxp.FromContext(ctx)
		surface = toolexec.CallFromContext(ctx).Surface
		return nil, false, "", nil
	}}
	h := probeHandler(t, p, toolexec.Tool{})
	callBody(t, call(h, `{"tool_id": "Kit.Probe@1", "call_id": "c1", "trace_id": "trace_123",
		"context": {"user_id": "user_123", "authorization": [{"id": "google", "token": "ya29.tok"}],
		"secrets": [{"id": "API_KEY", "value": "s3cret"}], "user_info": {"email": "u@example.com"}, "tenant": "acme"}}`))
	require.NotNil(t, got)
	assert.Equal(t, toolexec.SurfaceOXP, surface)
	assert.Equal(t, "c1", got.CallID)
	assert.Equal(t, "trace_123", got.TraceID)
	assert.Equal(t, "Kit.Probe@1.0.0", got.ToolID)
	assert.Equal(t, "user_123", got.UserID)
	tok, ok := got.Token("google")
	assert.True(t, ok)
	assert.Equal(t, "ya29.tok", tok)
	secret, ok := got.Secret("API_KEY")
	assert.True(t, ok)
	assert.Equal(t, "s3cret", secret)
	_, ok = got.Secret("OTHER")
	assert.False(t, ok)
	assert.JSONEq(t, `{"email": "u@example.com"}`, string(got.UserInfo))
	require.Contains(t, got.Extra, "tenant", "context members OXP does not define still reach the handler")
	assert.JSONEq(t, `"acme"`, string(got.Extra["tenant"]))
}

func TestCallContextAccessorsAreNilSafe(t *testing.T) {
	c := oxp.FromContext(context.Background())
	assert.Nil(t, c)
	_, ok := c.Secret("X")
	assert.False(t, ok)
	_, ok = c.Token("google")
	assert.False(t, ok)

	ctx := oxp.NewContext(context.Background(), &oxp.CallContext{Secrets: map[string]string{"X": "v"}})
	v, ok := oxp.FromContext(ctx).Secret("X")
	assert.True(t, ok)
	assert.Equal(t, "v", v)
}

func TestValueForms(t *testing.T) {
	cases := []struct {
		title   string
		tool    toolexec.Tool
		content []toolexec.Content
		want    string
	}{
		{"no output schema: text stays a string", toolexec.Tool{}, []toolexec.Content{toolexec.Text("15")}, `"15"`},
		{"output schema and JSON text: the JSON value", toolexec.Tool{OutputSchema: []byte(`{"type":"object"}`)}, []toolexec.Content{toolexec.Text(` {"n": 1} `)}, `{"n": 1}`},
		{"output schema but text that is not JSON: the text", toolexec.Tool{OutputSchema: []byte(`{"type":"object"}`)}, []toolexec.Content{toolexec.Text("hello")}, `"hello"`},
		{"number schema and numeric text: the number", toolexec.Tool{OutputSchema: []byte(`{"type":"number"}`)}, []toolexec.Content{toolexec.Text("123")}, `123`},
		{"string schema: numeric text stays a string", toolexec.Tool{OutputSchema: []byte(`{"type":"string"}`)}, []toolexec.Content{toolexec.Text("123")}, `"123"`},
		{"string schema: JSON text stays a string", toolexec.Tool{OutputSchema: []byte(`{"type":"string"}`)}, []toolexec.Content{toolexec.Text(`"quoted"`)}, `"\"quoted\""`},
		{"a type list naming string: the text stays a string", toolexec.Tool{OutputSchema: []byte(`{"type":["number","string"]}`)}, []toolexec.Content{toolexec.Text("true")}, `"true"`},
		{"a type list without string: the JSON value", toolexec.Tool{OutputSchema: []byte(`{"type":["number","null"]}`)}, []toolexec.Content{toolexec.Text("null")}, `null`},
		{"a schema without a type: the JSON value", toolexec.Tool{OutputSchema: []byte(`{"description":"anything"}`)}, []toolexec.Content{toolexec.Text("[1, 2]")}, `[1, 2]`},
		{"several text blocks are joined", toolexec.Tool{}, []toolexec.Content{toolexec.Text("a"), toolexec.Text("b")}, `"a\nb"`},
		{"no content: null", toolexec.Tool{}, nil, `null`},
		{"non-text content: the blocks themselves", toolexec.Tool{}, []toolexec.Content{toolexec.Text("see"), &toolexec.ImageContent{Data: []byte{0, 0, 0}, MIMEType: "image/png"}},
			`[{"type": "text", "text": "see"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}]`},
	}
	for _, tc := range cases {
		content := tc.content
		p := &probe{fn: func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			return content, false, "", nil
		}}
		h := probeHandler(t, p, tc.tool)
		m := callBody(t, call(h, `{"tool_id": "Kit.Probe"}`))
		assert.Equal(t, true, m["success"], tc.title)
		assert.Contains(t, m, "value", tc.title)
		assert.JSONEq(t, tc.want, toJSON(t, m["value"]), tc.title)
	}
}

// withStructured is an interceptor that gives every result structured
// output, as typed tools will.
func withStructured(v any) toolexec.Interceptor {
	return func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			res, err := next(ctx, call)
			if err == nil {
				res.StructuredContent = v
			}
			return res, err
		}
	}
}

func TestValueIsTheStructuredOutputWhenThereIsOne(t *testing.T) {
	h := probeHandler(t, &probe{}, toolexec.Tool{}, toolexec.WithInterceptors(withStructured(map[string]any{"timestamp": "2023-10-05T12:00:00Z"})))
	m := callBody(t, call(h, `{"tool_id": "Kit.Probe"}`))
	assert.Equal(t, map[string]any{"timestamp": "2023-10-05T12:00:00Z"}, m["value"])
}

func TestAResultThatCannotBeEncodedIsAToolError(t *testing.T) {
	h := probeHandler(t, &probe{}, toolexec.Tool{}, toolexec.WithInterceptors(withStructured(map[string]any{"c": make(chan int)})))
	m := callBody(t, call(h, `{"tool_id": "Kit.Probe"}`))
	assert.Equal(t, false, m["success"])
	assert.NotContains(t, m, "value")
	assert.Equal(t, "The tool's result could not be encoded", m["error"].(map[string]any)["message"])
}

func TestToolFailuresAre200WithSuccessFalse(t *testing.T) {
	cases := []struct {
		title string
		fn    func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error)
		want  string
	}{
		{"plain error: its message", func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", errors.New("disk full")
		}, `{"message": "disk full"}`},
		{"wrapped ToolError: all its fields", func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", errors.Join(errors.New("outer"), &toolexec.ToolError{Message: "busy", DeveloperMessage: "lock held", CanRetry: true, RetryAfter: 1500*time.Microsecond + time.Second})
		}, `{"message": "busy", "developer_message": "lock held", "can_retry": true, "retry_after_ms": 1002}`},
		{"ToolError without retry: no retry fields", func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", &toolexec.ToolError{Message: "no such city"}
		}, `{"message": "no such city"}`},
		{"isError result: its text", func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("city not found")}, true, "", nil
		}, `{"message": "city not found"}`},
		{"isError result without text", func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, true, "", nil
		}, `{"message": "The tool reported an error"}`},
		{"panic: a generic message, no panic text by default, no stack", func(context.Context, map[string]any) ([]toolexec.Content, bool, string, error) {
			panic("nil map in lookupCity")
		}, `{"message": "The tool failed unexpectedly"}`},
	}
	for _, tc := range cases {
		p := &probe{fn: tc.fn}
		h := probeHandler(t, p, toolexec.Tool{})
		w := call(h, `{"tool_id": "Kit.Probe", "call_id": "c"}`)
		m := callBody(t, w)
		assert.Equal(t, int32(1), p.ran.Load(), tc.title)
		assert.Equal(t, false, m["success"], tc.title)
		assert.NotContains(t, m, "value", tc.title)
		assert.JSONEq(t, tc.want, toJSON(t, m["error"]), tc.title)
		assert.NotContains(t, w.Body.String(), "goroutine", tc.title)
	}
}

// failWith is an interceptor that fails every call with err.
func failWith(err error) toolexec.Interceptor {
	return func(toolexec.CallFunc) toolexec.CallFunc {
		return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) { return nil, err }
	}
}

func TestPipelineFailuresAfterAcceptanceAre200WithSuccessFalse(t *testing.T) {
	cases := []struct {
		title string
		err   error
		want  string
	}{
		{"concurrency limit: retry, and when", &toolexec.Error{Stage: toolexec.StageLimit, Code: toolexec.CodeUnavailable, Message: "Too many calls in flight", RetryAfter: 250 * time.Millisecond},
			`{"message": "Too many calls in flight", "can_retry": true, "retry_after_ms": 250}`},
		{"concurrency limit without a delay", &toolexec.Error{Stage: toolexec.StageLimit, Code: toolexec.CodeUnavailable, Message: "Too many calls in flight"},
			`{"message": "Too many calls in flight", "can_retry": true}`},
		{"timeout", &toolexec.Error{Stage: toolexec.StageTimeout, Code: toolexec.CodeTimeout, Message: "The tool did not finish within 5s"},
			`{"message": "The tool did not finish within 5s"}`},
		{"an interceptor's own error", errors.New("cache unreachable"), `{"message": "cache unreachable"}`},
	}
	for _, tc := range cases {
		p := &probe{}
		h := probeHandler(t, p, toolexec.Tool{}, toolexec.WithInterceptors(failWith(tc.err)))
		m := callBody(t, call(h, `{"tool_id": "Kit.Probe"}`))
		assert.Equal(t, false, m["success"], tc.title)
		assert.JSONEq(t, tc.want, toJSON(t, m["error"]), tc.title)
		assert.Zero(t, p.ran.Load(), tc.title)
	}
}

func TestValidationFailuresMapToParameterErrors(t *testing.T) {
	// The failures are injected, so that the mapping to parameter_errors is
	// checked case by case whatever the validator's wording; the OXP examples' test
	// (seed_test.go) goes through real schema validation.
	cases := []struct {
		title    string
		failures []toolexec.ValidationFailure
		want     string
	}{
		{"missing property points at it", []toolexec.ValidationFailure{{Path: "/b", Message: "missing property", Keyword: "required"}},
			`{"message": "The input parameters are invalid", "parameter_errors": {"b": "missing property"}}`},
		{"nested failures keep their path under the parameter", []toolexec.ValidationFailure{
			{Path: "/address/city", Message: "expected string", Keyword: "type"},
			{Path: "/address/zip", Message: "too short", Keyword: "minLength"},
			{Path: "/tags/0", Message: "expected string", Keyword: "type"},
		}, `{"message": "The input parameters are invalid", "parameter_errors": {"address": "/city: expected string; /zip: too short", "tags": "/0: expected string"}}`},
		{"escaped pointer tokens are unescaped", []toolexec.ValidationFailure{{Path: "/a~1b~0c", Message: "bad"}},
			`{"message": "The input parameters are invalid", "parameter_errors": {"a/b~c": "bad"}}`},
		{"root failures go to message", []toolexec.ValidationFailure{
			{Path: "", Message: "additional property 'c' is not allowed", Keyword: "additionalProperties"},
			{Path: "/a", Message: "expected number", Keyword: "type"},
		}, `{"message": "The input parameters are invalid: additional property 'c' is not allowed", "parameter_errors": {"a": "expected number"}}`},
		{"only root failures: no parameter_errors", []toolexec.ValidationFailure{{Path: "", Message: "expected object", Keyword: "type"}},
			`{"message": "The input parameters are invalid: expected object"}`},
	}
	for _, tc := range cases {
		p := &probe{}
		verr := &toolexec.Error{Stage: toolexec.StageValidate, Code: toolexec.CodeInvalidArguments, Message: "invalid", Failures: tc.failures}
		h := probeHandler(t, p, toolexec.Tool{}, toolexec.WithInterceptors(failWith(verr)))
		w := call(h, `{"tool_id": "Kit.Probe", "input": {}}`)
		require.Equal(t, http.StatusUnprocessableEntity, w.Code, tc.title)
		jsonEq(t, tc.want, w)
		assert.Zero(t, p.ran.Load())
	}
}

func TestInputThatIsNotAnObjectIs422(t *testing.T) {
	p := &probe{}
	h := probeHandler(t, p, toolexec.Tool{})
	for _, input := range []string{`[1, 2]`, `"a=1"`, `42`, `true`} {
		w := call(h, `{"tool_id": "Kit.Probe", "input": `+input+`}`)
		require.Equal(t, http.StatusUnprocessableEntity, w.Code, input)
		jsonEq(t, `{"message": "The input must be a JSON object"}`, w)
	}
	assert.Zero(t, p.ran.Load())
}

func TestInputAndItsAliasReachTheTool(t *testing.T) {
	var got []map[string]any
	p := &probe{fn: func(_ context.Context, args map[string]any) ([]toolexec.Content, bool, string, error) {
		got = append(got, args)
		return nil, false, "", nil
	}}
	h := probeHandler(t, p, toolexec.Tool{})
	for _, body := range []string{
		`{"tool_id": "Kit.Probe", "input": {"q": "x"}}`,
		`{"tool_id": "Kit.Probe", "inputs": {"q": "x"}}`,
		`{"tool_id": "Kit.Probe", "input": null}`,
		`{"tool_id": "Kit.Probe"}`,
	} {
		callBody(t, call(h, body))
	}
	assert.Equal(t, []map[string]any{{"q": "x"}, {"q": "x"}, {}, {}}, got)
}

func TestMalformedRequestsAre400(t *testing.T) {
	cases := map[string]string{
		``:                                       "the request body is empty; expected a JSON object",
		`   `:                                    "the request body is empty; expected a JSON object",
		`not json`:                               "the request body must be a JSON object",
		`[{"tool_id": "Kit.Probe"}]`:             "the request body must be a JSON object",
		`null`:                                   "the request body must be a JSON object",
		`{"tool_id": "Kit.Probe"`:                "the request body is not valid JSON: unexpected end of JSON input",
		`{"tool_id": "Kit.Probe"} {}`:            "the request body is not valid JSON: invalid character '{' after top-level value",
		`{}`:                                     "tool_id is required: a tool id such as Toolkit.Tool@1.0.0",
		`{"tool_id": ""}`:                        "tool_id is required: a tool id such as Toolkit.Tool@1.0.0",
		`{"tool_id": null}`:                      "tool_id is required: a tool id such as Toolkit.Tool@1.0.0",
		`{"tool_id": 7}`:                         "tool_id must be a string",
		`{"tool_id": "Kit.Probe", "call_id": 7}`: "call_id must be a string",
		`{"tool_id": "Kit.Probe", "trace_id": {}}`:                                                                       "trace_id must be a string",
		`{"tool_id": "Kit.Probe", "tool": "x", "args": 1}`:                                                               "unknown member(s): args, tool",
		`{"tool_id": "Kit.Probe", "input": {}, "inputs": {}}`:                                                            `input and inputs are two spellings of one member; send only "input"`,
		`{"tool_id": "Kit.Probe", "context": []}`:                                                                        "context must be a JSON object",
		`{"tool_id": "Kit.Probe", "context": {"user_id": 5}}`:                                                            "context.user_id must be a string",
		`{"tool_id": "Kit.Probe", "context": {"user_info": "me"}}`:                                                       "context.user_info must be a JSON object",
		`{"tool_id": "Kit.Probe", "context": {"secrets": {}}}`:                                                           "context.secrets must be an array",
		`{"tool_id": "Kit.Probe", "context": {"secrets": [1]}}`:                                                          "context.secrets[0] must be a JSON object",
		`{"tool_id": "Kit.Probe", "context": {"secrets": [{"value": "v"}]}}`:                                             "context.secrets[0].id is required",
		`{"tool_id": "Kit.Probe", "context": {"secrets": [{"id": "K"}]}}`:                                                "context.secrets[0].value is required",
		`{"tool_id": "Kit.Probe", "context": {"secrets": [{"id": "K", "value": 1}]}}`:                                    "context.secrets[0].value must be a string",
		`{"tool_id": "Kit.Probe", "context": {"secrets": [{"id": "K", "value": "v", "x": 1}]}}`:                          "unknown member(s): context.secrets[0].x",
		`{"tool_id": "Kit.Probe", "context": {"authorization": [{"id": "g", "token": "a"}, {"id": "g", "token": "b"}]}}`: `context.authorization lists id "g" twice`,
		`{"tool_id": "Kit.Probe", "context": {"authorization": [{"id": "g"}]}}`:                                          "context.authorization[0].token is required",
	}
	p := &probe{}
	h := probeHandler(t, p, toolexec.Tool{})
	for body, dev := range cases {
		w := call(h, body)
		require.Equal(t, http.StatusBadRequest, w.Code, body)
		assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
		var got map[string]any
		require.NoError(t, jsonUnmarshal(w, &got), body)
		assert.Equal(t, dev, got["developer_message"], body)
		assert.NotEmpty(t, got["message"], body)
	}
	assert.Zero(t, p.ran.Load())
}

func TestExecutionDisabledIs400ForKnownAndUnknownTools(t *testing.T) {
	reg := seedRegistry(t)
	h := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithLogger(discardLogger())))
	for _, id := range []string{"Calculator.Add@1.0.0", "Calculator.Add@9.0.0", "Nope.Nothing"} {
		w := call(h, toJSON(t, map[string]any{"tool_id": id, "input": map[string]any{"a": 1, "b": 2}}))
		require.Equal(t, http.StatusBadRequest, w.Code, id)
		jsonEq(t, `{"message": "Tool execution is disabled on this server",
			"developer_message": "the Executor was created without toolexec.WithAllowExecute(true); discovery still works"}`, w)
	}
}

func TestAuthHookRejectionIs400WithAServerErrorResponse(t *testing.T) {
	logs := &logBuffer{}
	p := &probe{}
	h := probeHandler(t, p, toolexec.Tool{}, toolexec.WithAuthHook(refuseAll), toolexec.WithLogger(logs.Logger()))
	const want = `{"message": "Authentication is required",
		"developer_message": "the server did not accept the request's credentials; send valid ones (such as Authorization: Bearer <token>)"}`
	w := call(h, `{"tool_id": "Kit.Probe"}`)
	require.Equal(t, http.StatusBadRequest, w.Code, "OXP: invalid credentials are a Server Error, 400")
	jsonEq(t, want, w)
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	assert.NotContains(t, w.Body.String(), "secret detail")
	w = call(h, `{"request": {"tool_id": "Kit.Probe"}}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "Authentication is required")
	assert.Zero(t, p.ran.Load())
	assert.Contains(t, logs.String(), "bad token: secret detail", "the reason is logged, never sent")
	assert.Contains(t, logs.String(), "surface=oxp")
}

type userKey struct{}

func TestAuthHookIdentityAndTheCallContextBothReachTheTool(t *testing.T) {
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer good" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "alice")))
		})
	}
	var who, callID string
	p := &probe{fn: func(ctx context.Context, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		who, _ = ctx.Value(userKey{}).(string)
		callID = oxp.FromContext(ctx).CallID
		return nil, false, "", nil
	}}
	h := probeHandler(t, p, toolexec.Tool{}, toolexec.WithAuthHook(hook))
	callBody(t, call(h, `{"tool_id": "Kit.Probe", "call_id": "c9"}`, "Authorization", "Bearer good"))
	assert.Equal(t, "alice", who)
	assert.Equal(t, "c9", callID)
}

func TestABodyOverTheLimitIs413AndNeverRuns(t *testing.T) {
	p := &probe{}
	h := probeHandler(t, p, toolexec.Tool{}, toolexec.WithMaxBodyBytes(64))
	w := call(h, `{"tool_id": "Kit.Probe", "input": {"text": "`+strings.Repeat("x", 100)+`"}}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	jsonEq(t, `{"message": "The request is too large", "developer_message": "Request body too large: the limit is 64 bytes"}`, w)
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	assert.Zero(t, p.ran.Load())
}
