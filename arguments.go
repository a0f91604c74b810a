package toolexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// decodeArguments turns the raw arguments into the map handlers receive.
//
// Numbers arrive as float64, as encoding/json decodes them into any, when
// float64 holds them as sent: every number of up to 15 significant digits
// within float64's range, every integer up to 2^53, and any other number
// whose float64 reads back the same. Any other number (9007199254740993,
// 0.100000000000000001, 1e400) arrives as a json.Number holding the
// caller's exact text, so nothing the caller sent is silently rounded. Typed tools decode
// either form into their Go types exactly.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	if isNullOrEmpty(raw) {
		return map[string]any{}, nil
	}
	if !mayHoldInexactNumber(raw) {
		// Every number has at most 15 digits and no exponent: float64 holds
		// each exactly, and the plain decoder is the fast one.
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil || args == nil {
			return nil, &Error{Stage: StageDecode, Code: CodeInvalidArguments, Message: "arguments must be a JSON object", Err: err}
		}
		return args, nil
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

// exactFloat converts n when float64 holds it without loss: when the
// shortest decimal form of the float64 denotes the same number as the
// caller's text. Any number of at most 15 significant digits within range
// does (float64 keeps 15 decimal digits), so only longer ones are checked.
func exactFloat(n json.Number) (float64, bool) {
	s := string(n)
	f, err := strconv.ParseFloat(s, 64)
	digits := significantDigits(s)
	if err != nil || (f == 0 && digits > 0) {
		return 0, false // beyond float64's range, or so small it would be 0
	}
	if digits <= 15 && math.Abs(f) >= 0x1p-1022 {
		return f, true // a normal float64 keeps 15 significant digits
	}
	if !checkableNumber(s) {
		return 0, false // exact arithmetic on it would cost too much: kept as sent
	}
	sent, ok1 := new(big.Rat).SetString(s)
	held, ok2 := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
	return f, ok1 && ok2 && sent.Cmp(held) == 0
}

// significantDigits counts the digits of a JSON number's mantissa, leading
// zeros aside: "0.00120" has 3, "-12.5e3" has 3.
func significantDigits(s string) int {
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	n, leading := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		if leading && c == '0' {
			continue
		}
		leading = false
		n++
	}
	return n
}

func isNullOrEmpty(raw []byte) bool {
	t := trimJSONSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// mayHoldInexactNumber reports whether raw may hold a number float64 does
// not keep exactly: one with more than 15 digits, or with an exponent. It
// looks at numbers only, skipping strings; a false alarm only costs the
// slower exact decoding.
func mayHoldInexactNumber(raw []byte) bool {
	inString, escaped, inNumber, digits := false, false, false, 0
	for _, c := range raw {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch {
		case c >= '0' && c <= '9':
			inNumber = true
			if digits++; digits > 15 {
				return true
			}
		case c == '.' || c == '-':
			inNumber = true // part of a number: its digits go on counting
		case (c == 'e' || c == 'E') && inNumber:
			return true
		default: // between values, or in true, false and null
			inNumber, digits = false, 0
			inString = c == '"'
		}
	}
	return false
}

// decodeValue decodes one JSON value of any kind with the number rules of
// decodeArguments: float64 where exact, json.Number otherwise.
func decodeValue(raw []byte) (any, error) {
	var v any
	if !mayHoldInexactNumber(raw) {
		err := json.Unmarshal(raw, &v)
		return v, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, tail := dec.Token(); !errors.Is(tail, io.EOF) {
		return nil, errors.New("trailing data after the JSON value")
	}
	return normalizeNumbers(v), nil
}
