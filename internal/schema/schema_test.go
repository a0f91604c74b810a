package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSchemasThatCannotCompileNeverPanic(t *testing.T) {
	for _, src := range []string{
		`not json`,
		`{"type": 5}`,
		`{"$ref": "#/$defs/missing"}`,
		`{"$ref": "https://example.com/remote.json"}`,
		`{"$ref": "file:///etc/passwd"}`,
		`{"$ref": "other.json"}`,
		`{"pattern": "(?=lookahead)"}`,
		`{"$schema": "https://example.com/unknown-draft"}`,
		`{"items": [{"type": "integer"}]}`,
		`[]`,
	} {
		sch, err := Compile([]byte(src))
		assert.Nil(t, sch, src)
		require.Error(t, err, src)
		assert.NotContains(t, err.Error(), "\n", src)
	}
}

func TestSchemasNeverReadFilesOrTheNetwork(t *testing.T) {
	_, err := Compile([]byte(`{"$ref": "file:///etc/hostname"}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "self-contained")
}
