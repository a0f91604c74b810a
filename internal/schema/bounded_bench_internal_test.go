package schema

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/rawjson"
)

// BenchmarkValidate measures Validate ("walk": the bounded walk on large
// instances) against the library's full error tree ("library": what
// Validate did before), on the bench tools' valid arguments, a large valid
// body and the densest failures, 256 KiB. The figures docs/security.md
// states come from it: go test -run '^$' -bench BenchmarkValidate ./internal/schema
func BenchmarkValidate(b *testing.B) {
	for _, c := range []struct{ name, schema, body string }{
		{"add valid 13 B", `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`, `{"a":1,"b":2}`},
		{"sum valid 256 KB", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}`, `{"a":[` + strings.Repeat(`1,`, 130000) + `1]}`},
		{"one failure per 3 bytes 256 KB", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`, string(failureDense(256<<10, `""`))},
		{"one failure per 3 bytes, anyOf 256 KB", `{"type":"object","properties":{"a":{"anyOf":[{"type":"array","items":{"type":"integer"}},{"type":"string"}]}}}`, string(failureDense(256<<10, `""`))},
		{"multipleOf failures 256 KB", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"number","multipleOf":0.5}}}}`, string(failureDense(256<<10, `1.25`))},
	} {
		sch, err := Compile([]byte(c.schema))
		require.NoError(b, err)
		v, err := rawjson.DecodeValue([]byte(c.body))
		require.NoError(b, err)
		for _, f := range []struct {
			name     string
			validate func(*jsonschema.Schema, any) ([]Failure, int)
		}{{"walk", Validate}, {"library", libraryFailures}} {
			b.Run(c.name+"/"+f.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.body)))
				b.ReportAllocs()
				for b.Loop() {
					f.validate(sch, v)
				}
			})
		}
	}
}
