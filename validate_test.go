package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingTool registers name with schema on reg; the returned counter
// counts the calls that reached the handler.
func countingTool(t *testing.T, reg *Registry, name, schema string, opts ToolOptions) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	tool := Tool{Name: name, Options: opts}
	if schema != "" {
		tool.InputSchema = json.RawMessage(schema)
	}
	require.NoError(t, reg.Add(tool, func(name string, args map[string]any) ([]Content, bool, string, error) {
		n.Add(1)
		return []Content{Text("ran")}, false, "", nil
	}))
	return &n
}

func newValidatingExecutor(reg *Registry, opts ...Option) *Executor {
	return New(reg, reg, append([]Option{WithAllowExecute(true), WithLogger(discardLogger())}, opts...)...)
}

func callJSON(x *Executor, name, args string) (*CallToolResult, error) {
	return x.Call(context.Background(), CallRequest{Name: name, Arguments: json.RawMessage(args)})
}

func TestValidationIsOnByDefaultAndStopsTheCall(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	x := newValidatingExecutor(reg)

	res, err := callJSON(x, "forecast", `{"days": "three"}`)
	assert.Nil(t, res)
	e, ok := AsError(err)
	require.True(t, ok, "an *Error: %v", err)
	assert.Equal(t, StageValidate, e.Stage)
	assert.Equal(t, CodeInvalidArguments, e.Code)
	assert.Equal(t, []ValidationFailure{
		{Path: "/days", Message: "got string, want integer", Keyword: "type"},
		{Path: "/location", Message: "missing property 'location'", Keyword: "required"},
	}, e.Failures)
	assert.Equal(t, "Invalid arguments: /days: got string, want integer; /location: missing property 'location'", e.Message)
	assert.Zero(t, ran.Load(), "the handler never runs")

	res, err = callJSON(x, "forecast", `{"location": "Oslo", "days": 2}`)
	require.NoError(t, err)
	assert.Equal(t, "ran", res.Text())
	assert.Equal(t, int64(1), ran.Load())
}

func TestValidationCanBeTurnedOffGlobally(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	x := newValidatingExecutor(reg, WithValidation(false))
	res, err := callJSON(x, "forecast", `{"days": "three"}`)
	require.NoError(t, err)
	assert.Equal(t, "ran", res.Text())
	assert.Equal(t, int64(1), ran.Load())
	assert.Zero(t, x.schemas.Compiles(), "nothing is compiled when validation is off")
}

func TestValidationCanBeTurnedOffPerTool(t *testing.T) {
	reg := NewRegistry()
	skipped := countingTool(t, reg, "lenient", forecastSchema, ToolOptions{SkipValidation: true})
	checked := countingTool(t, reg, "strict", forecastSchema, ToolOptions{})
	x := newValidatingExecutor(reg)

	_, err := callJSON(x, "lenient", `{}`)
	require.NoError(t, err)
	assert.Equal(t, int64(1), skipped.Load())

	_, err = callJSON(x, "strict", `{}`)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, StageValidate, e.Stage)
	assert.Zero(t, checked.Load())
}

func TestValidationOnIsTheSameAsTheDefault(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	x := newValidatingExecutor(reg, WithValidation(false), WithValidation(true))
	_, err := callJSON(x, "forecast", `{}`)
	require.Error(t, err)
	assert.Zero(t, ran.Load())
}

func TestToolWithoutSchemaAcceptsAnyArguments(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "free", "", ToolOptions{})
	x := newValidatingExecutor(reg)
	_, err := callJSON(x, "free", `{"anything": [1, {"goes": true}]}`)
	require.NoError(t, err)
	assert.Equal(t, int64(1), ran.Load())
	assert.Zero(t, x.schemas.Compiles())
}

func TestRESTValidationFailureIs422WithOneLinePerFailure(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "weather", `{
		"type": "object",
		"properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
		"required": ["city", "days"]
	}`, ToolOptions{})
	h := NewHandler(newValidatingExecutor(reg))

	r := do(t, h, http.MethodPost, "/tools/weather/call", `{"city": 42}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.status)
	assert.JSONEq(t, `{
		"content": [{"type": "text", "text": "/city: got number, want string\n/days: missing property 'days'"}],
		"structuredContent": {"errors": [
			{"path": "/city", "message": "got number, want string", "keyword": "type"},
			{"path": "/days", "message": "missing property 'days'", "keyword": "required"}
		]},
		"isError": true
	}`, r.body)
	assert.Zero(t, ran.Load())
}

func TestRESTValidationFailureAtTheRootReadsRoot(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "pick", `{"type": "object", "minProperties": 1}`, ToolOptions{})
	r := do(t, NewHandler(newValidatingExecutor(reg)), http.MethodPost, "/tools/pick/call", `{}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.status)
	var res CallToolResult
	require.NoError(t, json.Unmarshal([]byte(r.body), &res))
	assert.Equal(t, "(root): minProperties: got 0, want 1", res.Text())
}

func TestFailurePathsArePreciseJSONPointers(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "deep", `{
		"type": "object",
		"properties": {
			"address": {
				"type": "object",
				"properties": {"city": {"type": "string"}},
				"required": ["city", "zip/code", "a~b"],
				"additionalProperties": false
			},
			"stops": {"type": "array", "items": {"type": "integer"}}
		}
	}`, ToolOptions{})
	x := newValidatingExecutor(reg)
	_, err := callJSON(x, "deep", `{"address": {"city": "Oslo", "extra": 1}, "stops": [1, 2.5, 3]}`)
	e, ok := AsError(err)
	require.True(t, ok)
	paths := map[string]string{}
	for _, f := range e.Failures {
		paths[f.Path] = f.Keyword
	}
	assert.Equal(t, map[string]string{
		"/address/zip~1code": "required",
		"/address/a~0b":      "required",
		"/address/extra":     "additionalProperties",
		"/stops/1":           "type",
	}, paths)
}

func TestNumbersDecodedAsFloat64ValidateExactly(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "num", `{
		"type": "object",
		"properties": {
			"n": {"type": "integer"},
			"step": {"type": "number", "multipleOf": 0.1},
			"big": {"type": "integer", "minimum": 9007199254740990}
		}
	}`, ToolOptions{})
	x := newValidatingExecutor(reg)
	for args, valid := range map[string]bool{
		`{"n": 3}`:                  true,
		`{"n": 3.0}`:                true,
		`{"n": 3e2}`:                true,
		`{"n": -0}`:                 true,
		`{"n": 3.5}`:                false,
		`{"n": "3"}`:                false,
		`{"step": 0.3}`:             true,
		`{"step": 0.35}`:            false,
		`{"big": 9007199254740992}`: true,
	} {
		_, err := callJSON(x, "num", args)
		if valid {
			assert.NoError(t, err, args)
		} else {
			assert.Error(t, err, args)
		}
	}
}

func TestSchemaIsCompiledOnceAcrossManyCalls(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	x := newValidatingExecutor(reg)
	h := NewHandler(x)

	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, _ = callJSON(x, "forecast", fmt.Sprintf(`{"location": "c%d"}`, i))
		}(i)
	}
	wg.Wait()
	for i := 0; i < 50; i++ {
		_, _ = callJSON(x, "forecast", `{}`)
		do(t, h, http.MethodPost, "/tools/forecast/validate", `{"location": "x"}`)
		do(t, h, http.MethodPost, "/tools/forecast/call", `{"location": "x"}`)
	}
	assert.Equal(t, int64(1), x.schemas.Compiles(), "one compilation serves every call and validate request")
}

func TestChangedSchemaFromDynamicProviderIsRecompiled(t *testing.T) {
	var mu sync.Mutex
	schema := `{"type": "object", "required": ["a"]}`
	provider := ToolProviderFunc(func() []Tool {
		mu.Lock()
		defer mu.Unlock()
		return []Tool{{Name: "dyn", InputSchema: json.RawMessage(schema)}}
	})
	handler := func(string, map[string]any) ([]Content, bool, string, error) {
		return []Content{Text("ran")}, false, "", nil
	}
	x := New(provider, handler, WithAllowExecute(true), WithLogger(discardLogger()))

	_, err := callJSON(x, "dyn", `{"a": 1}`)
	require.NoError(t, err)
	_, err = callJSON(x, "dyn", `{"a": 1}`)
	require.NoError(t, err)
	assert.Equal(t, int64(1), x.schemas.Compiles())

	mu.Lock()
	schema = `{"type": "object", "required": ["b"]}`
	mu.Unlock()

	_, err = callJSON(x, "dyn", `{"a": 1}`)
	e, ok := AsError(err)
	require.True(t, ok, "the new schema applies: %v", err)
	assert.Equal(t, "/b", e.Failures[0].Path)
	_, err = callJSON(x, "dyn", `{"b": 1}`)
	require.NoError(t, err)
	assert.Equal(t, int64(2), x.schemas.Compiles(), "compiled again once, then reused")
	assert.Equal(t, 1, x.schemas.Len(), "the old entry was replaced")
}

func TestSchemaCacheStaysBoundedWhenToolsComeAndGo(t *testing.T) {
	var current atomic.Int64
	provider := ToolProviderFunc(func() []Tool {
		return []Tool{{Name: fmt.Sprintf("t%d", current.Load()), InputSchema: json.RawMessage(`{"type": "object"}`)}}
	})
	handler := func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil }
	x := New(provider, handler, WithAllowExecute(true), WithLogger(discardLogger()))
	for i := int64(0); i < 1000; i++ {
		current.Store(i)
		_, err := callJSON(x, fmt.Sprintf("t%d", i), `{}`)
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, x.schemas.Len(), 2*64, "entries of tools the provider dropped are swept")
}

func TestUncompilableSchemaFailsTheCallClearlyAndLogs(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "broken", `{"type": "objekt"}`, ToolOptions{})
	var logs bytes.Buffer
	x := New(reg, reg, WithAllowExecute(true), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))

	for i := 0; i < 3; i++ {
		res, err := callJSON(x, "broken", `{}`)
		assert.Nil(t, res)
		e, ok := AsError(err)
		require.True(t, ok)
		assert.Equal(t, StageValidate, e.Stage)
		assert.Equal(t, CodeInternal, e.Code, "the host's fault, not the caller's")
		assert.Contains(t, e.Message, `Invalid schema: the inputSchema of tool "broken" cannot be used`)
	}
	assert.Zero(t, ran.Load())
	assert.Equal(t, int64(1), x.schemas.Compiles(), "a broken schema is not recompiled on every call")
	assert.Contains(t, logs.String(), "tool schema cannot be compiled")

	r := do(t, NewHandler(x), http.MethodPost, "/tools/broken/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Contains(t, r.body, "Invalid schema")
}

func TestDraft07IsUsedWhenTheSchemaSaysSo(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "d7", `{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"properties": {"pair": {"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}}
	}`, ToolOptions{})
	countingTool(t, reg, "d2020", `{
		"type": "object",
		"properties": {"pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}}
	}`, ToolOptions{})
	x := newValidatingExecutor(reg)
	for _, tool := range []string{"d7", "d2020"} {
		_, err := callJSON(x, tool, `{"pair": [1, "a"]}`)
		assert.NoError(t, err, tool)
		_, err = callJSON(x, tool, `{"pair": ["a", 1]}`)
		e, ok := AsError(err)
		require.True(t, ok, tool)
		assert.Equal(t, "/pair/0", e.Failures[0].Path, tool)
	}
}

func TestFormatsAreAsserted(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "f", `{"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}`, ToolOptions{})
	x := newValidatingExecutor(reg)
	_, err := callJSON(x, "f", `{"when": "2025-06-18T10:00:00Z"}`)
	require.NoError(t, err)
	_, err = callJSON(x, "f", `{"when": "next tuesday"}`)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, "/when", e.Failures[0].Path)
	assert.Equal(t, "format", e.Failures[0].Keyword)
}

func TestValidationRunsInsideTheAuthHookAndOutsideUserInterceptors(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	var userSaw atomic.Int64
	user := func(next CallFunc) CallFunc {
		return func(ctx context.Context, c *Call) (*CallToolResult, error) {
			userSaw.Add(1)
			return next(ctx, c)
		}
	}
	var authSaw atomic.Int64
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			authSaw.Add(1)
			next.ServeHTTP(w, r)
		})
	}
	h := NewHandler(newValidatingExecutor(reg, WithInterceptors(user), WithAuthHook(auth)))
	r := do(t, h, http.MethodPost, "/tools/forecast/call", `{}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.status)
	assert.Equal(t, int64(1), authSaw.Load(), "the auth hook runs before validation")
	assert.Zero(t, userSaw.Load(), "user interceptors only see valid calls")
}

func TestValidationChecksArgumentsAnInputTransformReplaced(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "tags", `{
		"type": "object",
		"properties": {"tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
		"required": ["tags"]
	}`, ToolOptions{})
	// An interceptor outside validation (as the built-in input transform
	// is) that hands over Go values encoding/json never decodes into any.
	var tags []string
	transform := func(next CallFunc) CallFunc {
		return func(ctx context.Context, c *Call) (*CallToolResult, error) {
			c.Arguments = map[string]any{"tags": tags}
			return next(ctx, c)
		}
	}
	x := newValidatingExecutor(reg)
	stage := x.validationInterceptor(func(ctx context.Context, c *Call) (*CallToolResult, error) {
		ran.Add(1)
		return &CallToolResult{}, nil
	})
	tool, _ := reg.LookupTool("tags", "")
	tags = []string{"a", "b"}
	_, err := transform(stage)(context.Background(), &Call{Tool: tool})
	require.NoError(t, err)
	tags = []string{"a", "b", "c"}
	_, err = transform(stage)(context.Background(), &Call{Tool: tool})
	e, ok := AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, "/tags", e.Failures[0].Path)
	assert.Equal(t, "maxItems", e.Failures[0].Keyword)
	assert.Equal(t, int64(1), ran.Load())
}

func TestExecutorValidateInProcess(t *testing.T) {
	reg := NewRegistry()
	countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	x := newValidatingExecutor(reg, WithAllowExecute(false))
	ctx := context.Background()

	res, err := x.Validate(ctx, "forecast", "", json.RawMessage(`{"location": "Oslo"}`))
	require.NoError(t, err)
	assert.Equal(t, ValidateResult{Valid: true}, res)

	res, err = x.Validate(ctx, "forecast", "", json.RawMessage(`{"location": ""}`))
	require.NoError(t, err)
	assert.Equal(t, ValidateResult{Errors: []ValidationFailure{{Path: "/location", Message: "minLength: got 0, want 1", Keyword: "minLength"}}}, res)

	res, err = x.Validate(ctx, "forecast", "", nil)
	require.NoError(t, err)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "format", res.Errors[0].Keyword)

	_, err = x.Validate(ctx, "nope", "", json.RawMessage(`{}`))
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeNotFound, e.Code)

	_, err = x.Validate(ctx, "forecast", "9.9.9", json.RawMessage(`{}`))
	e, ok = AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeNotFound, e.Code)
}

func TestValidateUsesTheRequestedVersionsSchema(t *testing.T) {
	reg := NewRegistry()
	handler := func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil }
	reg.MustAdd(Tool{Name: "v", Version: "1.0.0", InputSchema: json.RawMessage(`{"required": ["old"]}`)}, handler)
	reg.MustAdd(Tool{Name: "v", Version: "2.0.0", InputSchema: json.RawMessage(`{"required": ["new"]}`)}, handler)
	x := newValidatingExecutor(reg)
	ctx := context.Background()

	res, err := x.Validate(ctx, "v", "1.0.0", json.RawMessage(`{"old": 1}`))
	require.NoError(t, err)
	assert.True(t, res.Valid)
	res, err = x.Validate(ctx, "v", "", json.RawMessage(`{"old": 1}`))
	require.NoError(t, err)
	assert.False(t, res.Valid, "the latest version wants new")

	_, err = x.Call(ctx, CallRequest{Name: "v", Version: "1.0.0", Arguments: json.RawMessage(`{"old": 1}`)})
	assert.NoError(t, err)
	_, err = x.Call(ctx, CallRequest{Name: "v", Arguments: json.RawMessage(`{"old": 1}`)})
	assert.Error(t, err)
}

func BenchmarkValidatedCall(b *testing.B) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "forecast", InputSchema: json.RawMessage(forecastSchema)},
		func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil })
	x := New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger()))
	args := json.RawMessage(`{"location": "Oslo", "days": 3, "units": "metric"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Call(ctx, CallRequest{Name: "forecast", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
	if n := x.schemas.Compiles(); n != 1 {
		b.Fatalf("compiled %d times", n)
	}
}

func TestValidationChecksWhatTheInputTransformsProduced(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "forecast", forecastSchema, ToolOptions{})
	fillDefault := func(_ context.Context, c *Call) (map[string]any, error) {
		if _, ok := c.Arguments["location"]; !ok {
			c.Arguments["location"] = "Oslo"
		}
		return c.Arguments, nil
	}
	x := newValidatingExecutor(reg, WithInputTransforms(fillDefault))
	_, err := callJSON(x, "forecast", `{"days": 2}`)
	require.NoError(t, err, "the transform's default makes the call valid")
	assert.Equal(t, int64(1), ran.Load())

	_, err = callJSON(x, "forecast", `{"days": 0}`)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, []ValidationFailure{{Path: "/days", Message: "minimum: got 0, want 1", Keyword: "minimum"}}, e.Failures)
}

func TestInvalidCallsAreNeverCached(t *testing.T) {
	reg := NewRegistry()
	ran := countingTool(t, reg, "forecast", forecastSchema, ToolOptions{Cache: true, CacheShared: true})
	x := newValidatingExecutor(reg)
	for i := 0; i < 3; i++ {
		_, err := callJSON(x, "forecast", `{"days": "x"}`)
		e, ok := AsError(err)
		require.True(t, ok)
		assert.Equal(t, StageValidate, e.Stage, "every invalid call fails validation, none is answered from the cache")
	}
	for i := 0; i < 3; i++ {
		_, err := callJSON(x, "forecast", `{"location": "Oslo"}`)
		require.NoError(t, err)
	}
	assert.Equal(t, int64(1), ran.Load(), "valid calls are cached behind validation")
}

func TestValidationFailureTokens(t *testing.T) {
	for path, want := range map[string][]string{
		"":              nil,
		"/location":     {"location"},
		"/address/city": {"address", "city"},
		"/a~1b/c~0d/0":  {"a/b", "c~d", "0"},
		"/~01":          {"~1"},
		"/":             {""},
		"nope":          nil,
	} {
		assert.Equal(t, want, ValidationFailure{Path: path}.Tokens(), path)
	}
}
