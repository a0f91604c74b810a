package schema

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkedSchemas are schemas made only of keywords the bounded walk takes
// apart: on them the walk must list exactly what the library lists.
var walkedSchemas = []string{
	// The bench tools' inferred schemas.
	`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`,
	`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}`,
	// The hostile tests' schemas.
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`,
	`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"array","items":{"type":"number","multipleOf":0.5}}},"additionalProperties":false}`,
	`{"type":"object","properties":{"n":{"type":"integer"},"x":{"type":"array","items":{"type":"number","multipleOf":0.5,"minimum":0}}}}`,
	// Nested objects and arrays, every object and string keyword.
	`{"type":"object","required":["id","tags"],"minProperties":1,"maxProperties":4,
	  "properties":{
	    "id":{"type":"string","minLength":2,"maxLength":5,"pattern":"^[a-z]+$"},
	    "tags":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string","format":"email"}},
	    "o":{"type":"object","properties":{"n":{"type":["integer","null"],"minimum":0,"maximum":10,"exclusiveMaximum":5}},
	         "additionalProperties":{"type":"boolean"}}},
	  "patternProperties":{"^[0-9]+$":{"type":"number"},"^[0-9a]$":{"type":"integer","maximum":1}},
	  "additionalProperties":false,
	  "dependentRequired":{"a":["b","c"],"x":["c"]}}`,
	// enum, const and $ref to scalars.
	`{"type":"object","properties":{"e":{"enum":["a",1,null]},"c":{"const":"abc"},"r":{"$ref":"#/$defs/pos"},
	  "l":{"type":"array","items":{"$ref":"#/$defs/pos"}},"m":{"type":"array","items":{"enum":[1,2,"x"]}}},
	  "$defs":{"pos":{"type":"number","exclusiveMinimum":0}}}`,
	// uniqueItems, enum and const of numbers.
	`{"type":"array","uniqueItems":true,"items":{"type":["integer","string"],"maxLength":3}}`,
	`{"type":"object","properties":{"u":{"type":"array","uniqueItems":true,"items":{"enum":[1,2.5,3,"a",true,null]}},"k":{"const":10},"z":{"const":null}}}`,
	// prefixItems.
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`,
	`{"type":"array","prefixItems":[{"type":"string"},{"type":"object","required":["a"]}],"items":{"type":"boolean"},"minItems":2}`,
	// A recursive schema through $ref.
	`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["v"]}},
	  "$ref":"#/$defs/node"}`,
	// $ref with siblings at the same value.
	`{"$defs":{"base":{"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":1}}}},
	  "$ref":"#/$defs/base","properties":{"id":{"maximum":5},"name":{"type":"string"}},"required":["name"]}`,
	// 2019-09 tuples.
	`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`,
	`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"array","items":[{"type":"string"},{"type":"string"}],"additionalItems":false}`,
	// Draft-07, $ref replacing its siblings, and draft-04.
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"s":{"type":"string","maxLength":2},"o":{"required":["yy"],"properties":{"v":{"type":"integer"}}}},
	  "properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false},"b":{"type":"array","items":{"$ref":"#/definitions/s"}},
	    "c":{"$ref":"#/definitions/s","minLength":5},"d":{"type":"object","$ref":"#/definitions/o","required":["zz"]}},"required":["a"]}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true},"a":{"type":"array","items":{"type":"integer"}}},"additionalProperties":false}`,
	// Boolean schemas and untyped containers.
	`{"properties":{"t":true,"f":false,"a":{"items":{"type":"string"}}},"additionalProperties":{"type":"array"}}`,
}

// otherSchemas have keywords the walk does not take apart: on a large
// value it only decides validity.
var otherSchemas = []string{
	`{"type":"object","properties":{"u":{"type":"array","uniqueItems":true},"any":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"integer"}}]}}}`,
	`{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"object","required":["a"]}]}`,
	`{"oneOf":[{"type":"array","items":{"type":"integer"}},{"type":"array","items":{"type":"number"}}]}`,
	`{"type":"array","items":{"not":{"type":"string"}},"contains":{"type":"integer"}}`,
	`{"if":{"type":"object","required":["a"]},"then":{"properties":{"a":{"type":"array","items":{"type":"string"}}}},"else":{"type":"array","maxItems":3}}`,
	`{"allOf":[{"type":"object"},{"properties":{"a":{"type":"array"}}}],"unevaluatedProperties":false}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}],"additionalItems":false}},"dependencies":{"a":["b"]}}`,
	`{"type":"object","properties":{"a":{"type":"array","contains":{"type":"integer"},"items":{"type":["integer","string"]}}},"dependentSchemas":{"a":{"required":["b"]}}}`,
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"propertyNames":{"maxLength":3},"enum":[{"a":[1]},{"b":2}]}`,
	`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"type":"array","items":{"$ref":"#/$defs/a"}}`,
	`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"anyOf":[{"required":["a"]},{"required":["b"]}],"unevaluatedProperties":false}`,
	`{"type":"array","prefixItems":[{"type":"string"}],"allOf":[{"prefixItems":[true,{"type":"integer"}]}],"unevaluatedItems":false}`,
	`{"type":"array","contains":{"type":"string"},"minContains":2,"maxContains":4,"items":{"oneOf":[{"type":"string"},{"type":"array","contains":{"type":"object"},"minContains":0}]}}`,
	`{"type":"object","propertyNames":{"pattern":"^[a-z]+$"},"dependencies":{"b":{"required":["c"]},"x":["a"]},"properties":{"a":{"not":{"type":"array","items":{"type":"string"}}}}}`,
}

// genValue generates a small JSON value of the validator's model from r,
// with the names and values the schemas above look at.
func genValue(r *rand.Rand, depth int) any {
	names := []string{"a", "b", "c", "d", "k", "z", "yy", "x", "n", "id", "tags", "o", "e", "r", "l", "m", "t", "f", "u", "v", "kids", "name", "sum", "any", "10", "2", "~/", "é"}
	k := r.IntN(10)
	if depth >= 4 {
		k = r.IntN(6)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return []any{0.0, 1.0, -1.0, 1.5, 3.0, 10.0, 1e3, 0.25, 5.0, 1e21}[r.IntN(10)]
	case 3:
		return json.Number([]string{"2.50", "1", "0.1", "-0", "7e1", "1.0000000000000000001"}[r.IntN(6)])
	case 4, 5:
		return []string{"", "a", "abc", "abcdef", "ABC", "x@y.z", "not an email", "ééé", strings.Repeat("z", 40)}[r.IntN(9)]
	case 6, 7:
		n := r.IntN(8)
		if r.IntN(4) == 0 {
			n = r.IntN(40)
		}
		a := make([]any, n)
		for i := range a {
			a[i] = genValue(r, depth+1)
		}
		return a
	default:
		m := map[string]any{}
		for range r.IntN(7) {
			m[names[r.IntN(len(names))]] = genValue(r, depth+1)
		}
		return m
	}
}

// libraryFailures is what the library alone lists for v: the answer before
// the bounded walk.
func libraryFailures(sch *jsonschema.Schema, v any) ([]Failure, int) {
	err := sch.Validate(v)
	if err == nil {
		return nil, 0
	}
	return boundFailures(validationFailures(err))
}

func compileAll(t testing.TB, srcs []string) []*jsonschema.Schema {
	out := make([]*jsonschema.Schema, len(srcs))
	for i, src := range srcs {
		sch, err := Compile([]byte(src))
		require.NoError(t, err, src)
		out[i] = sch
	}
	return out
}

// checkBounded asserts the walk's answer on v against the library's: the
// same failures and count on a walked schema, the same validity on any.
func checkBounded(t *testing.T, sch *jsonschema.Schema, walked bool, v any) {
	if hasUncheckableNumber(v) {
		return // refused before validation, never handed to either
	}
	want, wantOmitted := libraryFailures(sch, v)
	for _, limit := range []int{0, 2} {
		got, omitted := boundFailures(validateBounded(sch, v, limit))
		if walked {
			require.Equal(t, want, got, "limit %d, instance %s", limit, show(v))
			require.Equal(t, wantOmitted, omitted, "limit %d, instance %s", limit, show(v))
		} else {
			require.Equal(t, len(want)+wantOmitted == 0, len(got)+omitted == 0, "validity, limit %d, instance %s, library %v, walk %v", limit, show(v), want, got)
		}
	}
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// TestTheBoundedWalkListsWhatTheLibraryLists: on random instances the
// walk, forced on every container, gives the library's failures, paths,
// keywords, messages and omitted count exactly on walked schemas, and its
// validity on the others.
func TestTheBoundedWalkListsWhatTheLibraryLists(t *testing.T) {
	walked, others := compileAll(t, walkedSchemas), compileAll(t, otherSchemas)
	r := rand.New(rand.NewPCG(1, 2))
	for range 800 {
		v := genValue(r, 0)
		for _, sch := range walked {
			checkBounded(t, sch, true, v)
		}
		for _, sch := range others {
			checkBounded(t, sch, false, v)
		}
	}
}

// TestTheBoundedWalkKeepsTheFirstFailuresOfManyAndCountsTheRest: more than
// MaxFailures failures, in every order the walk may meet them.
func TestTheBoundedWalkKeepsTheFirstFailuresOfManyAndCountsTheRest(t *testing.T) {
	walked := compileAll(t, walkedSchemas)
	for _, body := range hostileBodies() {
		v, err := DecodeJSON([]byte(body))
		require.NoError(t, err)
		for _, sch := range walked {
			checkBounded(t, sch, true, v)
		}
	}
}

// hostileBodies are the bodies of the hostile tests, small enough for the
// library to validate them in a test.
func hostileBodies() []string {
	var many strings.Builder
	many.WriteString(`{"a":[`)
	for i := range 500 {
		if i > 0 {
			many.WriteByte(',')
		}
		fmt.Fprintf(&many, `{"n":"%d","%d":true}`, i, i)
	}
	many.WriteString(`]}`)
	obj := map[string]any{}
	for i := range 300 {
		obj[fmt.Sprintf("k%d", i)] = ""
		obj[fmt.Sprint(i)] = "x"
	}
	objBody, _ := json.Marshal(obj)
	return []string{
		`{"a":[` + strings.Repeat(`"",`, 300) + `""]}`,
		`{"x":[` + strings.Repeat(`"",`, 300) + `""],"n":"x","extra":1}`,
		`{"x":[` + strings.Repeat(`1.25,`, 300) + `1]}`,
		`[` + strings.Repeat(`"abc",`, 200) + strings.Repeat(`{"v":"1","kids":[{"v":2},{}]},`, 100) + `1]`,
		many.String(),
		string(objBody),
		`{"n":1,"x":[1e-999999,1e-999999]}`,
		strings.Repeat(`[`, 1000) + strings.Repeat(`]`, 1000),
		`{"kids":[` + strings.Repeat(`{"kids":[{"v":"s"}]},`, 200) + `{}],"v":1}`,
	}
}

// FuzzBoundedWalk is the differential test's fuzz target: a schema of
// either list and an instance, the JSON fuzzed or generated from a seed.
func FuzzBoundedWalk(f *testing.F) {
	for i, body := range hostileBodies() {
		f.Add(uint8(i), uint64(i), []byte(body))
	}
	f.Add(uint8(0), uint64(7), []byte(`{"a":1,"b":2}`))
	f.Add(uint8(20), uint64(9), []byte(`not json`))
	walked, others := compileAll(f, walkedSchemas), compileAll(f, otherSchemas)
	f.Fuzz(func(t *testing.T, which uint8, seed uint64, raw []byte) {
		i := int(which) % (len(walked) + len(others))
		sch, isWalked := (*jsonschema.Schema)(nil), i < len(walked)
		if isWalked {
			sch = walked[i]
		} else {
			sch = others[i-len(walked)]
		}
		if v, err := DecodeJSON(raw); err == nil {
			checkBounded(t, sch, isWalked, v)
		}
		checkBounded(t, sch, isWalked, genValue(rand.New(rand.NewPCG(seed, seed>>7)), 0))
	})
}

// TestALargeValueFailingACombinatorIsOneFailure: what the walk lists for a
// large value it does not take apart.
func TestALargeValueFailingACombinatorIsOneFailure(t *testing.T) {
	sch, err := Compile([]byte(`{"type":"object","properties":{"a":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"string"}]}}}`))
	require.NoError(t, err)
	v, err := DecodeJSON([]byte(`{"a":[` + strings.Repeat(`"",`, 1000) + `""]}`))
	require.NoError(t, err)
	fs, omitted := Validate(sch, v)
	assert.Equal(t, []Failure{{Path: "/a", Message: tooLargeMessage, Keyword: "schema"}}, fs)
	assert.Zero(t, omitted)

	v, err = DecodeJSON([]byte(`{"a":[` + strings.Repeat(`1,`, 1000) + `1]}`))
	require.NoError(t, err)
	fs, omitted = Validate(sch, v)
	assert.Empty(t, fs)
	assert.Zero(t, omitted)
}
