package server

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const structuredTools = `
sources:
  db:
    kind: sqlite
    database: ":memory:"
tools:
  values:
    kind: sqlite-sql
    source: db
    description: one row of every kind of value, and a column name twice
    statement: >-
      SELECT 2 AS b, 'x<y>&"z"' AS a, 1234567.5 AS f, 0.0000001 AS tiny, 9007199254740993 AS big,
      NULL AS "null", X'FF00' AS blob, 'Stanisław' AS name, 'first' AS dup, 'last' AS dup, 1e300 AS huge
  many:
    kind: sqlite-sql
    source: db
    description: more rows than the cap
    maxRows: 2
    statement: SELECT 3 AS n UNION ALL SELECT 1 UNION ALL SELECT 2
  none:
    kind: sqlite-sql
    source: db
    description: no row
    statement: SELECT 1 AS n WHERE 0
`

// A SQL tool's structuredContent is written once, as JSON, in exactly the
// bytes json.Marshal writes for the maps it stands for (the form it had
// when it was built as maps): members in name order, a repeated column
// name once with its last value, numbers and strings as encoding/json
// writes them.
func TestSQL_StructuredContentIsWhatMarshalWrites(t *testing.T) {
	x := executor(build(t, structuredTools, nil, nil), Options{})
	for _, tool := range []string{"values", "many", "none"} {
		t.Run(tool, func(t *testing.T) {
			res, err := call(t, x, tool, nil)
			require.NoError(t, err)
			raw, ok := res.StructuredContent.(json.RawMessage)
			require.True(t, ok, "%T", res.StructuredContent)
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			var model map[string]any
			require.NoError(t, dec.Decode(&model))
			want, err := json.Marshal(model)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(raw))
		})
	}
	res, err := call(t, x, "values", nil)
	require.NoError(t, err)
	row := rows(t, res)[0]
	assert.Equal(t, "last", row["dup"], "a repeated column name keeps its last value, as a map did")
	assert.Equal(t, `x<y>&"z"`, row["a"])
	raw := string(res.StructuredContent.(json.RawMessage))
	assert.Contains(t, raw, `"big":9007199254740993`, "an integer beyond 2^53 stays exact")
	assert.Contains(t, raw, `"f":1234567.5,`)
	assert.Contains(t, raw, `"tiny":1e-7}`)

	res, err = call(t, x, "many", nil)
	require.NoError(t, err)
	assert.JSONEq(t, `{"message":"more than 2 rows; only the first 2 are returned","rowCount":2,"rows":[{"n":3},{"n":1}],"truncated":true}`,
		string(res.StructuredContent.(json.RawMessage)))
	res, err = call(t, x, "none", nil)
	require.NoError(t, err)
	assert.Equal(t, `{"rowCount":0,"rows":[],"truncated":false}`, string(res.StructuredContent.(json.RawMessage)))
}
