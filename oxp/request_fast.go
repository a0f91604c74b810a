package oxp

import (
	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// decodePlainCallRequest is decodeCallRequest for the usual request: an
// unwrapped call request whose member names are spelt plainly (no escapes),
// each at most once, none unknown, with a tool_id, call_id and trace_id that
// are plain strings (or, for the ids, null), and not both input and inputs.
// For such a body it returns what decodeCallRequest returns, without the
// map decodeCallRequest builds: the members are found by walking the body
// once jsonwalk.Valid has accepted it, and input is the caller's bytes as sent
// (a slice of body, which the caller must not modify while the request is
// in use). For any other body, and for every body decodeCallRequest
// refuses, ok is false and nothing is decoded: the caller then takes
// decodeCallRequest, which says what is wrong.
//
// The two agree because, for a valid body whose member names are plain and
// distinct, json.Unmarshal into map[string]json.RawMessage gives each name
// the bytes of its value as sent, which is what the walker gives
// (FuzzPlainCallRequestAgrees).
func decodePlainCallRequest(body []byte) (req callRequest, ok bool) {
	t := body[jsonwalk.SkipSpace(body, 0):]
	if len(t) == 0 || t[0] != '{' || !jsonwalk.Valid(t) {
		return req, false
	}
	const (
		hasToolID = 1 << iota
		hasCallID
		hasTraceID
		hasInput
		hasInputs
		hasContext
		hasSchema
	)
	var seen int
	var toolID, callID, traceID, input, context []byte
	for it := jsonwalk.Members(t); it.Next(); {
		var bit int
		var slot *[]byte
		switch string(it.Key[1 : len(it.Key)-1]) {
		case "tool_id":
			bit, slot = hasToolID, &toolID
		case "call_id":
			bit, slot = hasCallID, &callID
		case "trace_id":
			bit, slot = hasTraceID, &traceID
		case "input":
			bit, slot = hasInput, &input
		case "inputs":
			bit, slot = hasInputs, &input
		case "context":
			bit, slot = hasContext, &context
		case "$schema":
			bit, slot = hasSchema, (*[]byte)(&req.schema)
		default:
			// "request" (the wrapped form), an unknown member, or a name
			// spelt with escapes: decodeCallRequest's to read or refuse.
			return req, false
		}
		if seen&bit != 0 {
			return req, false // a repeated member: the last one counts there
		}
		seen |= bit
		*slot = it.Val
	}
	if seen&hasInput != 0 && seen&hasInputs != 0 {
		return req, false
	}
	if req.toolID, ok = plainString(toolID); !ok || req.toolID == "" {
		return req, false
	}
	if req.callID, ok = plainOrNull(callID); !ok {
		return req, false
	}
	if req.traceID, ok = plainOrNull(traceID); !ok {
		return req, false
	}
	req.input = input
	if seen&hasContext != 0 {
		var bad *serverError
		if req.context, bad = decodeContext(context, "context"); bad != nil {
			return req, false
		}
	}
	return req, true
}

// plainOrNull reads an optional id member as stringField does when it is
// absent (raw nil), null, or a plain string (see plainString); ok is false
// for anything else.
func plainOrNull(raw []byte) (string, bool) {
	if raw == nil || string(raw) == "null" {
		return "", true
	}
	return plainString(raw)
}
