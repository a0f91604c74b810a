package rawjson

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestArgumentsKeepNumbersAsSent(t *testing.T) {
	args, err := DecodeObject([]byte(`{"small":42,"dec":0.5,"exp":1e20,"max":9007199254740992,` +
		`"big":9007199254740993,"huge":12345678901234567891,"inf":1e400,"neg":-9007199254740993,"list":[1,18446744073709551616],"obj":{"n":3}}`))
	require.NoError(t, err)
	assert.Equal(t, 42.0, args["small"])
	assert.Equal(t, 0.5, args["dec"])
	assert.Equal(t, 1e20, args["exp"])
	assert.Equal(t, 9007199254740992.0, args["max"], "2^53 is still exact")
	assert.Equal(t, json.Number("9007199254740993"), args["big"], "beyond 2^53 float64 would round: kept as sent")
	assert.Equal(t, json.Number("12345678901234567891"), args["huge"])
	assert.Equal(t, json.Number("1e400"), args["inf"], "out of float64's range: kept, not refused")
	assert.Equal(t, json.Number("-9007199254740993"), args["neg"])
	assert.Equal(t, []any{1.0, json.Number("18446744073709551616")}, args["list"])
	assert.Equal(t, map[string]any{"n": 3.0}, args["obj"])

	args, err = DecodeObject([]byte(`{"a":0.1,"b":0.100000000000000001,"c":0.30000000000000004,"d":1.0,"e":5e-324,"f":1e-400,"g":123456789012345.6}`))
	require.NoError(t, err)
	assert.Equal(t, 0.1, args["a"])
	assert.Equal(t, json.Number("0.100000000000000001"), args["b"], "more precision than float64 keeps: kept as sent")
	assert.Equal(t, 0.30000000000000004, args["c"], "float64's own shortest form round-trips")
	assert.Equal(t, 1.0, args["d"])
	assert.Equal(t, 5e-324, args["e"])
	assert.Equal(t, json.Number("1e-400"), args["f"], "below float64's range: kept, not turned into 0")
	assert.Equal(t, 123456789012345.6, args["g"])
}

func TestSignificantDigits(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "7": 1, "-12.5e3": 3, "0.00120": 3, "100": 3, "9007199254740993": 16, "1E+20": 1} {
		assert.Equal(t, want, significantDigits(s), s)
	}
}

func TestMayHoldInexactNumber(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"a":1,"b":-2.5,"c":[123456789012345]}`:    false,
		`{"a":1234567890123456}`:                    true,
		`{"a":1.23456789012345678}`:                 true,
		`{"a":1e3}`:                                 true,
		`{"a":"1234567890123456789 in a string"}`:   false,
		`{"a":"e and E in a string","b":1}`:         false,
		`{"a":"escaped \" quote 1e400","b":true}`:   false,
		`{"12345678901234567":"a key is a string"}`: false,
	} {
		assert.Equal(t, want, MayHoldInexactNumber([]byte(raw)), raw)
	}
}

func TestSubnormalNumbersAreNotRounded(t *testing.T) {
	args, err := DecodeObject([]byte(`{"a":3e-324,"b":7e-324,"c":1.23456789012345e-310,"d":5e-324,"e":2.2250738585072014e-308}`))
	require.NoError(t, err)
	assert.Equal(t, json.Number("3e-324"), args["a"])
	assert.Equal(t, json.Number("7e-324"), args["b"])
	assert.Equal(t, json.Number("1.23456789012345e-310"), args["c"])
	assert.Equal(t, 5e-324, args["d"], "float64's own smallest value reads back the same")
	assert.Equal(t, 2.2250738585072014e-308, args["e"])
}
