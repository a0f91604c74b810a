package mcp

import (
	"bytes"
	"encoding/json"
)

// Responses are written once: a result that is already JSON (a tool
// result's MarshalJSON, a tool list assembled from cached encodings) is put
// into its envelope as it is, never re-encoded or compacted again as
// json.Marshal would do with it, and a list is appended to the envelope's
// start directly (see responseStart). The bytes are exactly those json.Marshal
// of the envelope writes (TestEnvelopeMatchesMarshal holds them to that).

// appendResponse appends the JSON-RPC response to id carrying result, an
// encoded result, as json.Marshal writes a response.
func appendResponse(dst []byte, id json.RawMessage, result []byte) []byte {
	dst = appendResponseStart(dst, id)
	dst = append(dst, result...)
	return append(dst, '}')
}

// appendResponseStart appends the start of the response to id, up to its
// result, which the caller appends, followed by the closing '}'.
func appendResponseStart(dst []byte, id json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	return append(dst, `,"result":`...)
}

// responseStart is appendResponseStart in a new buffer.
func responseStart(id json.RawMessage) []byte {
	return appendResponseStart(make([]byte, 0, 64+len(id)), id)
}

// appendID appends id, an id from a valid body (a string or a number, so
// without white space), as json.Marshal writes a json.RawMessage: null for
// nil, and <, >, &, U+2028 and U+2029 escaped.
func appendID(dst []byte, id json.RawMessage) []byte {
	if id == nil {
		return append(dst, "null"...)
	}
	if !bytes.ContainsAny(id, "<>&\u2028\u2029") {
		return append(dst, id...)
	}
	var buf bytes.Buffer
	json.HTMLEscape(&buf, id)
	return append(dst, buf.Bytes()...)
}
