package jsonwalk

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// validCases are inputs where a hand-written validator easily goes wrong.
var validCases = []string{
	// Empty, white space, and what is not JSON white space.
	"", " ", "\t\n\r ", "\v1", "\f1", "1\v", "\xef\xbb\xbf1", "\u00a01", "1\u0085", "\x00", "1\x00",
	// Literals.
	"true", "false", "null", " true ", "tru", "truee", "nul", "nulll", "fals", "True", "NULL", "t", "n", "f",
	// Numbers.
	"0", "-0", "1", "-", "--1", "+1", "01", "-01", "00", "1.", "1.5", ".5", "-.5", "1e", "1e+", "1e-", "1E5",
	"1e+5", "1e-05", "1.5e", "0.0", "0e0", "1.e5", "0x1", "1_000", "1 2", "123456789012345678901234567890",
	"-0.0e-0", "1ee5", "1e5.5", "1.5.5", "Infinity", "NaN", "-Infinity",
	// Strings.
	`""`, `"`, `"a`, `"\"`, `"\\"`, `"\/"`, `"\b\f\n\r\t"`, `"\a"`, `"\x41"`, `"\'"`, `"\u0041"`, `"\u00"`,
	`"\u00e9"`, `"\u00E9"`, `"\uD800"`, `"\uDC00"`, `"\uD800\uDC00"`, `"\uZZZZ"`, `"\u"`, `"\u123"`, `"\u123g"`,
	"\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\t\"", "\"\n\"", "\"\xff\"", "\"\xc3\"", "\"\xed\xa0\x80\"",
	"\"é\"", "'a'", `"a"b"`, `"\`, `"\u`, `"\u00`, `"\u0041`,
	// Objects.
	"{}", "{ }", "{", "}", `{"a":1}`, `{"a" : 1 }`, `{"a":}`, `{"a"}`, `{"a":1,}`, `{,}`, `{"a":1,"b":2}`,
	`{a:1}`, `{"a":1 "b":2}`, `{"a"::1}`, `{1:1}`, `{"a":1}}`, `{"a":{"b":{}}}`, `{"a":[}`, `{"a":1]`,
	// Arrays.
	"[]", "[ ]", "[", "]", "[1]", "[1,]", "[,1]", "[1,,2]", "[1 2]", "[[]]", "[[]", "[]]", "[{]}", `[""]`,
	"[1,[2,[3]]]", "[1]x", "[1] ", "[] []", "[]\x00",
	// Trailing garbage and more than one value.
	"1 x", `{} {}`, `"a" "b"`, "null,", "true]", "[true}",
}

// The table runs on every test run, fuzzing or not.
func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range validCases {
		assert.Equal(t, json.Valid([]byte(in)), Valid([]byte(in)), "%q", in)
	}
}

// The answers RFC 8259 and encoding/json give, stated, so a change of
// encoding/json would show here too.
func TestValidAnswers(t *testing.T) {
	for in, want := range map[string]bool{
		` {"a":[1,-0,1.5e+3,true,false,null,"\"\u00e9\/"]} `: true,
		"\"\xff\xfe\"":   true, // bytes that are not UTF-8, inside a string
		`"\uD800"`:       true, // a lone surrogate, escaped
		"\"\x7f\"":       true,
		"":               false,
		"01":             false,
		"1.":             false,
		".5":             false,
		"+1":             false,
		"-":              false,
		"1e":             false,
		"1e+":            false,
		`"\u00"`:         false,
		"\"\x00\"":       false,
		"\"\t\"":         false,
		`"\a"`:           false,
		"\xef\xbb\xbf{}": false, // a byte order mark
		"\xff":           false,
		"[1,]":           false,
		`{"a":1,}`:       false,
		"1 2":            false,
		"{} x":           false,
	} {
		assert.Equal(t, want, Valid([]byte(in)), "%q", in)
	}
}

// Nesting is limited exactly where encoding/json limits it.
func TestValidNestingDepth(t *testing.T) {
	nest := map[string]func(depth int) []byte{
		"arrays": func(depth int) []byte {
			return []byte(strings.Repeat("[", depth) + strings.Repeat("]", depth))
		},
		"objects": func(depth int) []byte {
			return []byte(strings.Repeat(`{"a":`, depth) + "0" + strings.Repeat("}", depth))
		},
		"both": func(depth int) []byte {
			var open, close strings.Builder
			for d := range depth {
				if d%2 == 0 {
					open.WriteString(`[1,`)
					close.WriteString(`]`)
				} else {
					open.WriteString(`{"a":`)
					close.WriteString(`}`)
				}
			}
			c := []byte(close.String())
			for l, r := 0, len(c)-1; l < r; l, r = l+1, r-1 {
				c[l], c[r] = c[r], c[l]
			}
			return append([]byte(open.String()+"0"), c...)
		},
	}
	for name, build := range nest {
		for _, depth := range []int{1, 2, 63, 64, 65, 128, MaxDepth - 1, MaxDepth, MaxDepth + 1, 3 * MaxDepth} {
			in := build(depth)
			require.Equal(t, depth <= MaxDepth, json.Valid(in), "encoding/json, %d levels of %s", depth, name)
			require.Equal(t, depth <= MaxDepth, Valid(in), "%d levels of %s", depth, name)
		}
	}
	// Depth returns to zero after each container: many shallow ones pass.
	wide := []byte("[" + strings.Repeat("[[]],", 3*MaxDepth) + "[]]")
	assert.True(t, Valid(wide))
}

// Bodies nested up to 256 levels are checked without allocating.
func TestValidAllocatesNothing(t *testing.T) {
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":40}}}`)
	assert.Zero(t, testing.AllocsPerRun(100, func() { Valid(body) }))
	deep := []byte(strings.Repeat("[", 256) + strings.Repeat("]", 256))
	assert.Zero(t, testing.AllocsPerRun(100, func() { Valid(deep) }))
}

// Valid must answer as encoding/json.Valid does, for every input.
func FuzzValidAgreesWithEncodingJSON(f *testing.F) {
	for _, in := range validCases {
		f.Add([]byte(in))
	}
	f.Add([]byte(strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)))
	f.Add([]byte(strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)))
	f.Add([]byte(strings.Repeat(`{"":`, MaxDepth) + "0" + strings.Repeat("}", MaxDepth)))
	f.Add([]byte(strings.Repeat(`{"":`, MaxDepth+1) + "0" + strings.Repeat("}", MaxDepth+1)))
	// The corpora of this package's and package mcp's other fuzz targets:
	// JSON-RPC bodies and the shapes that broke them before.
	for _, dir := range []string{"testdata/fuzz", "../../mcp/testdata/fuzz"} {
		for _, in := range corpusValues(f, dir) {
			f.Add(in)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := Valid(in), json.Valid(in); got != want {
			shown := in
			if len(shown) > 200 {
				shown = shown[:200]
			}
			t.Fatalf("Valid(%q, %d bytes) = %v, encoding/json.Valid says %v", shown, len(in), got, want)
		}
	})
}

// corpusValues returns every string and []byte value of the fuzz corpus
// files under dir (the testdata/fuzz layout of go test), or none when dir
// does not exist.
func corpusValues(tb testing.TB, dir string) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*", "*"))
	require.NoError(tb, err)
	var values [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		require.NoError(tb, err)
		lines := bufio.NewScanner(bytes.NewReader(data))
		lines.Buffer(nil, len(data)+1)
		for lines.Scan() {
			line := lines.Text()
			var quoted string
			switch {
			case strings.HasPrefix(line, "string(") && strings.HasSuffix(line, ")"):
				quoted = line[len("string(") : len(line)-1]
			case strings.HasPrefix(line, "[]byte(") && strings.HasSuffix(line, ")"):
				quoted = line[len("[]byte(") : len(line)-1]
			default:
				continue // the header, or a value of another type
			}
			s, err := strconv.Unquote(quoted)
			require.NoError(tb, err, "%s: %s", name, line)
			values = append(values, []byte(s))
		}
		require.NoError(tb, lines.Err(), name)
	}
	return values
}

// The corpora the fuzz target is seeded with are found and read.
func TestCorpusValuesReadsTheSeeds(t *testing.T) {
	assert.NotEmpty(t, corpusValues(t, "testdata/fuzz"))
	assert.NotEmpty(t, corpusValues(t, "../../mcp/testdata/fuzz"))
}
