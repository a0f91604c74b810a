package toolexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// decodeArguments turns the raw arguments into the map handlers receive.
//
// Numbers arrive as float64, as encoding/json decodes them into any, when
// float64 holds them as sent: every decimal, and every integer up to 2^53
// in magnitude. Any other number (a larger integer, or one beyond float64's
// range such as 1e400) arrives as a json.Number holding the caller's exact
// text, so nothing the caller sent is silently rounded. Typed tools decode
// either form into their Go types exactly.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	if isNullOrEmpty(raw) {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var args map[string]any
	err := dec.Decode(&args)
	if err == nil {
		if _, tail := dec.Token(); !errors.Is(tail, io.EOF) {
			err = errors.New("trailing data after the arguments object")
		}
	}
	if err != nil || args == nil {
		return nil, &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Err: err}
	}
	normalizeNumbers(args)
	return args, nil
}

// normalizeNumbers replaces, in place, each json.Number that float64 holds
// exactly with that float64.
func normalizeNumbers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = normalizeNumbers(e)
		}
	case json.Number:
		if f, ok := exactFloat(v); ok {
			return f
		}
	}
	return v
}

// exactFloat converts n when float64 represents it as a JSON decoder would
// be expected to: any decimal within range, and any integer float64 holds
// exactly (all up to 2^53, and some beyond).
func exactFloat(n json.Number) (float64, bool) {
	s := string(n)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false // out of float64's range
	}
	if strings.ContainsAny(s, ".eE") {
		return f, true
	}
	return f, strconv.FormatFloat(f, 'f', -1, 64) == s
}

func isNullOrEmpty(raw []byte) bool {
	t := trimJSONSpace(raw)
	return len(t) == 0 || string(t) == "null"
}
