package params

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

func TestBounds_RefusesWhatNoDriverCanBind(t *testing.T) {
	ic := Bounds([]*config.Param{
		{Name: "i", Type: config.TypeInteger},
		{Name: "f", Type: config.TypeFloat},
		{Name: "a/b", Type: config.TypeArray, Items: &config.Param{Type: config.TypeInteger}},
		{Name: "s", Type: config.TypeString},
	})
	require.NotNil(t, ic)
	ran := false
	h := ic(func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
		ran = true
		return &toolexec.CallToolResult{}, nil
	})
	run := func(args map[string]any) error {
		ran = false
		_, err := h(context.Background(), &toolexec.Call{Arguments: args})
		return err
	}
	for _, ok := range []map[string]any{
		{},
		{"i": 42.0, "f": 1e308, "a/b": []any{1.0, -9.223372036854775808e18}, "s": "x"},
		{"i": json.Number("9223372036854775807")},
		{"i": json.Number("-9223372036854775808")},
		{"f": json.Number("1e-400")},
	} {
		require.NoError(t, run(ok), "%v", ok)
		assert.True(t, ran)
	}
	for args, path := range map[string]string{
		`{"i": 9223372036854775808}`:         "/i",
		`{"i": 99999999999999999999}`:        "/i",
		`{"i": -9223372036854775809}`:        "/i",
		`{"f": 1e400}`:                       "/f",
		`{"a/b": [1, 18446744073709551616]}`: "/a~1b/1",
	} {
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(args))
		d.UseNumber()
		require.NoError(t, d.Decode(&m))
		for k, v := range m { // the library decodes exact floats as float64
			m[k] = floatIfExact(v)
		}
		err := run(m)
		e, ok := toolexec.AsError(err)
		require.True(t, ok, args)
		assert.False(t, ran, "the handler did not run: %s", args)
		assert.Equal(t, toolexec.StageValidate, e.Stage)
		assert.Equal(t, toolexec.CodeInvalidArguments, e.Code)
		require.Len(t, e.Failures, 1)
		assert.Equal(t, path, e.Failures[0].Path, args)
	}
	assert.Nil(t, Bounds([]*config.Param{{Name: "s", Type: config.TypeString}}), "nothing to check")
}

// floatIfExact turns a json.Number that float64 holds exactly into a
// float64, as the library's decoder does.
func floatIfExact(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err == nil && strconv.FormatFloat(f, 'f', -1, 64) == string(v) {
			return f
		}
		return v
	case []any:
		for i := range v {
			v[i] = floatIfExact(v[i])
		}
	}
	return v
}
