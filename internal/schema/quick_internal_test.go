package schema

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/rawjson"
)

// quickSchemas are schemas of quick's shape, as tools declare them.
var quickSchemas = []string{
	`{"additionalProperties":false,"properties":{"id":{"description":"The item's id.","type":"integer"}},"required":["id"],"type":"object"}`,
	`{"type":"object","properties":{"q":{"type":"string","title":"Query"},"n":{"type":"number","default":1},"on":{"type":"boolean"},"maybe":{"type":["string","null"]}},"required":["q","n"]}`,
	`{"type":"object","properties":{"any":{"type":["object","array"]}},"additionalProperties":true}`,
	`{"type":"object"}`,
}

func TestQuickShapes(t *testing.T) {
	for _, s := range quickSchemas {
		assert.NotNil(t, quickOf([]byte(s)), s)
	}
	for _, s := range []string{
		`{"properties":{"id":{"type":"integer"}}}`,                                 // no type: any value passes properties
		`{"type":["object","null"],"properties":{}}`,                               // null passes
		`{"type":"object","properties":{"id":{"type":"integer","minimum":1}}}`,     // a bound
		`{"type":"object","properties":{"s":{"type":"string","format":"email"}}}`,  // a format
		`{"type":"object","properties":{"s":{"enum":["a"]}}}`,                      // no type, an enum
		`{"type":"object","properties":{"s":true}}`,                                // a boolean schema
		`{"type":"object","additionalProperties":{"type":"string"}}`,               // a schema for the others
		`{"type":"object","patternProperties":{"^x":{"type":"string"}}}`,           // another keyword
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,    // a draft named
		`{"type":"object","properties":{"id":{"type":"integer"}},"required":"id"}`, // not a list
		`{"type":"object","properties":{"id":{"type":"whole"}}}`,                   // no such type
		`[1]`,
	} {
		assert.Nil(t, quickOf([]byte(s)), s)
	}
}

// quickValues are arguments of every kind quick meets.
var quickValues = []string{
	`{"id":4242}`, `{"id":1.0}`, `{"id":1.5}`, `{"id":"4242"}`, `{"id":null}`, `{}`, `{"id":1,"x":2}`,
	`{"id":123456789012345678901234567890}`, `{"id":1e400}`, `{"id":{"a":1}}`, `{"id":[1]}`,
	`{"q":"a","n":1}`, `{"q":"a","n":1.25,"on":true,"maybe":null}`, `{"q":"a","n":true}`, `{"q":"a"}`,
	`{"q":"a","n":1,"maybe":"b","extra":{"deep":[1,2,{"x":1e999999}]}}`, `{"q":"a","n":1,"extra":9999999999999999999999999}`,
	`{"any":{"x":1}}`, `{"any":[1,2]}`, `{"any":"no"}`, `{"any":{"n":123456789012345678901234567890e10}}`,
	`[]`, `"text"`, `null`, `3`,
}

// Whatever quick decides, a Compiled answers exactly what the validator
// answers: quick only ever accepts what the validator accepts.
func TestQuickAnswersWhatTheValidatorAnswers(t *testing.T) {
	for _, s := range quickSchemas {
		c := compiled(t, s)
		require.NotNil(t, c.quick, s)
		for _, raw := range quickValues {
			checkAgreement(t, c, []byte(raw))
		}
	}
}

func FuzzQuickAgreesWithTheValidator(f *testing.F) {
	for i := range quickSchemas {
		for _, v := range quickValues {
			f.Add(i, []byte(v))
		}
	}
	cs := make([]*Compiled, len(quickSchemas))
	for i, s := range quickSchemas {
		cs[i] = compiled(f, s)
	}
	f.Fuzz(func(t *testing.T, i int, raw []byte) {
		if i < 0 || !json.Valid(raw) || len(raw) > 1<<12 {
			return
		}
		checkAgreement(t, cs[i%len(cs)], raw)
	})
}

// compiled is s compiled as the cache compiles a tool's schema.
func compiled(t testing.TB, s string) *Compiled {
	var c Cache
	e := c.Get(Key{Name: "t"}, []byte(s))
	require.NoError(t, e.Err())
	return e
}

// checkAgreement checks that c validates the JSON value raw as the
// validator alone does.
func checkAgreement(t *testing.T, c *Compiled, raw []byte) {
	t.Helper()
	v, err := rawjson.DecodeValue(raw)
	require.NoError(t, err)
	wantFs, wantN := Validate(c.schema, v)
	gotFs, gotN := c.Validate(v)
	assert.Equal(t, wantFs, gotFs, "%s against %s", raw, c.raw)
	assert.Equal(t, wantN, gotN, "%s against %s", raw, c.raw)
	if c.quick.accepts(v) {
		assert.Empty(t, wantFs, "quick accepted %s, which fails %s", raw, c.raw)
	}
}
