package oxp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// callRequest is a decoded POST /tools/call body.
type callRequest struct {
	toolID, callID, traceID string
	input                   json.RawMessage // as sent; nil when absent
	context                 CallContext     // ids left for the handler to fill
	form                                    // how it was sent, which its answer follows
}

// form is how a call request was sent, which every answer to it follows.
type form struct {
	// wrapped reports the earlier draft's {"request": {...}} form, answered
	// with {"result": {...}}.
	wrapped bool
	// schema is the top-level "$schema" as sent, echoed in the answer.
	schema json.RawMessage
}

// requestField reports whether key is a member of an OXP 1.0 call request.
// "inputs" is accepted for "input", as one revision of the schema spelled
// it, and "$schema" as the drafts sent it.
func requestField(key string) bool {
	switch key {
	case "tool_id", "call_id", "trace_id", "input", "inputs", "context", "$schema":
		return true
	}
	return false
}

// wrapperField reports whether key is a member of the earlier draft's
// wrapped request.
func wrapperField(key string) bool { return key == "request" || key == "$schema" }

// decodeCallRequest reads a call request in either form. Every problem is a
// 400 serverError naming what is wrong: nothing the caller sent is ignored,
// so a misspelt member is an error rather than a silently missing value.
func decodeCallRequest(body []byte) (callRequest, *serverError) {
	var req callRequest
	top, err := object(body, "the request body")
	if err != nil {
		return req, err
	}
	req.schema = top["$schema"]
	members := top
	if inner, ok := top["request"]; ok {
		req.wrapped = true
		if err := onlyFields(top, wrapperField, ""); err != nil {
			return req, err
		}
		if members, err = object(inner, `"request"`); err != nil {
			return req, err
		}
	}
	prefix := ""
	if req.wrapped {
		prefix = "request."
	}
	if err := onlyFields(members, requestField, prefix); err != nil {
		return req, err
	}
	var e *serverError
	if req.toolID, e = stringField(members, "tool_id", prefix); e != nil {
		return req, e
	}
	if req.toolID == "" {
		return req, badRequest("The request names no tool", prefix+"tool_id is required: a tool id such as Toolkit.Tool@1.0.0")
	}
	if req.callID, e = stringField(members, "call_id", prefix); e != nil {
		return req, e
	}
	if req.traceID, e = stringField(members, "trace_id", prefix); e != nil {
		return req, e
	}
	input, hasInput := members["input"]
	inputs, hasInputs := members["inputs"]
	switch {
	case hasInput && hasInputs:
		return req, badRequest("The request is malformed", prefix+`input and `+prefix+`inputs are two spellings of one member; send only "input"`)
	case hasInput:
		req.input = input
	case hasInputs:
		req.input = inputs
	}
	if raw, ok := members["context"]; ok {
		if req.context, e = decodeContext(raw, prefix+"context"); e != nil {
			return req, e
		}
	}
	return req, nil
}

// decodeContext reads the call's context object.
func decodeContext(raw json.RawMessage, where string) (CallContext, *serverError) {
	var c CallContext
	if isNull(raw) {
		return c, nil
	}
	members, e := object(raw, where)
	if e != nil {
		return c, e
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the first problem in a stable order
	for _, key := range keys {
		value := members[key]
		switch key {
		case "authorization":
			c.Authorization, e = pairs(value, where+".authorization", "token")
		case "secrets":
			c.Secrets, e = pairs(value, where+".secrets", "value")
		case "user_id":
			c.UserID, e = stringField(members, "user_id", where+".")
		case "user_info":
			if !isNull(value) {
				if _, e = object(value, where+".user_info"); e == nil {
					c.UserInfo = value
				}
			}
		default:
			if c.Extra == nil {
				c.Extra = make(map[string]json.RawMessage)
			}
			c.Extra[key] = value
		}
		if e != nil {
			return c, e
		}
	}
	return c, nil
}

// pairs reads an array of {"id": ..., valueKey: ...} objects into a map,
// refusing duplicate ids, which would otherwise shadow one another.
func pairs(raw json.RawMessage, where, valueKey string) (map[string]string, *serverError) {
	if isNull(raw) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest("The request is malformed", where+" must be an array")
	}
	out := make(map[string]string, len(items))
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", where, i)
		members, e := object(item, at)
		if e != nil {
			return nil, e
		}
		if e := onlyFields(members, func(k string) bool { return k == "id" || k == valueKey }, at+"."); e != nil {
			return nil, e
		}
		id, e := stringField(members, "id", at+".")
		if e != nil {
			return nil, e
		}
		if id == "" {
			return nil, badRequest("The request is malformed", at+".id is required")
		}
		if _, dup := out[id]; dup {
			return nil, badRequest("The request is malformed", fmt.Sprintf("%s lists id %q twice", where, id))
		}
		v, e := stringField(members, valueKey, at+".")
		if e != nil {
			return nil, e
		}
		if _, ok := members[valueKey]; !ok {
			return nil, badRequest("The request is malformed", at+"."+valueKey+" is required")
		}
		out[id] = v
	}
	return out, nil
}

// object decodes raw as a JSON object.
func object(raw json.RawMessage, what string) (map[string]json.RawMessage, *serverError) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil, badRequest("The request is malformed", what+" is empty; expected a JSON object")
	}
	if t[0] != '{' {
		return nil, badRequest("The request is malformed", what+" must be a JSON object")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, badRequest("The request is malformed", what+" is not valid JSON: "+err.Error())
	}
	return m, nil
}

// onlyFields refuses members outside allowed, naming them all.
func onlyFields(members map[string]json.RawMessage, allowed func(key string) bool, prefix string) *serverError {
	var unknown []string
	for k := range members {
		if !allowed(k) {
			unknown = append(unknown, prefix+k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return badRequest("The request is malformed", "unknown member(s): "+strings.Join(unknown, ", "))
}

// stringField reads an optional string member; null counts as absent.
func stringField(members map[string]json.RawMessage, key, prefix string) (string, *serverError) {
	raw, ok := members[key]
	if !ok || isNull(raw) {
		return "", nil
	}
	if s, ok := plainString(raw); ok {
		return s, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badRequest("The request is malformed", prefix+key+" must be a string")
	}
	return s, nil
}

// plainString reads raw, a value from a valid JSON document, when it is a
// string of printable ASCII without escapes (a tool id, a call id), which
// is its own decoding; ok is false for any other value.
func plainString(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(inner), true
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func badRequest(msg, dev string) *serverError {
	return &serverError{Message: msg, DeveloperMessage: dev}
}
