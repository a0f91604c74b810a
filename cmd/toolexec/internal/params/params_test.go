package params

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
)

func TestSchema_FromParameters(t *testing.T) {
	lo, hi := 1.0, 5.0
	s := Schema([]*config.Param{
		{Name: "q", Type: config.TypeString, Description: "query", Required: true, AllowedValues: []any{"a", "b"}},
		{Name: "n", Type: config.TypeInteger, MinValue: &lo, MaxValue: &hi, HasDefault: true, Default: 3.0},
		{Name: "ids", Type: config.TypeArray, Required: true, Items: &config.Param{Type: config.TypeFloat}},
		{Name: "m", Type: config.TypeMap, ValueType: config.TypeBoolean},
	})
	assert.JSONEq(t, `{
		"type": "object", "additionalProperties": false, "required": ["q", "ids"],
		"properties": {
			"q": {"type": "string", "description": "query", "enum": ["a", "b"]},
			"n": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3},
			"ids": {"type": "array", "items": {"type": "number"}},
			"m": {"type": "object", "additionalProperties": {"type": "boolean"}}
		}}`, string(s))
}

func TestValue_Conversions(t *testing.T) {
	cases := []struct {
		p    *config.Param
		in   any
		want any
	}{
		{&config.Param{Name: "i", Type: config.TypeInteger}, 42.0, int64(42)},
		{&config.Param{Name: "i", Type: config.TypeInteger}, json.Number("9007199254740993"), int64(9007199254740993)},
		{&config.Param{Name: "f", Type: config.TypeFloat}, 1.5, 1.5},
		{&config.Param{Name: "b", Type: config.TypeBoolean}, true, true},
		{&config.Param{Name: "s", Type: config.TypeString}, "x", "x"},
		{&config.Param{Name: "a", Type: config.TypeArray, Items: &config.Param{Type: config.TypeInteger}}, []any{1.0, 2.0}, []any{int64(1), int64(2)}},
		{&config.Param{Name: "d", Type: config.TypeString, HasDefault: true, Default: "dflt"}, nil, "dflt"},
		{&config.Param{Name: "o", Type: config.TypeString}, nil, nil},
	}
	for _, c := range cases {
		args := map[string]any{}
		if c.in != nil {
			args[c.p.Name] = c.in
		}
		got, err := Value(c.p, args)
		require.NoError(t, err, c.p.Name)
		assert.Equal(t, c.want, got, c.p.Name)
	}
	_, err := Value(&config.Param{Name: "i", Type: config.TypeInteger}, map[string]any{"i": json.Number("99999999999999999999")})
	assert.ErrorContains(t, err, "64-bit")
	_, err = Value(&config.Param{Name: "i", Type: config.TypeInteger}, map[string]any{"i": "1"})
	assert.Error(t, err, "a wrong type that slipped past validation is still refused")
}

func TestSchema_PropertiesInDeclaredOrder(t *testing.T) {
	ps := []*config.Param{
		{Name: "zeta", Type: config.TypeString, Required: true},
		{Name: "alpha", Type: config.TypeInteger},
		{Name: "mid", Type: config.TypeBoolean, Required: true},
	}
	s := string(Schema(ps))
	assert.Less(t, strings.Index(s, `"zeta"`), strings.Index(s, `"alpha"`), s)
	assert.Less(t, strings.Index(s, `"alpha"`), strings.Index(s, `"mid"`), s)
	assert.JSONEq(t, `{"type":"object","additionalProperties":false,"required":["zeta","mid"],"properties":{
		"zeta":{"type":"string"},"alpha":{"type":"integer"},"mid":{"type":"boolean"}}}`, s)
}

func TestSchema_AllowedPatternReplacesEnum(t *testing.T) {
	cfg, err := config.Parse([]byte(`
sources: {db: {kind: sqlite, database: x.db}}
tools:
  t:
    kind: sqlite-sql
    source: db
    description: d
    statement: SELECT ?
    parameters: [{name: p, type: string, description: p, allowedValues: ["^[a-z]+$", "x.y", "a b"]}]
`), "t.yaml", t.TempDir(), nil)
	require.NoError(t, err)
	s := Schema(cfg.Tools[0].Parameters)
	var m map[string]any
	require.NoError(t, json.Unmarshal(s, &m))
	p := m["properties"].(map[string]any)["p"].(map[string]any)
	assert.Equal(t, `^(?:(?:^[a-z]+$)|(?:x.y)|a b)$`, p["pattern"])
	assert.NotContains(t, p, "enum")
}
