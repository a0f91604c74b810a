package toolexec

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func priority(p float64) *float64 { return &p }
func size(n int64) *int64         { return &n }

// Each block type against literal JSON in both directions: marshal gives the
// literal byte for byte, and unmarshal of the literal gives the Go value.
func TestContentBlocksRoundTripExactly(t *testing.T) {
	cases := []struct {
		name    string
		content Content
		json    string
	}{
		{"text", &TextContent{Text: "hello"}, `{"type":"text","text":"hello"}`},
		{"text empty", &TextContent{}, `{"type":"text","text":""}`},
		{"text with annotations and meta",
			&TextContent{Text: "hi", Annotations: &Annotations{Audience: []Role{RoleUser, RoleAssistant}, Priority: priority(0), LastModified: "2025-01-12T15:00:58Z"}, Meta: map[string]any{"k": "v"}},
			`{"type":"text","text":"hi","annotations":{"audience":["user","assistant"],"priority":0,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"k":"v"}}`},
		{"image", &ImageContent{Data: []byte("png-bytes"), MIMEType: "image/png"}, `{"type":"image","data":"cG5nLWJ5dGVz","mimeType":"image/png"}`},
		{"image with annotations", &ImageContent{Data: []byte{1}, MIMEType: "image/gif", Annotations: &Annotations{Priority: priority(0.5)}},
			`{"type":"image","data":"AQ==","mimeType":"image/gif","annotations":{"priority":0.5}}`},
		{"audio", &AudioContent{Data: []byte("wav"), MIMEType: "audio/wav"}, `{"type":"audio","data":"d2F2","mimeType":"audio/wav"}`},
		{"resource_link minimal", &ResourceLink{URI: "file:///a.txt", Name: "a.txt"}, `{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"}`},
		{"resource_link full",
			&ResourceLink{URI: "file:///a.txt", Name: "a.txt", Title: "A", Description: "the a file", MIMEType: "text/plain", Size: size(0), Annotations: &Annotations{Audience: []Role{RoleUser}}, Meta: map[string]any{"n": 1.0}},
			`{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","title":"A","description":"the a file","mimeType":"text/plain","size":0,"annotations":{"audience":["user"]},"_meta":{"n":1}}`},
		{"embedded text resource",
			&EmbeddedResource{Resource: &ResourceContents{URI: "mem://x", MIMEType: "text/plain", Text: "body"}},
			`{"type":"resource","resource":{"uri":"mem://x","mimeType":"text/plain","text":"body"}}`},
		{"embedded empty text resource keeps text",
			&EmbeddedResource{Resource: &ResourceContents{URI: "mem://x"}},
			`{"type":"resource","resource":{"uri":"mem://x","text":""}}`},
		{"embedded blob resource",
			&EmbeddedResource{Resource: &ResourceContents{URI: "mem://b", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}, Annotations: &Annotations{Priority: priority(1)}, Meta: map[string]any{"m": true}},
			`{"type":"resource","resource":{"uri":"mem://b","mimeType":"application/octet-stream","blob":"AAEC"},"annotations":{"priority":1},"_meta":{"m":true}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.content)
			require.NoError(t, err)
			assert.Equal(t, tc.json, string(got))

			back, err := UnmarshalContent([]byte(tc.json))
			require.NoError(t, err)
			assert.Equal(t, tc.content, back)
			assert.Equal(t, tc.content.ContentType(), back.ContentType())
		})
	}
}

func TestUnmarshalContentRejectsBadBlocks(t *testing.T) {
	cases := map[string]string{
		"unknown type":          `{"type":"video","data":"x"}`,
		"missing type":          `{"text":"x"}`,
		"not an object":         `"text"`,
		"bad base64":            `{"type":"image","data":"!!!","mimeType":"image/png"}`,
		"resource without body": `{"type":"resource"}`,
		"text and blob":         `{"type":"resource","resource":{"uri":"u","text":"a","blob":"AA=="}}`,
		"neither text nor blob": `{"type":"resource","resource":{"uri":"u"}}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := UnmarshalContent([]byte(in))
			assert.Error(t, err)
		})
	}
}

func TestCallToolResultJSON(t *testing.T) {
	t.Run("success with trace id matches the execution API's example", func(t *testing.T) {
		res := NewResult([]Content{Text("result here")}, false, "abc-123")
		got, err := json.Marshal(res)
		require.NoError(t, err)
		assert.Equal(t, `{"content":[{"type":"text","text":"result here"}],"isError":false,"_meta":{"_trace_id":"abc-123"}}`, string(got))
	})
	t.Run("empty trace id omits _meta and nil content is an empty array", func(t *testing.T) {
		got, err := json.Marshal(NewResult(nil, true, ""))
		require.NoError(t, err)
		assert.Equal(t, `{"content":[],"isError":true}`, string(got))
	})
	t.Run("structured content and every block type round-trip", func(t *testing.T) {
		in := `{"content":[{"type":"text","text":"t"},{"type":"image","data":"AQ==","mimeType":"image/png"},` +
			`{"type":"audio","data":"Ag==","mimeType":"audio/wav"},{"type":"resource_link","uri":"u","name":"n"},` +
			`{"type":"resource","resource":{"uri":"r","text":"x"}}],"structuredContent":{"a":1},"isError":false,"_meta":{"_trace_id":"t1","other":"x"}}`
		var res CallToolResult
		require.NoError(t, json.Unmarshal([]byte(in), &res))
		require.Len(t, res.Content, 5)
		assert.Equal(t, "t1", res.TraceID())
		out, err := json.Marshal(&res)
		require.NoError(t, err)
		assert.Equal(t, in, string(out))
	})
	t.Run("unknown content type is an error", func(t *testing.T) {
		var res CallToolResult
		assert.Error(t, json.Unmarshal([]byte(`{"content":[{"type":"nope"}],"isError":false}`), &res))
	})
	t.Run("SetTraceID empty removes only the trace id", func(t *testing.T) {
		res := &CallToolResult{Meta: map[string]any{"_trace_id": "x", "keep": 1}}
		res.SetTraceID("")
		assert.Equal(t, map[string]any{"keep": 1}, res.Meta)
		res = NewResult(nil, false, "x")
		res.SetTraceID("")
		assert.Nil(t, res.Meta)
	})
}

func TestToolJSONOmitsOptionalFieldsAndRoundTrips(t *testing.T) {
	minimal := Tool{Name: "echo"}
	got, err := json.Marshal(minimal)
	require.NoError(t, err)
	assert.Equal(t, `{"name":"echo"}`, string(got), "optional fields are omitted, never null; Version and Options never travel")

	full := `{"name":"image/resize","title":"Resize","description":"Resize an image",` +
		`"inputSchema":{"type":"object","properties":{"w":{"type":"integer"}}},"outputSchema":{"type":"object"},` +
		`"annotations":{"title":"Resize image","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false},"_meta":{"x":"y"}}`
	var tool Tool
	require.NoError(t, json.Unmarshal([]byte(full), &tool))
	assert.Equal(t, "image/resize", tool.Name)
	require.NotNil(t, tool.Annotations.DestructiveHint)
	assert.False(t, *tool.Annotations.DestructiveHint)
	out, err := json.Marshal(tool)
	require.NoError(t, err)
	assert.Equal(t, full, string(out))
}

func TestResultsAndBlocksMarshalTheSameByValue(t *testing.T) {
	res := CallToolResult{Content: []Content{Text("hi")}, IsError: true}
	byValue, err := json.Marshal(res)
	require.NoError(t, err)
	byPointer, err := json.Marshal(&res)
	require.NoError(t, err)
	assert.Equal(t, string(byPointer), string(byValue))
	assert.Equal(t, `{"content":[{"type":"text","text":"hi"}],"isError":true}`, string(byValue))

	embedded, err := json.Marshal(struct {
		Result CallToolResult `json:"result"`
		Block  TextContent    `json:"block"`
	}{res, *Text("x")})
	require.NoError(t, err)
	assert.Equal(t, `{"result":{"content":[{"type":"text","text":"hi"}],"isError":true},"block":{"type":"text","text":"x"}}`, string(embedded))
}

func TestResultWithoutContentUnmarshals(t *testing.T) {
	var res CallToolResult
	require.NoError(t, json.Unmarshal([]byte(`{"isError":true}`), &res))
	assert.True(t, res.IsError)
	assert.Empty(t, res.Content)
}
