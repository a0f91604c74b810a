package toolexec

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/jsontree"
)

func rewritten(t *testing.T, schema string) string {
	t.Helper()
	n, err := rewriteSchema([]byte(schema), "tools.x.input")
	require.NoError(t, err)
	return string(n.AppendJSON(nil))
}

func TestRewriteSchemaPointsLocalReferencesIntoTheComponent(t *testing.T) {
	const c = "#/components/schemas/tools.x.input"
	for _, tc := range []struct{ name, in, want string }{
		{"recursive $defs",
			`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
			`{"type":"object","properties":{"root":{"$ref":"` + c + `/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"` + c + `/$defs/node"}}}}}}`},
		{"the root itself",
			`{"type":"object","properties":{"self":{"$ref":"#"}}}`,
			`{"type":"object","properties":{"self":{"$ref":"` + c + `"}}}`},
		{"draft-07 definitions",
			`{"definitions":{"a":{"type":"string"}},"allOf":[{"$ref":"#/definitions/a"}]}`,
			`{"definitions":{"a":{"type":"string"}},"allOf":[{"$ref":"` + c + `/definitions/a"}]}`},
		{"an anchor becomes a pointer, and is dropped",
			`{"$defs":{"a":{"$anchor":"item","type":"string"}},"items":{"$ref":"#item"}}`,
			`{"$defs":{"a":{"type":"string"}},"items":{"$ref":"` + c + `/$defs/a"}}`},
		{"an embedded resource's references stay in it, and $id is dropped",
			`{"$id":"https://example.com/root","$defs":{"sub":{"$id":"sub.json","$defs":{"leaf":{"type":"integer"}},"$ref":"#/$defs/leaf"}},` +
				`"properties":{"a":{"$ref":"sub.json"},"b":{"$ref":"sub.json#/$defs/leaf"},"c":{"$ref":"https://example.com/root#/$defs/sub"}}}`,
			`{"$defs":{"sub":{"$defs":{"leaf":{"type":"integer"}},"$ref":"` + c + `/$defs/sub/$defs/leaf"}},` +
				`"properties":{"a":{"$ref":"` + c + `/$defs/sub"},"b":{"$ref":"` + c + `/$defs/sub/$defs/leaf"},"c":{"$ref":"` + c + `/$defs/sub"}}}`},
		{"a property named $ref, and values that look like references, are data",
			`{"properties":{"$ref":{"type":"string","enum":[{"$ref":"#/a"}],"default":{"$ref":"#/b"},"const":{"$ref":"#"}}},"examples":[{"$ref":"#/c"}]}`,
			`{"properties":{"$ref":{"type":"string","enum":[{"$ref":"#/a"}],"default":{"$ref":"#/b"},"const":{"$ref":"#"}}},"examples":[{"$ref":"#/c"}]}`},
		{"references outside the schema are left alone",
			`{"properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/schema"},"b":{"$ref":"other.json#/x"}}}`,
			`{"properties":{"a":{"$ref":"https://json-schema.org/draft/2020-12/schema"},"b":{"$ref":"other.json#/x"}}}`},
		{"every keyword that holds schemas is walked",
			`{"prefixItems":[{"$ref":"#/$defs/a"}],"items":[{"$ref":"#/$defs/a"}],"not":{"$ref":"#/$defs/a"},"if":{"$ref":"#/$defs/a"},` +
				`"then":{"$ref":"#/$defs/a"},"else":{"$ref":"#/$defs/a"},"patternProperties":{"^x":{"$ref":"#/$defs/a"}},` +
				`"dependentSchemas":{"p":{"$ref":"#/$defs/a"}},"additionalProperties":{"$ref":"#/$defs/a"},"$defs":{"a":true}}`,
			`{"prefixItems":[{"$ref":"` + c + `/$defs/a"}],"items":[{"$ref":"` + c + `/$defs/a"}],"not":{"$ref":"` + c + `/$defs/a"},"if":{"$ref":"` + c + `/$defs/a"},` +
				`"then":{"$ref":"` + c + `/$defs/a"},"else":{"$ref":"` + c + `/$defs/a"},"patternProperties":{"^x":{"$ref":"` + c + `/$defs/a"}},` +
				`"dependentSchemas":{"p":{"$ref":"` + c + `/$defs/a"}},"additionalProperties":{"$ref":"` + c + `/$defs/a"},"$defs":{"a":true}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.JSONEq(t, tc.want, rewritten(t, tc.in))
		})
	}
}

func TestRewriteSchemaEscapesPointerTokens(t *testing.T) {
	got := rewritten(t, `{"$defs":{"a/b":{"$anchor":"x"}},"items":{"$ref":"#x"}}`)
	assert.Contains(t, got, `"$ref":"#/components/schemas/tools.x.input/$defs/a~1b"`)
}

func TestRewriteSchemaRefusesWhatIsNotJSON(t *testing.T) {
	_, err := rewriteSchema([]byte(`{"type":`), "x")
	require.Error(t, err)
}

func TestDeclaresNothing(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"type":"object"}`:                                              true,
		`{"type":"object","properties":{}}`:                              true,
		`{"type":"object","properties":{},"additionalProperties":false}`: true,
		`true`: true,
		`{"type":"object","properties":{"a":{}}}`:                    false,
		`{"type":"object","additionalProperties":{"type":"string"}}`: false,
		`{"$ref":"#/$defs/a"}`:                                       false,
		`{"oneOf":[{}]}`:                                             false,
		`{"type":"object","required":["a"]}`:                         false,
	} {
		n, err := jsontree.Parse([]byte(schema))
		require.NoError(t, err)
		assert.Equal(t, want, declaresNothing(n), schema)
	}
}

// resolvePointer follows a local reference ("#/a/b") in doc.
func resolvePointer(t *testing.T, doc any, ref string) any {
	t.Helper()
	require.True(t, strings.HasPrefix(ref, "#/"), ref)
	for _, tok := range strings.Split(ref[2:], "/") {
		tok, err := url.PathUnescape(tok)
		require.NoError(t, err)
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := doc.(map[string]any)
		require.True(t, ok, "%s: %s is not in an object", ref, tok)
		doc, ok = m[tok]
		require.True(t, ok, "%s: no %s", ref, tok)
	}
	return doc
}

// collectRefs lists every "$ref" string in v.
func collectRefs(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && k == "$ref" {
				*out = append(*out, s)
			}
			collectRefs(e, out)
		}
	case []any:
		for _, e := range x {
			collectRefs(e, out)
		}
	}
}

func TestEveryReferenceInTheDocumentResolves(t *testing.T) {
	reg := NewRegistry(WithRegistryLogger(discardLogger()))
	ok := func(context.Context, string, map[string]any) ([]Content, bool, string, error) {
		return nil, false, "", nil
	}
	reg.MustAdd(Tool{Name: "tree", Description: "A recursive schema.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"required":["root"],` +
			`"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`),
		OutputSchema: json.RawMessage(`{"$ref":"#/$defs/count","$defs":{"count":{"type":"object","properties":{"n":{"type":"integer"}}}}}`)}, ok)
	reg.MustAdd(Tool{Name: "other/tree", Description: "The same anchor name in another tool.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#leaf"}},"$defs":{"l":{"$anchor":"leaf","type":"string"}}}`)}, ok)
	h := NewHandler(New(reg, reg, WithLogger(discardLogger()), WithAuthHook(func(next http.Handler) http.Handler { return next })))
	doc := getDoc(t, h, "/openapi.json")
	var refs []string
	collectRefs(doc, &refs)
	require.NotEmpty(t, refs)
	for _, r := range refs {
		assert.NotNil(t, resolvePointer(t, doc, r), r)
	}
	assert.Contains(t, refs, "#/components/schemas/tools.tree.input/$defs/node")
	assert.NotContains(t, do(t, h, http.MethodGet, "/openapi.json", "").body, `"$anchor"`)
}
