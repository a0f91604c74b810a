package toolexec

import (
	"context"
	"encoding/json"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/schema"
)

type exactOut struct {
	N     int             `json:"n"`
	S     string          `json:"s,omitempty"`
	P     *float64        `json:"p"`
	L     []string        `json:"l"`
	B     []byte          `json:"b"`
	T     time.Time       `json:"t"`
	Raw   json.RawMessage `json:"raw,omitempty"`
	Any   any             `json:"any"`
	Inner struct {
		Flag bool `json:"flag"`
	} `json:"inner"`
}

func TestEncodesExactly(t *testing.T) {
	cases := map[reflect.Type]bool{
		reflect.TypeFor[exactOut]():                   true,
		reflect.TypeFor[*exactOut]():                  true,
		reflect.TypeFor[struct{ M map[string]int }](): false, // nil map: null
		reflect.TypeFor[struct{ IP net.IP }]():        false, // writes itself as a string
		reflect.TypeFor[struct{ D time.Duration }]():  true,
		reflect.TypeFor[struct {
			N int `json:",string"`
		}](): false,
		reflect.TypeFor[struct{ E error }]():    false,
		reflect.TypeFor[struct{ C chan int }](): false,
	}
	for typ, want := range cases {
		assert.Equal(t, want, encodesExactly(typ, map[reflect.Type]bool{}), typ.String())
	}
}

// outputSpans counts the output validation stages a call goes through.
func outputSpans(sr *stageLog) int { return sr.count(StageValidate, "output") }

func TestOutputValidationSkipsOnlyWhatConformsByConstruction(t *testing.T) {
	newExec := func(provider ToolProvider, reg *Registry) (*Executor, *stageLog) {
		sr := &stageLog{}
		return New(provider, reg, WithAllowExecute(true), WithLogger(discardLogger()), WithObserver(sr)), sr
	}

	t.Run("an exact type against its inferred schema is not re-checked", func(t *testing.T) {
		reg := NewRegistry()
		MustAddTool(reg, Tool{Name: "exact"}, func(context.Context, struct{}) (exactOut, error) { return exactOut{N: 1}, nil })
		x, sr := newExec(reg, reg)
		res, err := x.Call(context.Background(), CallRequest{Name: "exact"})
		require.NoError(t, err)
		assert.Zero(t, outputSpans(sr))

		// And the skip was safe: the output, zero values and all, passes
		// the inferred schema when checked by hand.
		tool, _ := reg.LookupTool("exact", "")
		v, err := schema.JSONValue(res.StructuredContent)
		require.NoError(t, err)
		fs, _ := x.compiled(&tool, true).Validate(v)
		assert.Empty(t, fs)
		p := 2.5
		full := exactOut{N: -3, S: "s", P: &p, L: []string{"a"}, B: []byte{1}, T: time.Now(), Raw: json.RawMessage(`[1]`), Any: map[string]any{"k": 1}}
		data, err := json.Marshal(full)
		require.NoError(t, err)
		v, err = schema.JSONValue(json.RawMessage(data))
		require.NoError(t, err)
		fs, _ = x.compiled(&tool, true).Validate(v)
		assert.Empty(t, fs)
	})

	t.Run("a nil map is caught: maps are always checked", func(t *testing.T) {
		reg := NewRegistry()
		MustAddTool(reg, Tool{Name: "maps"}, func(context.Context, struct{}) (struct {
			M map[string]int `json:"m"`
		}, error) {
			return struct {
				M map[string]int `json:"m"`
			}{}, nil
		})
		x, sr := newExec(reg, reg)
		_, err := x.Call(context.Background(), CallRequest{Name: "maps"})
		e, ok := AsError(err)
		require.True(t, ok, "null where the schema says object: %v", err)
		assert.Equal(t, StageValidate, e.Stage)
		assert.Equal(t, 1, outputSpans(sr))
	})

	t.Run("a host's own output schema is always checked", func(t *testing.T) {
		reg := NewRegistry()
		MustAddTool(reg, Tool{Name: "own", OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":5}}}`)},
			func(context.Context, struct{}) (exactOut, error) { return exactOut{N: 1}, nil })
		x, sr := newExec(reg, reg)
		_, err := x.Call(context.Background(), CallRequest{Name: "own"})
		require.Error(t, err, "n=1 breaks the host's minimum")
		assert.Equal(t, 1, outputSpans(sr))
	})

	t.Run("a provider serving another schema for the same name is checked against it", func(t *testing.T) {
		reg := NewRegistry()
		MustAddTool(reg, Tool{Name: "exact"}, func(context.Context, struct{}) (exactOut, error) { return exactOut{N: 1}, nil })
		provider := StaticTools{{Name: "exact", OutputSchema: json.RawMessage(`{"type":"object","required":["missing"]}`)}}
		x, sr := newExec(provider, reg)
		_, err := x.Call(context.Background(), CallRequest{Name: "exact"})
		require.Error(t, err)
		assert.Equal(t, 1, outputSpans(sr))
	})
}

type namedBytes []byte
type myByte uint8
type Base struct {
	X int `json:"x"`
}

func TestEncodesExactlyRefusesWhatWritesOtherwise(t *testing.T) {
	for typ, why := range map[reflect.Type]string{
		reflect.TypeFor[struct{ B namedBytes }]():  "written as base64, described as integers",
		reflect.TypeFor[struct{ B []myByte }]():    "written as base64, described as integers",
		reflect.TypeFor[struct{ N json.Number }](): "written as a number, described as a string",
		reflect.TypeFor[struct{ *Base }]():         "a nil embedded pointer drops required fields",
	} {
		assert.False(t, encodesExactly(typ, map[reflect.Type]bool{}), "%s: %s", typ, why)
	}
	assert.True(t, encodesExactly(reflect.TypeFor[struct{ B []byte }](), map[reflect.Type]bool{}))
	assert.True(t, encodesExactly(reflect.TypeFor[struct{ A [4]byte }](), map[reflect.Type]bool{}), "arrays are written as arrays")
}
