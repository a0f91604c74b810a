package toolexec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResultFastPathMatchesTheGeneralPath(t *testing.T) {
	for _, res := range []CallToolResult{
		{},
		{IsError: true},
		{Content: []Content{Text("plain"), Text("")}},
		{Content: []Content{Text("<b>&\"\\\n\r\t\b\f\x00\x1f\x7f é 😀 \u2028\u2029 \xff\xfe")}, IsError: true},
		{Content: []Content{Text("x")}, StructuredContent: json.RawMessage(` { "a" : [1, 2.50, "<&>"] } `)},
		{Content: []Content{Text(`{"sum":3}`)}, StructuredContent: json.RawMessage(`{"sum":3}`)}, // compact already: written as it is
		{StructuredContent: json.RawMessage(`{"a":[1,2.5,null,true,{"b":"\u00e9\n"}],"c":"` + "\xff\u2027" + `"}`)},
		{StructuredContent: json.RawMessage(`{"a":"` + "\u2028" + `"}`)},
	} {
		fast, ok := appendResultFast(nil, &res)
		require.True(t, ok, "%+v takes the fast path", res)
		general, err := res.marshalGeneral()
		require.NoError(t, err)
		assert.Equal(t, string(general), string(fast))
	}
}

func TestResultFastPathDeclinesOtherShapes(t *testing.T) {
	for name, res := range map[string]CallToolResult{
		"meta":                 {Meta: map[string]any{"_trace_id": "t"}},
		"annotated text":       {Content: []Content{&TextContent{Text: "x", Annotations: &Annotations{}}}},
		"image":                {Content: []Content{&ImageContent{Data: []byte{1}, MIMEType: "image/png"}}},
		"structured map":       {StructuredContent: map[string]any{"a": 1}},
		"nil raw structured":   {StructuredContent: json.RawMessage(nil)},
		"invalid raw JSON":     {StructuredContent: json.RawMessage(`{"a":`)},
		"trailing raw JSON":    {StructuredContent: json.RawMessage(`{"a":1}x`)},
		"deep raw JSON":        {StructuredContent: json.RawMessage(strings.Repeat("[", 10001) + strings.Repeat("]", 10001))},
		"nil text block":       {Content: []Content{(*TextContent)(nil)}},
		"text with block meta": {Content: []Content{&TextContent{Text: "x", Meta: map[string]any{}}}},
	} {
		_, ok := appendResultFast(nil, &res)
		assert.False(t, ok, name)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "a", "<>&", "\u2028", "\xff", "\x00\x1f", `"\`, "é😀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Fatalf("appendJSONString(%q) = %s, encoding/json writes %s", s, got, want)
		}
	})
}

func FuzzResultFastPath(f *testing.F) {
	f.Add("text", `{"a":[1,"<&>"]}`, false)
	f.Add("\u2028", "{\"s\":\"\u2029\"}", true)
	f.Add("", ` [ ] `, false)
	f.Fuzz(func(t *testing.T, text, raw string, isError bool) {
		res := CallToolResult{Content: []Content{Text(text)}, IsError: isError}
		if json.Valid([]byte(raw)) {
			res.StructuredContent = json.RawMessage(raw)
		}
		fast, ok := appendResultFast(nil, &res)
		if !ok {
			return
		}
		general, err := res.marshalGeneral()
		if err != nil {
			t.Fatalf("general path failed where the fast one wrote %s: %v", fast, err)
		}
		if string(fast) != string(general) {
			t.Fatalf("fast %s\ngeneral %s", fast, general)
		}
	})
}
