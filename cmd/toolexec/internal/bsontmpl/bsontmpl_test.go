package bsontmpl

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func values(m map[string]any) func(string) (any, error) {
	return func(name string) (any, error) { return m[name], nil }
}

func TestFill_PlaceholdersAreWholeValues(t *testing.T) {
	tmpl, err := Compile(`{ "address.city": {{json .city}}, "age": {"$gte": {{ .min }}}, "tags": {"$in": {{json .tags}}} }`, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"city", "min", "tags"}, tmpl.Params())
	assert.True(t, tmpl.IsDocument())
	got, err := tmpl.Fill(values(map[string]any{
		// A string holding a query operator, quotes and JavaScript stays
		// one string value.
		"city": `{"$gt": ""}", "$where": "sleep(1000)`,
		"min":  int64(18),
		"tags": bson.A{"a", "b"},
	}))
	require.NoError(t, err)
	assert.Equal(t, bson.D{
		{Key: "address.city", Value: `{"$gt": ""}", "$where": "sleep(1000)`},
		{Key: "age", Value: bson.D{{Key: "$gte", Value: int64(18)}}},
		{Key: "tags", Value: bson.D{{Key: "$in", Value: bson.A{"a", "b"}}}},
	}, got)
	// Each call has its own copy: the template keeps its markers.
	again, err := tmpl.Fill(values(map[string]any{"city": "Oslo", "min": int64(1), "tags": bson.A{}}))
	require.NoError(t, err)
	assert.Equal(t, "Oslo", again.(bson.D)[0].Value)
	assert.Equal(t, `{"$gt": ""}", "$where": "sleep(1000)`, got.(bson.D)[0].Value)
}

func TestFill_PipelineAndExtendedJSON(t *testing.T) {
	tmpl, err := Compile(`[
  {"$match": {"status": {{json .status}}, "_id": {"$gt": {"$oid": "000000000000000000000000"}}}},
  {"$group": {"_id": "$category", "n": {"$sum": 1}}},
  {"$limit": {{json .n}}}
]`, false)
	require.NoError(t, err)
	assert.True(t, tmpl.IsArray())
	got, err := tmpl.Fill(values(map[string]any{"status": "active", "n": int64(5)}))
	require.NoError(t, err)
	stages := got.(bson.A)
	require.Len(t, stages, 3)
	match := stages[0].(bson.D)[0].Value.(bson.D)
	assert.Equal(t, "active", match[0].Value)
	assert.Equal(t, bson.D{{Key: "$gt", Value: bson.ObjectID{}}}, match[1].Value)
	assert.Equal(t, bson.D{{Key: "$limit", Value: int64(5)}}, stages[2])
	var names []string
	for _, k := range tmpl.Keys() {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{"$match", "status", "_id", "$gt", "$oid", "$group", "_id", "n", "$sum", "$limit"}, names)
}

func TestCompile_Refusals(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
		at               string // the text at the error's offset
	}{
		{"inside a string", `{"name": "^{{json .prefix}}"}`, "inside a string", "{{json .prefix}}"},
		{"inside a key", `{"{{.field}}": 1}`, "inside a string", "{{.field}}"},
		{"as a key", `{ {{json .field}}: 1}`, "never a key", "{{json .field}}"},
		{"beside text", `{"a": 1{{json .x}}}`, "not beside other text", ""},
		{"two in a row", `{"a": {{json .x}}{{json .y}}}`, "not beside other text", ""},
		{"a function", `{"a": {{printf "%s" .x}}}`, "a placeholder is {{json .name}}", `{{printf`},
		{"a conditional", `{ {{if .x}}"a": 1{{end}} }`, "a placeholder is {{json .name}}", "{{if .x}}"},
		{"not closed", `{"a": {{json .x}`, "not closed", "{{json .x}"},
		{"not JSON", `{"a": 1,}`, "not JSON", ""},
		{"bad Extended JSON", `{"_id": {"$oid": "zz"}}`, "not MongoDB Extended JSON", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(c.text, false)
			var e *Error
			require.True(t, errors.As(err, &e), "%v", err)
			assert.Contains(t, e.Message, c.want)
			if c.at != "" {
				require.GreaterOrEqual(t, e.Offset, 0)
				assert.True(t, strings.HasPrefix(c.text[e.Offset:], c.at), "offset %d: %q", e.Offset, c.text[e.Offset:])
			}
		})
	}
}

func TestCompile_SyntaxErrorOffsetsAreThePayloads(t *testing.T) {
	// The marker that replaces a placeholder is longer than it: offsets
	// after it are mapped back to the payload's text.
	text := `{"a": {{json .x}}, "b": tru}`
	_, err := Compile(text, false)
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.True(t, strings.HasPrefix(text[e.Offset:], "tru") || strings.HasPrefix(text[e.Offset:], "}"), "offset %d: %q", e.Offset, text[e.Offset:])
}

func TestFill_MarkerKeyInThePayloadIsNotAPlaceholder(t *testing.T) {
	// A document the author wrote with the marker's key but an index no
	// placeholder has stays as written.
	tmpl, err := Compile(`{"a": {"\u0000param": 7}}`, false)
	require.NoError(t, err)
	got, err := tmpl.Fill(values(nil))
	require.NoError(t, err)
	assert.Equal(t, bson.D{{Key: "a", Value: bson.D{{Key: markerKey, Value: int32(7)}}}}, got)
}

func BenchmarkFill(b *testing.B) {
	tmpl, err := Compile(`[{"$match": {"status": {{json .status}}, "n": {"$gte": {{json .n}}}}}, {"$sort": {"n": -1}}, {"$limit": 10}]`, false)
	require.NoError(b, err)
	vals := values(map[string]any{"status": "active", "n": int64(3)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Fill(vals); err != nil {
			b.Fatal(err)
		}
	}
}

func TestHasKeyAndCollections_AtAnyDepth(t *testing.T) {
	tmpl, err := Compile(`[
  {"$facet": {"a": [{"$match": {}}, {"$merge": {"into": {"db": "other", "coll": "x"}}}]}},
  {"$lookup": {"from": "y", "pipeline": [{"$unionWith": {"coll": "u", "pipeline": [{"$out": "z"}]}}], "as": "r"}},
  {"$graphLookup": {"from": {{json .from}}, "startWith": "$a", "connectFromField": "a", "connectToField": "b", "as": "g"}},
  {"$unionWith": "w"}
]`, false)
	require.NoError(t, err)
	got, err := tmpl.Fill(values(map[string]any{"from": "g"}))
	require.NoError(t, err)
	assert.True(t, HasKey(got, "$out"))
	assert.True(t, HasKey(got, "$merge"))
	assert.False(t, HasKey(got, "$where"))
	assert.False(t, HasKey(bson.A{bson.D{{Key: "a", Value: "$out"}}}, "$out"), "a value is not a key")
	assert.Equal(t, []Ref{{"other", "x"}, {"db", "y"}, {"db", "u"}, {"db", "z"}, {"db", "g"}, {"db", "w"}}, Collections(got, "db"))
	assert.Equal(t, []Ref{{"other", "x"}, {"db", "y"}, {"db", "u"}, {"db", "z"}, {"db", "w"}}, tmpl.Collections("db"), "a placeholder's collection is known only when filled")
}

func TestDepth(t *testing.T) {
	assert.Equal(t, 0, Depth(`"x"`))
	assert.Equal(t, 3, Depth(`{"a": [1, "]]]]{{{", {"b": 2}]}`))
	assert.Equal(t, 1, Depth(`["\"[["]`), "brackets in strings, after an escaped quote, do not count")
	deep := strings.Repeat("[", 400000) + strings.Repeat("]", 400000)
	assert.Equal(t, MaxDepth+1, Depth(deep), "it stops counting past the limit")
	_, err := Compile(`{"v": `+strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth)+`}`, false)
	assert.ErrorContains(t, err, "nested deeper than 100 levels")
	_, err = Compile(`{"v": `+strings.Repeat("[", MaxDepth-1)+strings.Repeat("]", MaxDepth-1)+`}`, false)
	assert.NoError(t, err)
}
