package toolexec

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// POST /tools/{name}/validate checks arguments without running the tool; one test
// each, over HTTP.

const forecastSchema = `{
	"type": "object",
	"properties": {
		"location": {"type": "string", "minLength": 1},
		"days": {"type": "integer", "minimum": 1, "maximum": 14},
		"units": {"enum": ["metric", "imperial"]}
	},
	"required": ["location"]
}`

// validateFixture serves a tool with a schema, one without, and one whose
// schema cannot compile; every handler counts its calls, and so does the
// auth hook.
type validateFixture struct {
	reg       *Registry
	calls     atomic.Int64
	authCalls atomic.Int64
}

func newValidateFixture(t *testing.T) *validateFixture {
	t.Helper()
	f := &validateFixture{reg: NewRegistry()}
	run := func(name string, args map[string]any) ([]Content, bool, string, error) {
		f.calls.Add(1)
		return []Content{Text("ran")}, false, "", nil
	}
	f.reg.MustAdd(Tool{Name: "forecast", InputSchema: json.RawMessage(forecastSchema)}, run)
	f.reg.MustAdd(Tool{Name: "free"}, run)
	f.reg.MustAdd(Tool{Name: "broken", InputSchema: json.RawMessage(`{"type": "objekt"}`)}, run)
	f.reg.MustAdd(Tool{Name: "geo/lookup", InputSchema: json.RawMessage(forecastSchema)}, run)
	return f
}

// handler mounts the REST surface with execution allowed and an auth hook
// that refuses everything, so any request that reached the pipeline would
// show in authCalls.
func (f *validateFixture) handler(opts ...Option) http.Handler {
	refuse := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			f.authCalls.Add(1)
			w.WriteHeader(http.StatusForbidden)
		})
	}
	opts = append([]Option{WithAllowExecute(true), WithAuthHook(refuse), WithLogger(discardLogger())}, opts...)
	return NewHandler(New(f.reg, f.reg, opts...))
}

func decodeValidateResult(t *testing.T, body string) ValidateResult {
	t.Helper()
	var res ValidateResult
	require.NoError(t, json.Unmarshal([]byte(body), &res), "body: %s", body)
	return res
}

func TestValidateValidInputAnswers200ValidTrue(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", `{"location": "Lisbon", "days": 3}`)
	assert.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"valid": true}`, r.body)
	assert.Equal(t, "application/json", r.header.Get("Content-Type"))
}

func TestValidateMissingRequiredFieldNamesItsPointerAndKeyword(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", `{"days": 3}`)
	require.Equal(t, http.StatusOK, r.status)
	res := decodeValidateResult(t, r.body)
	assert.False(t, res.Valid)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, "/location", res.Errors[0].Path)
	assert.Equal(t, "required", res.Errors[0].Keyword)
	assert.Contains(t, res.Errors[0].Message, "location")
}

func TestValidateWrongTypeNamesTheFieldAndTypeKeyword(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", `{"location": "Lisbon", "days": "three"}`)
	require.Equal(t, http.StatusOK, r.status)
	res := decodeValidateResult(t, r.body)
	assert.False(t, res.Valid)
	require.Len(t, res.Errors, 1)
	assert.Equal(t, ValidationFailure{Path: "/days", Keyword: "type", Message: "got string, want integer"}, res.Errors[0])
}

func TestValidateReportsEveryFailureOfOnePayload(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", `{"days": 30, "units": "kelvin"}`)
	require.Equal(t, http.StatusOK, r.status)
	res := decodeValidateResult(t, r.body)
	assert.False(t, res.Valid)
	got := map[string]string{}
	for _, e := range res.Errors {
		got[e.Path] = e.Keyword
		assert.NotEmpty(t, e.Message, "failure at %q has a message", e.Path)
	}
	assert.Equal(t, map[string]string{"/days": "maximum", "/location": "required", "/units": "enum"}, got)
}

func TestValidateUnknownToolAnswers404(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/nope/validate", `{}`)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.JSONEq(t, `{"error": "Tool not found: nope"}`, r.body)
}

func TestValidateNonJSONBodyAnswers400WithFormatFailure(t *testing.T) {
	f := newValidateFixture(t)
	for _, body := range []string{`{"location": `, `not json`, ``, `{} {}`} {
		r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", body)
		assert.Equal(t, http.StatusBadRequest, r.status, "body %q", body)
		var raw map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.body), &raw))
		assert.Equal(t, false, raw["valid"])
		errs, _ := raw["errors"].([]any)
		require.Len(t, errs, 1, "body %q", body)
		e := errs[0].(map[string]any)
		assert.Equal(t, "", e["path"])
		assert.Equal(t, "format", e["keyword"])
		assert.True(t, strings.HasPrefix(e["message"].(string), "Invalid JSON: "), "message %q", e["message"])
	}
}

func TestValidateToolWithoutSchemaIsAlwaysValid(t *testing.T) {
	f := newValidateFixture(t)
	for _, body := range []string{`{}`, `{"anything": [1, 2]}`, `[1, 2]`, `"text"`, `null`} {
		r := do(t, f.handler(), http.MethodPost, "/tools/free/validate", body)
		assert.Equal(t, http.StatusOK, r.status, "body %s", body)
		assert.JSONEq(t, `{"valid": true}`, r.body, "body %s", body)
	}
}

func TestValidateWorksWhileExecutionIsDisabled(t *testing.T) {
	f := newValidateFixture(t)
	h := f.handler(WithAllowExecute(false))
	r := do(t, h, http.MethodPost, "/tools/forecast/validate", `{"location": "Oslo"}`)
	assert.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"valid": true}`, r.body)

	r = do(t, h, http.MethodPost, "/tools/forecast/validate", `{}`)
	assert.Equal(t, http.StatusOK, r.status)
	assert.False(t, decodeValidateResult(t, r.body).Valid)

	call := do(t, h, http.MethodPost, "/tools/forecast/call", `{"location": "Oslo"}`)
	assert.Equal(t, http.StatusForbidden, call.status, "the gate still guards calls")
}

func TestValidateNeverRunsTheAuthHook(t *testing.T) {
	f := newValidateFixture(t)
	h := f.handler()
	r := do(t, h, http.MethodPost, "/tools/forecast/validate", `{"location": "Oslo"}`, "Authorization", "Bearer wrong")
	assert.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"valid": true}`, r.body)
	assert.Zero(t, f.authCalls.Load(), "validate must not invoke the auth hook")

	call := do(t, h, http.MethodPost, "/tools/forecast/call", `{"location": "Oslo"}`)
	assert.Equal(t, http.StatusUnauthorized, call.status, "the same hook does refuse calls")
	assert.Equal(t, int64(1), f.authCalls.Load())
}

func TestValidateNeverInvokesTheHandler(t *testing.T) {
	f := newValidateFixture(t)
	h := f.handler()
	for _, body := range []string{`{"location": "Oslo"}`, `{}`, `nope`, `{"x": 1}`} {
		for _, tool := range []string{"forecast", "free", "broken"} {
			do(t, h, http.MethodPost, "/tools/"+tool+"/validate", body)
		}
	}
	x := New(f.reg, f.reg, WithAllowExecute(true), WithLogger(discardLogger()))
	_, err := x.Validate(context.Background(), "forecast", "", json.RawMessage(`{"location": "Oslo"}`))
	require.NoError(t, err)
	assert.Zero(t, f.calls.Load(), "no handler ran")
}

func TestValidateOmitsErrorsKeyWhenValid(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", `{"location": "Oslo"}`)
	require.Equal(t, http.StatusOK, r.status)
	m := r.json(t)
	assert.Equal(t, map[string]any{"valid": true}, m)
	assert.NotContains(t, r.body, "errors")
}

func TestValidateResultAndValidationFailureAreExported(t *testing.T) {
	// Compiling this test proves the types are importable from the package
	// root; their JSON is the validate route's wire shape.
	valid, err := json.Marshal(ValidateResult{Valid: true})
	require.NoError(t, err)
	assert.JSONEq(t, `{"valid": true}`, string(valid))

	invalid, err := json.Marshal(ValidateResult{Errors: []ValidationFailure{{Path: "/a", Message: "m", Keyword: "type"}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"valid": false, "errors": [{"path": "/a", "message": "m", "keyword": "type"}]}`, string(invalid))
}

func TestValidateUncompilableSchemaIsOneSchemaFailureWith200(t *testing.T) {
	f := newValidateFixture(t)
	for _, body := range []string{`{}`, `{"location": "Oslo"}`} {
		r := do(t, f.handler(), http.MethodPost, "/tools/broken/validate", body)
		assert.Equal(t, http.StatusOK, r.status)
		res := decodeValidateResult(t, r.body)
		assert.False(t, res.Valid)
		require.Len(t, res.Errors, 1)
		assert.Equal(t, "", res.Errors[0].Path)
		assert.Equal(t, "schema", res.Errors[0].Keyword)
		assert.True(t, strings.HasPrefix(res.Errors[0].Message, "Invalid schema: "), "message %q", res.Errors[0].Message)
		assert.NotContains(t, res.Errors[0].Message, "\n")
	}
}

// Beyond the thirteen criteria.

func TestValidateNamespacedAndEncodedToolNames(t *testing.T) {
	f := newValidateFixture(t)
	h := f.handler()
	for _, target := range []string{"/tools/geo/lookup/validate", "/tools/geo%2Flookup/validate"} {
		r := do(t, h, http.MethodPost, target, `{"location": "Oslo"}`)
		assert.Equal(t, http.StatusOK, r.status, target)
		assert.JSONEq(t, `{"valid": true}`, r.body, target)
	}
}

func TestValidateOversizedBodyAnswers413(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(WithMaxBodyBytes(16)), http.MethodPost, "/tools/forecast/validate", `{"location": "a very long city name"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.Contains(t, r.json(t), "error")
}

func TestValidateBodyThatIsNotAnObjectIsCheckedAgainstTheSchema(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(), http.MethodPost, "/tools/forecast/validate", `[1]`)
	require.Equal(t, http.StatusOK, r.status)
	res := decodeValidateResult(t, r.body)
	assert.Equal(t, []ValidationFailure{{Path: "", Message: "got array, want object", Keyword: "type"}}, res.Errors)
}

func TestValidateIgnoresTheValidationSwitches(t *testing.T) {
	f := newValidateFixture(t)
	r := do(t, f.handler(WithValidation(false)), http.MethodPost, "/tools/forecast/validate", `{}`)
	require.Equal(t, http.StatusOK, r.status)
	assert.False(t, decodeValidateResult(t, r.body).Valid, "validate answers what was asked even when calls skip validation")
}

// FuzzValidateEndpoint feeds arbitrary schemas and bodies to the validate
// endpoint: it must always answer 200 or 400 with a well-formed
// ValidateResult, never panic, and never run the handler.
func FuzzValidateEndpoint(f *testing.F) {
	f.Add(forecastSchema, `{"location": "Oslo"}`)
	f.Add(forecastSchema, `{"days": "x", "units": 1}`)
	f.Add(`{"type": "objekt"}`, `{}`)
	f.Add(`{"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#/$defs/a"}}}`, `{}`)
	f.Add(`{"properties": {"a/b": {"required": ["~"]}}}`, `{"a/b": {}}`)
	f.Add(`{"pattern": "(?=x)"}`, `"x"`)
	f.Add(`{"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "integer"}]}`, `["a"]`)
	f.Add(`true`, `not json`)
	f.Fuzz(func(t *testing.T, schema, body string) {
		var calls atomic.Int64
		reg := NewRegistry()
		reg.MustAdd(Tool{Name: "t", InputSchema: json.RawMessage(schema)}, func(string, map[string]any) ([]Content, bool, string, error) {
			calls.Add(1)
			return nil, false, "", nil
		})
		h := NewHandler(New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger())))
		r := do(t, h, http.MethodPost, "/tools/t/validate", body)
		if r.status != http.StatusOK && r.status != http.StatusBadRequest {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		res := decodeValidateResult(t, r.body)
		if res.Valid == (len(res.Errors) > 0) {
			t.Fatalf("valid=%v with %d errors: %s", res.Valid, len(res.Errors), r.body)
		}
		if calls.Load() != 0 {
			t.Fatal("the handler ran")
		}
	})
}
