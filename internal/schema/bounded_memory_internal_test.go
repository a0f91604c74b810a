package schema

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/rawjson"
)

// allocatedBy returns the bytes f allocates, the whole process counted:
// call it from a test that is not parallel.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// failureDense is an object whose array a holds n copies of item: with the
// schemas below, one failure per item.
func failureDense(size int, item string) []byte {
	n := (size - 16) / (len(item) + 1)
	return []byte(`{"a":[` + strings.Repeat(item+",", n-1) + item + `]}`)
}

// TestValidationMemoryIsBoundedOnFailureDenseBodies validates bodies that
// fail the schema in the most ways per byte, 256 KiB (1 MiB with
// TOOLEXEC_SOAK=1, as make soak runs it), and holds the bytes validation
// allocates to a constant, whatever the body's size: the library alone
// allocated ~270 bytes per byte of these bodies, its whole error tree. It
// does so for the shapes the walk takes apart and for some it does not
// (anyOf, unevaluatedProperties). Numbers checked against multipleOf (or
// minimum and the like) are the exception: exact rational arithmetic, as
// the library does it, allocates ~250 bytes per number, garbage at once,
// so their bound is per byte.
func TestValidationMemoryIsBoundedOnFailureDenseBodies(t *testing.T) {
	const constant = 512 << 10 // bytes allocated, at most, whatever the body

	size := 256 << 10
	if os.Getenv("TOOLEXEC_SOAK") != "" {
		size = 1 << 20
	}
	for _, c := range []struct {
		name, schema, item string
		perByte            float64 // bytes allocated per body byte, at most, beyond the constant
		listed, omitted    bool    // MaxFailures listed, and the rest counted
	}{
		{"type", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`, `""`, 0, true, true},
		{"minLength", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","minLength":1}}}}`, `""`, 0, true, true},
		{"enum", `{"type":"object","properties":{"a":{"type":"array","items":{"enum":["x","y"]}}}}`, `""`, 0, true, true},
		{"required", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","required":["id"]}}}}`, `{}`, 0, true, true},
		{"multipleOf", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number","multipleOf":0.5}}}}`, `1.25`, 96, true, true},
		{"unevaluatedProperties", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"unevaluatedProperties":false}`, `""`, 0, false, false},
		// Keywords only the library checks on a whole value: past
		// MaxLibraryNodes values, one "cannot be checked" failure.
		{"unevaluatedItems", `{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"}],"unevaluatedItems":{"type":"integer"}}}}`, `""`, 0, false, false},
		{"dynamicRef", `{"$dynamicAnchor":"node","type":"object","properties":{"a":{"type":"array","items":{"$dynamicRef":"#node"}}}}`, `""`, 0, false, false},
		{"anyOf", `{"type":"object","properties":{"a":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"string"}]}}}`, `""`, 0, false, false},
		// 1,000 levels of arrays, then the failures: the library cloned the
		// path, 1,000 tokens, into each of its errors; the walk holds the
		// paths of the failures it keeps only.
		{"deep", `{"$defs":{"n":{"type":"array","items":{"type":["array","integer"],"items":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `""`, 0, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			sch, err := Compile([]byte(c.schema))
			require.NoError(t, err)
			body := failureDense(size, c.item)
			if c.name == "deep" {
				body = []byte(strings.Repeat("[", 999) + string(body[5:len(body)-1]) + strings.Repeat("]", 999))
			}
			v, err := rawjson.DecodeValue(body)
			require.NoError(t, err)
			var fs []Failure
			var omitted int
			n := allocatedBy(func() { fs, omitted = Validate(sch, v) })
			t.Logf("%d-byte body: %d bytes allocated (%.2f per byte), %d failures listed, %d omitted", len(body), n, float64(n)/float64(len(body)), len(fs), omitted)
			bound := c.perByte*float64(len(body)) + constant
			if c.name == "deep" {
				bound += MaxFailures * 1000 * 8 // the paths of the failures kept, 1,000 tokens each
			}
			assert.Less(t, float64(n), bound, "bytes allocated")
			require.NotEmpty(t, fs)
			if c.listed {
				assert.Len(t, fs, MaxFailures)
				assert.True(t, strings.HasPrefix(fs[0].Path, "/a/0"), fs[0].Path)
			}
			assert.Equal(t, c.omitted, omitted > 0)
			switch c.name {
			case "unevaluatedItems":
				assert.Equal(t, []Failure{{Path: "/a", Message: uncheckableMessage, Keyword: "schema"}}, fs)
			case "dynamicRef":
				assert.Equal(t, []Failure{{Path: "", Message: uncheckableMessage, Keyword: "schema"}}, fs)
			case "unevaluatedProperties":
				// The failure is found before the whole-value check.
				assert.Equal(t, []Failure{{Path: "", Message: tooLargeMessage, Keyword: "schema"}}, fs)
			case "anyOf":
				assert.Equal(t, []Failure{{Path: "/a", Message: tooLargeMessage, Keyword: "schema"}}, fs)
			}
		})
	}
}

// TestValuesBeyondTheLibraryBoundAreRefusedUnchecked: a value that only the
// library can check whole is checked up to MaxLibraryNodes values, and past
// that refused as uncheckable, valid or not, rather than handed over.
func TestValuesBeyondTheLibraryBoundAreRefusedUnchecked(t *testing.T) {
	sch, err := Compile([]byte(`{"$dynamicAnchor":"node","type":"object","properties":{"a":{"type":"array","items":{"$dynamicRef":"#node"}}}}`))
	require.NoError(t, err)
	nested := func(n int) any { // {"a":[{},{},...]}: valid, 2+n values
		items := make([]any, n)
		for i := range items {
			items[i] = map[string]any{}
		}
		return map[string]any{"a": items}
	}
	fs, omitted := Validate(sch, nested(MaxLibraryNodes-2))
	assert.Empty(t, fs, "at the bound, checked as before")
	assert.Zero(t, omitted)
	fs, _ = Validate(sch, nested(MaxLibraryNodes-1))
	assert.Equal(t, []Failure{{Message: uncheckableMessage, Keyword: "schema"}}, fs)
}
