package toolexec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/toolexec/toolexec"
)

// FuzzArgumentValidation throws arbitrary schemas and arguments at the
// pipeline. Whatever arrives:
//
//   - Executor.Validate answers without error, Valid exactly when it lists
//     no failure, and every failure has a JSON Pointer path and a keyword;
//   - a call either runs the handler or fails with an *Error that says the
//     arguments (or the tool's own schema) are at fault, never a panic;
//   - the handler runs exactly when the arguments it receives satisfy the
//     schema: validation cannot be bypassed, and valid arguments are never
//     refused.
func FuzzArgumentValidation(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":1000}},"required":["n"],"additionalProperties":false}`, `{"n":5}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, `{"n":"5"}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":1e400}`},
		{`{"type":"object","properties":{"n":{"type":"integer"}}}`, `{"n":"x","n":1}`},
		{`{"type":"object","properties":{"s":{"type":"string","maxLength":3}}}`, "{\"s\":\"\xff\xff\xff\xff\"}"},
		{`{"type":"object","properties":{"s":{"type":"string","pattern":"^a+$"}}}`, `{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}`},
		{`{"type":"object","properties":{"x":{"type":"number","multipleOf":0.1}}}`, `{"x":0.30000000000000004}`},
		{`{"type":"object","properties":{"x":{"type":"integer","maximum":9007199254740992}}}`, `{"x":9007199254740993}`},
		{`{"type":"object","properties":{"d":{"type":"string","format":"date-time"}}}`, `{"d":"2024-02-30T25:00:00Z"}`},
		{`{"oneOf":[{"required":["a"]},{"required":["b"]}]}`, `{"a":1,"b":2}`},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`, `{}`},
		{`{"$ref":"http://example.com/schema"}`, `{}`},
		{`{"type":"objekt"}`, `{}`},
		{`{"properties":{"a/b":{"required":["~"]}}}`, `{"a/b":{}}`},
		{`true`, `{"anything":[1,2,3]}`},
		{`false`, `{}`},
		{``, `{"a":1}`},
		{`{"type":"object"}`, `[]`},
		{`{"type":"object"}`, `null`},
		{`{"type":"object"}`, `{"a":` + strings.Repeat("[", 500) + strings.Repeat("]", 500) + `}`},
	} {
		f.Add(seed[0], seed[1])
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.Fuzz(func(t *testing.T, schema, args string) {
		var got map[string]any
		ran := false
		reg := toolexec.NewRegistry()
		if err := reg.Add(toolexec.Tool{Name: "t", InputSchema: json.RawMessage(schema)}, func(_ string, a map[string]any) ([]toolexec.Content, bool, string, error) {
			ran, got = true, a
			return nil, false, "", nil
		}); err != nil {
			t.Skip("not a tool the registry takes:", err)
		}
		x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quiet))

		res, err := x.Validate(t.Context(), "t", "", json.RawMessage(args))
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if res.Valid == (len(res.Errors) > 0) {
			t.Fatalf("valid=%v with %d failures", res.Valid, len(res.Errors))
		}
		if len(res.Errors) > toolexec.MaxValidationFailures {
			t.Fatalf("%d failures listed, over the bound", len(res.Errors))
		}
		listed := 0
		for _, fl := range res.Errors {
			if fl.Path != "" && !strings.HasPrefix(fl.Path, "/") || fl.Keyword == "" || fl.Message == "" {
				t.Fatalf("malformed failure %+v", fl)
			}
			if len(fl.Message) > toolexec.MaxFailureMessageBytes {
				t.Fatalf("a message of %d bytes, over the bound", len(fl.Message))
			}
			listed += len(fl.Path) + len(fl.Message) + len(fl.Keyword)
		}
		if listed > toolexec.MaxFailureBytes {
			t.Fatalf("%d bytes of failures, over the bound", listed)
		}

		_, err = x.Call(t.Context(), toolexec.CallRequest{Name: "t", Arguments: json.RawMessage(args)})
		if !ran {
			e, ok := toolexec.AsError(err)
			if !ok {
				t.Fatalf("the handler did not run and the error is %v", err)
			}
			switch {
			case e.Code == toolexec.CodeInvalidArguments && (e.Stage == toolexec.StageDecode || e.Stage == toolexec.StageValidate):
			case e.Code == toolexec.CodeInternal && e.Stage == toolexec.StageValidate && strings.HasPrefix(e.Message, "Invalid schema: "):
			default:
				t.Fatalf("the handler did not run: unexpected %s/%s: %s", e.Stage, e.Code, e.Message)
			}
		} else if err != nil {
			t.Fatalf("the handler ran but the call failed: %v", err)
		}

		// What the handler receives (or would have) is the decoded object;
		// it must satisfy the schema exactly when the handler ran.
		decoded, derr := decodeExact([]byte(args))
		if derr != nil {
			if ran && strings.TrimSpace(args) != "" && strings.TrimSpace(args) != "null" {
				t.Fatalf("the handler ran on arguments that are not an object: %q", args)
			}
			return
		}
		if decoded == nil {
			decoded = map[string]any{}
		}
		received, err := json.Marshal(decoded)
		if err != nil {
			t.Fatalf("re-encoding the arguments: %v", err)
		}
		verdict, err := x.Validate(t.Context(), "t", "", received)
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		if ran != verdict.Valid {
			t.Fatalf("handler ran=%v but its arguments %s validate as %v: %+v", ran, received, verdict.Valid, verdict.Errors)
		}
		if ran {
			again, _ := json.Marshal(got)
			a, _ := decodeExact(again)
			if !reflect.DeepEqual(exactNumbers(a), exactNumbers(decoded)) {
				t.Fatalf("the handler got %s, not the decoded arguments %s", again, received)
			}
		}
	})
}

// decodeExact decodes one JSON object as the pipeline does, numbers kept as
// json.Number; anything else is an error.
func decodeExact(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data")
	}
	return m, nil
}

// exactNumbers replaces every number with its exact value as a string
// (big.Rat), so that 1, 1.0 and 1e0 compare equal and nothing is rounded.
func exactNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = exactNumbers(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = exactNumbers(e)
		}
		return out
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(v)); ok {
			return r.RatString()
		}
	}
	return v
}
