package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// compactAndEscape is what encoding/json writes for a json.RawMessage b,
// and whether it accepts b at all.
func compactAndEscape(b []byte) ([]byte, bool) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, false
	}
	var out bytes.Buffer
	json.HTMLEscape(&out, buf.Bytes())
	return out.Bytes(), true
}

var compactSeeds = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e-3`, `-12E+4`, `true`, `false`, `null`,
	`{"sum":3}`, `{"a":[1,2,{"b":null}],"c":"x\"y\\z\u00e9\n"}`, `[[[]]]`, `"\ud800"`, "\"\xff\xfe\"",
	`{"a":1} `, ` {"a":1}`, `{"a": 1}`, `[1, 2]`, `{"a":"<b>"}`, `"a&b"`, "\"\u2028\"", "\"\u2029\"", "\"\u2027\"",
	`01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `tru`, `nul`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[,]`, `{,}`,
	`"a`, `"\x"`, `"\u12"`, `"\u12G4"`, "\"\x01\"", `{"a":1}{}`, `{"a":1}x`, `{1:2}`, ``, ` `, "\ufeff{}",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

// TestIsCompactSafeMeansEncodingJSONLeavesItAlone checks the property the
// response writers rely on, and that the plain cases are recognized.
func TestIsCompactSafeMeansEncodingJSONLeavesItAlone(t *testing.T) {
	for _, s := range compactSeeds {
		out, valid := compactAndEscape([]byte(s))
		if IsCompactSafe([]byte(s)) {
			assert.True(t, valid, "%q", s)
			assert.Equal(t, s, string(out), "%q", s)
		} else if valid && string(out) == s && !strings.HasPrefix(s, strings.Repeat("[", 10000)) {
			t.Errorf("%q is compact and safe but not recognized", s)
		}
	}
	for _, s := range []string{`{}`, `{"sum":3}`, `{"a":[1,2,{"b":null}],"c":"x\"y\\z\u00e9\n"}`, "\"\xff\""} {
		assert.True(t, IsCompactSafe([]byte(s)), s)
	}
	assert.False(t, IsCompactSafe([]byte(strings.Repeat("[", 10001)+strings.Repeat("]", 10001))), "deeper than encoding/json accepts")
}

func FuzzIsCompactSafe(f *testing.F) {
	for _, s := range compactSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		out, valid := compactAndEscape(b)
		if IsCompactSafe(b) {
			if !valid || !bytes.Equal(out, b) {
				t.Fatalf("%q: recognized, but encoding/json writes %q (valid %v)", b, out, valid)
			}
		} else if valid && bytes.Equal(out, b) {
			t.Fatalf("%q is compact and safe but not recognized", b)
		}
	})
}
