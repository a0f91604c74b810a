package toolexec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/infer"
	"github.com/toolexec/toolexec/internal/schema"
)

type weatherIn struct {
	City  string  `json:"city" jsonschema:"the city to forecast"`
	Days  int     `json:"days,omitempty" jsonschema:"how many days, 1 by default"`
	Units *string `json:"units,omitempty"`
}

type weatherOut struct {
	City   string    `json:"city"`
	TempsC []float64 `json:"tempsC"`
}

func forecastTyped(_ context.Context, in weatherIn) (weatherOut, error) {
	days := max(in.Days, 1)
	out := weatherOut{City: in.City}
	for i := 0; i < days; i++ {
		out.TempsC = append(out.TempsC, 20+float64(i)/2)
	}
	return out, nil
}

func typedExecutor(t *testing.T, reg *Registry, opts ...Option) *Executor {
	t.Helper()
	return New(reg, reg, append([]Option{WithAllowExecute(true), WithLogger(discardLogger())}, opts...)...)
}

// schemaOf infers T's schema as a generic JSON value, for comparisons.
func schemaOf[T any](t *testing.T) map[string]any {
	t.Helper()
	raw, err := infer.ObjectSchema(reflect.TypeFor[T](), true)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

func TestTypedToolRoundTripOverREST(t *testing.T) {
	reg := NewRegistry()
	require.NoError(t, AddTool(reg, Tool{Name: "weather", Description: "Forecast"}, forecastTyped))
	h := NewHandler(typedExecutor(t, reg))

	r := do(t, h, http.MethodPost, "/tools/weather/call", `{"city": "Oslo", "days": 2}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.JSONEq(t, `{
		"content": [{"type": "text", "text": "{\"city\":\"Oslo\",\"tempsC\":[20,20.5]}"}],
		"structuredContent": {"city": "Oslo", "tempsC": [20, 20.5]},
		"isError": false
	}`, r.body)

	d := do(t, h, http.MethodGet, "/tools/weather", "")
	require.Equal(t, http.StatusOK, d.status)
	assert.JSONEq(t, `{
		"name": "weather",
		"description": "Forecast",
		"inputSchema": {
			"type": "object",
			"properties": {
				"city": {"type": "string", "description": "the city to forecast"},
				"days": {"type": "integer", "description": "how many days, 1 by default"},
				"units": {"type": ["null", "string"]}
			},
			"required": ["city"],
			"additionalProperties": false
		},
		"outputSchema": {
			"type": "object",
			"properties": {
				"city": {"type": "string"},
				"tempsC": {"type": ["null", "array"], "items": {"type": "number"}}
			},
			"required": ["city", "tempsC"],
			"additionalProperties": false
		}
	}`, d.body, "the inferred output schema is shown too")
}

func TestTypedToolArgumentsAreValidatedBeforeTheHandler(t *testing.T) {
	reg := NewRegistry()
	ran := false
	require.NoError(t, AddTool(reg, Tool{Name: "weather"}, func(ctx context.Context, in weatherIn) (weatherOut, error) {
		ran = true
		return forecastTyped(ctx, in)
	}))
	h := NewHandler(typedExecutor(t, reg))

	r := do(t, h, http.MethodPost, "/tools/weather/call", `{"days": "two", "wind": true}`)
	assert.Equal(t, http.StatusUnprocessableEntity, r.status)
	var res CallToolResult
	require.NoError(t, json.Unmarshal([]byte(r.body), &res))
	assert.True(t, res.IsError)
	assert.Equal(t, "/city: missing property 'city'\n/days: got string, want integer\n/wind: additional properties 'wind' not allowed", res.Text())
	assert.False(t, ran)
}

func TestTypedToolStructuredContentInProcess(t *testing.T) {
	reg := NewRegistry()
	MustAddTool(reg, Tool{Name: "weather"}, forecastTyped)
	res, err := typedExecutor(t, reg).Call(context.Background(), CallRequest{Name: "weather", Arguments: json.RawMessage(`{"city": "Rome"}`)})
	require.NoError(t, err)
	raw, ok := res.StructuredContent.(json.RawMessage)
	require.True(t, ok, "StructuredContent holds the output's JSON, got %T", res.StructuredContent)
	var out weatherOut
	require.NoError(t, json.Unmarshal(raw, &out))
	assert.Equal(t, weatherOut{City: "Rome", TempsC: []float64{20}}, out)
	assert.Equal(t, string(raw), res.Text(), "the text block holds the same JSON")
	assert.False(t, res.IsError)
}

func TestTypedToolHandlerReceivesDecodedInputAndContext(t *testing.T) {
	type in struct {
		When  time.Time         `json:"when"`
		Tags  []string          `json:"tags"`
		Attrs map[string]int    `json:"attrs"`
		Raw   json.RawMessage   `json:"raw"`
		Any   any               `json:"any"`
		Blob  []byte            `json:"blob"`
		Opt   *int              `json:"opt,omitempty"`
		Inner struct{ N uint8 } `json:"inner"`
	}
	reg := NewRegistry()
	got := make(chan in, 1)
	sawRequest := make(chan bool, 1)
	MustAddTool(reg, Tool{Name: "echo"}, func(ctx context.Context, v in) (*CallToolResult, error) {
		got <- v
		sawRequest <- RequestFromContext(ctx) != nil
		return nil, nil
	})
	h := NewHandler(typedExecutor(t, reg))
	r := do(t, h, http.MethodPost, "/tools/echo/call", `{
		"when": "2025-06-18T10:30:00Z", "tags": ["a"], "attrs": {"x": 1},
		"raw": {"k": [1, 2]}, "any": 2.5, "blob": "aGk=", "inner": {"N": 7}
	}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	v := <-got
	assert.Equal(t, time.Date(2025, 6, 18, 10, 30, 0, 0, time.UTC), v.When.UTC())
	assert.Equal(t, []string{"a"}, v.Tags)
	assert.Equal(t, map[string]int{"x": 1}, v.Attrs)
	assert.JSONEq(t, `{"k": [1, 2]}`, string(v.Raw))
	assert.Equal(t, 2.5, v.Any)
	assert.Equal(t, []byte("hi"), v.Blob)
	assert.Nil(t, v.Opt)
	assert.Equal(t, uint8(7), v.Inner.N)
	assert.True(t, <-sawRequest, "the HTTP request is reachable from the typed handler's context")
	assert.JSONEq(t, `{"content": [], "isError": false}`, r.body)
}

func TestInferenceDescribesEveryGoShape(t *testing.T) {
	type Address struct {
		Street string  `json:"street"`
		Zip    *string `json:"zip,omitempty"`
	}
	type Base struct {
		ID      string    `json:"id" jsonschema:"the record id"`
		Created time.Time `json:"created"`
	}
	type Shapes struct {
		Base                                      // embedded: fields promoted
		Name      string                          `json:"name"`
		Count     int                             `json:"count,omitempty"`
		Small     int8                            `json:"small"`
		Ratio     float64                         `json:"ratio"`
		OK        bool                            `json:"ok"`
		Home      Address                         `json:"home"`           // nested struct
		Work      *Address                        `json:"work,omitempty"` // pointer: optional, may be null
		Maybe     *int                            `json:"maybe"`          // pointer: optional even without omitempty
		Tags      []string                        `json:"tags"`           // slice
		Pair      [2]int                          `json:"pair"`           // array
		Scores    map[string]float64              `json:"scores"`         // map
		Nested    map[string][]Address            `json:"nested"`
		When      time.Time                       `json:"when"`              // date-time string
		Until     *time.Time                      `json:"until,omitempty"`   // optional date-time
		Raw       json.RawMessage                 `json:"raw"`               // any JSON
		RawPtr    *json.RawMessage                `json:"rawPtr,omitempty"`  // still any JSON
		Anything  any                             `json:"anything"`          // any JSON
		Blob      []byte                          `json:"blob"`              // base64 string
		Skipped   string                          `json:"-"`                 // not on the wire
		Unlisted  chan int                        `json:"-"`                 // not on the wire, so no error
		Zeroable  string                          `json:"zeroable,omitzero"` // optional
		secret    string                          //nolint:unused // unexported: not on the wire
		Described string                          `json:"described" jsonschema:"what it is"`
		Defaulted string                          // no tag: named as the Go field
		Deep      struct{ Inner struct{ X int } } `json:"deep"`
	}
	_ = Shapes{}.secret
	got := schemaOf[Shapes](t)
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"id":      map[string]any{"type": "string", "description": "the record id"},
			"created": map[string]any{"type": "string", "format": "date-time"},
			"name":    map[string]any{"type": "string"},
			"count":   map[string]any{"type": "integer"},
			"small":   map[string]any{"type": "integer", "minimum": -128.0, "maximum": 127.0},
			"ratio":   map[string]any{"type": "number"},
			"ok":      map[string]any{"type": "boolean"},
			"home": map[string]any{
				"type":                 "object",
				"properties":           map[string]any{"street": map[string]any{"type": "string"}, "zip": map[string]any{"type": []any{"null", "string"}}},
				"required":             []any{"street"},
				"additionalProperties": false,
			},
			"work": map[string]any{
				"type":                 []any{"null", "object"},
				"properties":           map[string]any{"street": map[string]any{"type": "string"}, "zip": map[string]any{"type": []any{"null", "string"}}},
				"required":             []any{"street"},
				"additionalProperties": false,
			},
			"maybe":  map[string]any{"type": []any{"null", "integer"}},
			"tags":   map[string]any{"type": []any{"null", "array"}, "items": map[string]any{"type": "string"}},
			"pair":   map[string]any{"type": "array", "items": map[string]any{"type": "integer"}, "minItems": 2.0, "maxItems": 2.0},
			"scores": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "number"}},
			"nested": map[string]any{"type": "object", "additionalProperties": map[string]any{
				"type": []any{"null", "array"},
				"items": map[string]any{
					"type":                 "object",
					"properties":           map[string]any{"street": map[string]any{"type": "string"}, "zip": map[string]any{"type": []any{"null", "string"}}},
					"required":             []any{"street"},
					"additionalProperties": false,
				},
			}},
			"when":      map[string]any{"type": "string", "format": "date-time"},
			"until":     map[string]any{"type": []any{"null", "string"}, "format": "date-time"},
			"raw":       true,
			"rawPtr":    true,
			"anything":  true,
			"blob":      map[string]any{"type": []any{"null", "string"}, "contentEncoding": "base64"},
			"zeroable":  map[string]any{"type": "string"},
			"described": map[string]any{"type": "string", "description": "what it is"},
			"Defaulted": map[string]any{"type": "string"},
			"deep": map[string]any{
				"type": "object",
				"properties": map[string]any{"Inner": map[string]any{
					"type":                 "object",
					"properties":           map[string]any{"X": map[string]any{"type": "integer"}},
					"required":             []any{"X"},
					"additionalProperties": false,
				}},
				"required":             []any{"Inner"},
				"additionalProperties": false,
			},
		},
		"required": []any{"id", "created", "name", "small", "ratio", "ok", "home", "tags", "pair", "scores", "nested",
			"when", "raw", "anything", "blob", "described", "Defaulted", "deep"},
		"additionalProperties": false,
	}
	assert.Equal(t, want, got)
}

func TestInferredSchemaMatchesWhatEncodingJSONWrites(t *testing.T) {
	// The inferred schema must accept the JSON of any value of the type:
	// validate a populated value's encoding against it.
	type Inner struct {
		A int `json:"a"`
	}
	type Base struct {
		B string `json:"b"`
	}
	type T struct {
		Base
		*Inner
		When  time.Time       `json:"when"`
		Raw   json.RawMessage `json:"raw"`
		Blob  []byte          `json:"blob"`
		List  []Inner         `json:"list"`
		Empty []string        `json:"empty"`
		Ptr   *Inner          `json:"ptr"`
	}
	raw, err := infer.ObjectSchema(reflect.TypeFor[T](), false)
	require.NoError(t, err)
	sch, err := schema.Compile(raw)
	require.NoError(t, err)
	for _, v := range []T{
		{Base: Base{B: "x"}, Inner: &Inner{A: 1}, When: time.Now(), Raw: json.RawMessage(`[1]`), Blob: []byte{0, 1}, List: []Inner{{A: 2}}, Ptr: &Inner{}},
		{Inner: &Inner{}, Raw: json.RawMessage(`null`)},
	} {
		data, err := json.Marshal(v)
		require.NoError(t, err)
		val, err := schema.JSONValue(json.RawMessage(data))
		require.NoError(t, err)
		fs, _ := schema.Validate(sch, val)
		assert.Empty(t, fs, "%s", data)
	}
}

func TestUndescribableTypesAreRegistrationErrors(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	type withFunc struct {
		F func() `json:"f"`
	}
	type withComplex struct {
		Z complex128 `json:"z"`
	}
	type node struct {
		Next *node `json:"next"`
	}
	type intKeys struct {
		M map[int]string `json:"m"`
	}
	type named struct {
		X int `json:"x"`
	}
	type taggedEmbed struct {
		named `json:"inner"`
	}
	type Label string
	type embeddedString struct {
		Label
	}
	noop := func(context.Context, struct{}) (*CallToolResult, error) { return nil, nil }
	cases := map[string]func(r *Registry) error{
		"chan field":            func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[withChan]) },
		"func field":            func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[withFunc]) },
		"complex field":         func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[withComplex]) },
		"recursive type":        func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[node]) },
		"map with int keys":     func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[intKeys]) },
		"named embedded struct": func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[taggedEmbed]) },
		"embedded non-struct":   func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[embeddedString]) },
		"string input":          func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[string]) },
		"slice input":           func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[[]int]) },
		"interface input":       func(r *Registry) error { return AddTool(r, Tool{Name: "x"}, inputOnly[fmt.Stringer]) },
		"interface input with own schema": func(r *Registry) error {
			return AddTool(r, Tool{Name: "x", InputSchema: json.RawMessage(`{"type": "object"}`)}, inputOnly[fmt.Stringer])
		},
		"int output": func(r *Registry) error {
			return AddTool(r, Tool{Name: "x"}, func(context.Context, struct{}) (int, error) { return 0, nil })
		},
		"slice output": func(r *Registry) error {
			return AddTool(r, Tool{Name: "x"}, func(context.Context, struct{}) ([]string, error) { return nil, nil })
		},
		"chan output": func(r *Registry) error {
			return AddTool(r, Tool{Name: "x"}, func(context.Context, struct{}) (struct{ C chan int }, error) {
				return struct{ C chan int }{}, nil
			})
		},
		"bad host input schema": func(r *Registry) error {
			return AddTool(r, Tool{Name: "x", InputSchema: json.RawMessage(`{"type": 1}`)}, noop)
		},
		"bad host output schema": func(r *Registry) error {
			return AddTool(r, Tool{Name: "x", OutputSchema: json.RawMessage(`{"required": "a"}`)}, noop)
		},
		"nil handler": func(r *Registry) error { return AddTool[struct{}, *CallToolResult](r, Tool{Name: "x"}, nil) },
		"no name":     func(r *Registry) error { return AddTool(r, Tool{}, noop) },
	}
	for name, add := range cases {
		t.Run(name, func(t *testing.T) {
			r := NewRegistry()
			var err error
			require.NotPanics(t, func() { err = add(r) })
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "toolexec: AddTool"), err.Error())
			assert.Empty(t, r.Tools(), "nothing is registered")
		})
	}
}

func inputOnly[In any](context.Context, In) (*CallToolResult, error) { return nil, nil }

func TestMustAddToolPanicsOnError(t *testing.T) {
	assert.Panics(t, func() {
		MustAddTool(NewRegistry(), Tool{Name: "x"}, inputOnly[string])
	})
}

func TestAddToolRejectsADuplicate(t *testing.T) {
	r := NewRegistry()
	require.NoError(t, AddTool(r, Tool{Name: "w"}, forecastTyped))
	assert.Error(t, AddTool(r, Tool{Name: "w"}, forecastTyped))
	assert.Len(t, r.Tools(), 1)
}

func TestHostSchemasWinOverInference(t *testing.T) {
	r := NewRegistry()
	in := json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string", "maxLength": 3}}}`)
	out := json.RawMessage(`{"type": "object"}`)
	require.NoError(t, AddTool(r, Tool{Name: "w", InputSchema: in, OutputSchema: out}, forecastTyped))
	tool, ok := r.LookupTool("w", "")
	require.True(t, ok)
	assert.JSONEq(t, string(in), string(tool.InputSchema))
	assert.JSONEq(t, string(out), string(tool.OutputSchema))

	_, err := typedExecutor(t, r).Call(context.Background(), CallRequest{Name: "w", Arguments: json.RawMessage(`{"city": "Lisbon"}`)})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, "maxLength", e.Failures[0].Keyword)
}

func TestTypedInputOfAnyKindStandsForAnyObject(t *testing.T) {
	r := NewRegistry()
	gotAny := make(chan any, 1)
	gotMap := make(chan map[string]any, 1)
	MustAddTool(r, Tool{Name: "any"}, func(_ context.Context, in any) (*CallToolResult, error) {
		gotAny <- in
		return nil, nil
	})
	MustAddTool(r, Tool{Name: "map"}, func(_ context.Context, in map[string]any) (*CallToolResult, error) {
		gotMap <- in
		return nil, nil
	})
	MustAddTool(r, Tool{Name: "ptr"}, func(_ context.Context, in *weatherIn) (*CallToolResult, error) {
		return &CallToolResult{Content: []Content{Text(in.City)}}, nil
	})
	for name, want := range map[string]string{"any": `{"type": "object"}`, "map": `{"type": "object", "additionalProperties": true}`} {
		tool, _ := r.LookupTool(name, "")
		assert.JSONEq(t, want, string(tool.InputSchema), name)
	}
	ptrTool, _ := r.LookupTool("ptr", "")
	assert.Contains(t, string(ptrTool.InputSchema), `"type":"object"`, "a pointer input is still an object, never null")

	x := typedExecutor(t, r)
	ctx := context.Background()
	_, err := x.Call(ctx, CallRequest{Name: "any", Arguments: json.RawMessage(`{"a": 1}`)})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": 1.0}, <-gotAny)
	_, err = x.Call(ctx, CallRequest{Name: "map", Arguments: json.RawMessage(`{"b": [true]}`)})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"b": []any{true}}, <-gotMap)
	res, err := x.Call(ctx, CallRequest{Name: "ptr", Arguments: json.RawMessage(`{"city": "Oslo"}`)})
	require.NoError(t, err)
	assert.Equal(t, "Oslo", res.Text())
}

func TestTypedHandlerMayReturnContentDirectly(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "blocks"}, func(context.Context, struct{}) ([]Content, error) {
		return []Content{Text("one"), Text("two")}, nil
	})
	MustAddTool(r, Tool{Name: "block"}, func(context.Context, struct{}) (Content, error) {
		return &ImageContent{Data: []byte("hi"), MIMEType: "image/png"}, nil
	})
	MustAddTool(r, Tool{Name: "nothing"}, func(context.Context, struct{}) (Content, error) { return nil, nil })
	MustAddTool(r, Tool{Name: "result"}, func(context.Context, struct{}) (*CallToolResult, error) {
		res := &CallToolResult{Content: []Content{Text("not found")}, IsError: true}
		res.SetTraceID("t-9")
		return res, nil
	})
	for _, name := range []string{"blocks", "block", "nothing", "result"} {
		tool, _ := r.LookupTool(name, "")
		assert.Empty(t, tool.OutputSchema, "no outputSchema for %s", name)
	}
	h := NewHandler(typedExecutor(t, r))

	assert.JSONEq(t, `{"content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}], "isError": false}`,
		do(t, h, http.MethodPost, "/tools/blocks/call", `{}`).body)
	assert.JSONEq(t, `{"content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}], "isError": false}`,
		do(t, h, http.MethodPost, "/tools/block/call", `{}`).body)
	assert.JSONEq(t, `{"content": [], "isError": false}`, do(t, h, http.MethodPost, "/tools/nothing/call", `{}`).body)
	res := do(t, h, http.MethodPost, "/tools/result/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, res.status)
	assert.JSONEq(t, `{"content": [{"type": "text", "text": "not found"}], "isError": true, "_meta": {"_trace_id": "t-9"}}`, res.body)
}

func TestTypedOutputOfTypeAnyIsStructuredOnlyWhenAnObject(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "obj"}, func(context.Context, struct{}) (any, error) { return map[string]int{"n": 1}, nil })
	MustAddTool(r, Tool{Name: "list"}, func(context.Context, struct{}) (any, error) { return []int{1, 2}, nil })
	tool, _ := r.LookupTool("obj", "")
	assert.Empty(t, tool.OutputSchema)
	h := NewHandler(typedExecutor(t, r))
	assert.JSONEq(t, `{"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}, "isError": false}`,
		do(t, h, http.MethodPost, "/tools/obj/call", `{}`).body)
	assert.JSONEq(t, `{"content": [{"type": "text", "text": "[1,2]"}], "isError": false}`,
		do(t, h, http.MethodPost, "/tools/list/call", `{}`).body)
}

func TestTypedMapOutputIsStructured(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "counts"}, func(context.Context, struct{}) (map[string]int, error) { return map[string]int{"a": 2}, nil })
	tool, _ := r.LookupTool("counts", "")
	assert.JSONEq(t, `{"type": "object", "additionalProperties": {"type": "integer"}}`, string(tool.OutputSchema))
	r2 := do(t, NewHandler(typedExecutor(t, r)), http.MethodPost, "/tools/counts/call", `{}`)
	assert.JSONEq(t, `{"content": [{"type": "text", "text": "{\"a\":2}"}], "structuredContent": {"a": 2}, "isError": false}`, r2.body)
}

func TestTypedHandlerErrorIsAToolErrorWithItsMessage(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "plain"}, func(context.Context, struct{}) (weatherOut, error) {
		return weatherOut{}, errors.New("upstream timed out")
	})
	rich := &ToolError{Message: "City unknown", DeveloperMessage: "geocoder: no match", CanRetry: true,
		RetryAfter: 2 * time.Second, AdditionalPromptContent: "Try: Oslo, Lisbon"}
	MustAddTool(r, Tool{Name: "rich"}, func(context.Context, struct{}) (weatherOut, error) { return weatherOut{}, rich })
	x := typedExecutor(t, r)

	_, err := x.Call(context.Background(), CallRequest{Name: "plain"})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeToolError, e.Code)
	assert.Equal(t, StageExecute, e.Stage)
	assert.Equal(t, "upstream timed out", e.Message)

	_, err = x.Call(context.Background(), CallRequest{Name: "rich"})
	var te *ToolError
	require.True(t, errors.As(err, &te), "the *ToolError is reachable through the call's error")
	assert.Same(t, rich, te)

	resp := do(t, NewHandler(x), http.MethodPost, "/tools/plain/call", `{}`)
	assert.Equal(t, http.StatusInternalServerError, resp.status)
	assert.JSONEq(t, `{"content": [{"type": "text", "text": "upstream timed out"}], "isError": true}`, resp.body)
}

func TestTypedOutputBreakingItsSchemaIsALoggedToolError(t *testing.T) {
	r := NewRegistry()
	ran := 0
	// The host's outputSchema promises at least two temperatures; the
	// handler returns one.
	MustAddTool(r, Tool{Name: "w", OutputSchema: json.RawMessage(`{
		"type": "object",
		"properties": {"tempsC": {"type": "array", "minItems": 2}},
		"required": ["city", "tempsC"]
	}`)}, func(ctx context.Context, in weatherIn) (weatherOut, error) {
		ran++
		return forecastTyped(ctx, in)
	})
	var logs bytes.Buffer
	x := New(r, r, WithAllowExecute(true), WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))

	var res *CallToolResult
	var err error
	require.NotPanics(t, func() {
		res, err = x.Call(context.Background(), CallRequest{Name: "w", Arguments: json.RawMessage(`{"city": "Oslo"}`)})
	})
	assert.Nil(t, res)
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeToolError, e.Code)
	assert.Equal(t, StageValidate, e.Stage)
	assert.Equal(t, "The tool's output does not match its output schema.", e.Message)
	assert.Empty(t, e.Failures, "not the caller's arguments")
	var te *ToolError
	require.True(t, errors.As(err, &te))
	assert.Equal(t, "outputSchema: /tempsC: minItems: got 1, want 2", te.DeveloperMessage)
	assert.Equal(t, 1, ran)
	assert.Contains(t, logs.String(), "level=ERROR")
	assert.Contains(t, logs.String(), "tool output does not match its outputSchema")
	assert.Contains(t, logs.String(), "/tempsC: minItems: got 1, want 2")

	resp := do(t, NewHandler(x), http.MethodPost, "/tools/w/call", `{"city": "Oslo", "days": 1}`)
	assert.Equal(t, http.StatusInternalServerError, resp.status)
	assert.JSONEq(t, `{"content": [{"type": "text", "text": "The tool's output does not match its output schema."}], "isError": true}`, resp.body)

	ok2, err := x.Call(context.Background(), CallRequest{Name: "w", Arguments: json.RawMessage(`{"city": "Oslo", "days": 2}`)})
	require.NoError(t, err, "output that matches passes")
	assert.NotNil(t, ok2.StructuredContent)
}

func TestOutputValidationFollowsTheValidationSwitches(t *testing.T) {
	schema := json.RawMessage(`{"type": "object", "properties": {"tempsC": {"minItems": 5}}}`)
	for name, opts := range map[string]struct {
		exec []Option
		tool ToolOptions
	}{
		"off globally": {exec: []Option{WithValidation(false)}},
		"off per tool": {tool: ToolOptions{SkipValidation: true}},
	} {
		t.Run(name, func(t *testing.T) {
			r := NewRegistry()
			MustAddTool(r, Tool{Name: "w", OutputSchema: schema, Options: opts.tool}, forecastTyped)
			res, err := typedExecutor(t, r, opts.exec...).Call(context.Background(), CallRequest{Name: "w", Arguments: json.RawMessage(`{"city": "Oslo"}`)})
			require.NoError(t, err)
			assert.NotNil(t, res.StructuredContent)
		})
	}
}

func TestTypedNilOutputIsAToolError(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "nil"}, func(context.Context, struct{}) (*weatherOut, error) { return nil, nil })
	tool, _ := r.LookupTool("nil", "")
	assert.Contains(t, string(tool.OutputSchema), `"type":"object"`, "a pointer output is described as an object")
	for _, opts := range [][]Option{nil, {WithValidation(false)}} {
		_, err := typedExecutor(t, r, opts...).Call(context.Background(), CallRequest{Name: "nil"})
		e, ok := AsError(err)
		require.True(t, ok)
		assert.Equal(t, CodeToolError, e.Code)
		assert.Contains(t, e.Message, "returned no output")
	}
}

func TestTypedToolWithValidationOffReportsMisfitArgumentsByField(t *testing.T) {
	r := NewRegistry()
	ran := false
	MustAddTool(r, Tool{Name: "w"}, func(ctx context.Context, in weatherIn) (weatherOut, error) {
		ran = true
		return forecastTyped(ctx, in)
	})
	x := typedExecutor(t, r, WithValidation(false))
	_, err := x.Call(context.Background(), CallRequest{Name: "w", Arguments: json.RawMessage(`{"city": "Oslo", "days": "two"}`)})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeToolError, e.Code)
	assert.Equal(t, "invalid arguments: days: got string, want integer", e.Message)
	assert.False(t, ran)
}

func TestRegistryHandleCallOfATypedToolReturnsItsContent(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "w"}, forecastTyped)
	content, isError, traceID, err := r.HandleCall(context.Background(), "w", map[string]any{"city": "Oslo"})
	require.NoError(t, err)
	assert.False(t, isError)
	assert.Empty(t, traceID)
	require.Len(t, content, 1)
	assert.JSONEq(t, `{"city": "Oslo", "tempsC": [20]}`, content[0].(*TextContent).Text)
}

func TestPlainHandlersKeepWorkingBesideTypedTools(t *testing.T) {
	r := NewRegistry()
	MustAddTool(r, Tool{Name: "typed"}, forecastTyped)
	r.MustAdd(Tool{Name: "plain"}, func(string, map[string]any) ([]Content, bool, string, error) {
		return []Content{Text("plain")}, false, "tr", nil
	})
	res, err := typedExecutor(t, r).Call(context.Background(), CallRequest{Name: "plain"})
	require.NoError(t, err)
	assert.Equal(t, "plain", res.Text())
	assert.Equal(t, "tr", res.TraceID())
	assert.Nil(t, res.StructuredContent)
}

func TestExecutorUsesAHostsToolResultHandler(t *testing.T) {
	h := resultOnly{}
	x := New(StaticTools{{Name: "s", OutputSchema: json.RawMessage(`{"type": "object", "required": ["ok"]}`)}}, h,
		WithAllowExecute(true), WithLogger(discardLogger()))
	res, err := x.Call(context.Background(), CallRequest{Name: "s"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ok": true}, res.StructuredContent)
}

// resultOnly is a host's own dispatcher that builds whole results.
type resultOnly struct{}

func (resultOnly) HandleCall(context.Context, string, map[string]any) ([]Content, bool, string, error) {
	return nil, false, "", errors.New("HandleCall must not be used when HandleCallResult exists")
}

func (resultOnly) HandleCallResult(context.Context, string, map[string]any) (*CallToolResult, error) {
	return &CallToolResult{StructuredContent: map[string]any{"ok": true}}, nil
}
