package toolexec

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/toolexec/toolexec/internal/rawjson"
)

// appendResultFast writes r's JSON without reflection for the common shape
// of a result: text blocks with neither annotations nor _meta, structured
// content already encoded (json.RawMessage) or absent, and no _meta. It
// reports false, having written nothing, for any other result, which then
// takes the general path. The bytes are exactly those the general path
// writes (TestResultFastPathMatchesTheGeneralPath holds it to that).
func appendResultFast(dst []byte, r *CallToolResult) ([]byte, bool) {
	if r.Meta != nil {
		return dst, false
	}
	var structured json.RawMessage
	switch sc := r.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		if sc == nil {
			return dst, false // a nil RawMessage is written as null
		}
		structured = sc
	default:
		return dst, false
	}
	for _, c := range r.Content {
		t, ok := c.(*TextContent)
		if !ok || t == nil || t.Annotations != nil || t.Meta != nil {
			return dst, false
		}
	}
	start := len(dst)
	dst = append(dst, `{"content":[`...)
	for i, c := range r.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"type":"text","text":`...)
		dst = appendJSONString(dst, c.(*TextContent).Text)
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if structured != nil {
		dst = append(dst, `,"structuredContent":`...)
		if rawjson.IsCompactSafe(structured) { // as json.Marshal writes it: nothing to compact or escape
			dst = append(dst, structured...)
			return appendIsError(dst, r.IsError), true
		}
		mark := len(dst)
		buf := bytes.NewBuffer(dst) // compacted straight into dst's spare room
		if err := json.Compact(buf, structured); err != nil {
			return dst[:start], false // not valid JSON: let the general path report it
		}
		dst = buf.Bytes()
		if bytes.ContainsAny(dst[mark:], "<>&\u2028\u2029") {
			var escaped bytes.Buffer // as encoding/json writes a RawMessage
			json.HTMLEscape(&escaped, dst[mark:])
			dst = append(dst[:mark], escaped.Bytes()...)
		}
	}
	return appendIsError(dst, r.IsError), true
}

// appendIsError ends a result's encoding.
func appendIsError(dst []byte, isError bool) []byte {
	if isError {
		return append(dst, `,"isError":true}`...)
	}
	return append(dst, `,"isError":false}`...)
}

// fastResultSize is room enough for appendResultFast's encoding of r in the
// common case, so that it is written without growing the buffer: the
// envelope, each text block with a quarter more for escapes (a JSON text
// escapes its every quote), the structured content, and a byte for the
// newline a response adds.
func fastResultSize(r *CallToolResult) int {
	n := 64
	for _, c := range r.Content {
		if t, ok := c.(*TextContent); ok && t != nil {
			n += 32 + len(t.Text) + len(t.Text)/4
		}
	}
	if sc, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(sc)
	}
	return n
}

// appendJSONString writes s as a JSON string exactly as encoding/json does:
// quotes, backslashes and control characters escaped, <, > and & escaped
// for HTML, U+2028 and U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
