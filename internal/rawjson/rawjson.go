package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/toolexec/toolexec/internal/jsonwalk"
)

// The bounds on a JSON number that exact arithmetic on it may cost.
const (
	// MaxNumberDigits is the most digits a JSON number may have before its
	// exponent ("1234.5e6" has 5) for exact arithmetic on it to stay cheap.
	MaxNumberDigits = 400
	// MaxNumberExponent bounds a JSON number's exponent, in magnitude, for
	// exact arithmetic on it to stay cheap.
	MaxNumberExponent = 400
)

// DecodeObject decodes raw, a JSON object, into the map tool handlers
// receive; empty or null raw is an empty map. A nil map means raw is not a
// JSON object (the error, when not nil, says why).
//
// Numbers arrive as float64, as encoding/json decodes them into any, when
// float64 holds them as sent: every number of up to 15 significant digits
// within float64's range, every integer up to 2^53, and any other number
// whose float64 reads back the same. Any other number (9007199254740993,
// 0.100000000000000001, 1e400) arrives as a json.Number holding the
// caller's exact text, so nothing the caller sent is silently rounded. Typed tools decode
// either form into their Go types exactly.
func DecodeObject(raw []byte) (map[string]any, error) {
	if IsNullOrEmpty(raw) {
		return map[string]any{}, nil
	}
	if !MayHoldInexactNumber(raw) {
		// Every number has at most 15 digits and no exponent: float64 holds
		// each exactly, and the plain decoder is the fast one, but for the
		// usual arguments, which decodeFlat reads faster still.
		if args, ok := decodeFlat(raw); ok {
			return args, nil
		}
		var args map[string]any
		if err := json.Unmarshal(raw, &args); err != nil || args == nil {
			return nil, err
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
		return nil, err
	}
	normalizeNumbers(args)
	return args, nil
}

// decodeFlat decodes raw as json.Unmarshal decodes it into a map when raw
// is a valid JSON object whose member names and string values are plain
// ASCII (no escapes) and whose values are all strings, numbers of at most
// 15 digits without an exponent (see MayHoldInexactNumber), true, false
// or null; it reports false for anything else, which json.Unmarshal then
// decodes (or refuses), so the answer is the same either way.
func decodeFlat(raw []byte) (map[string]any, bool) {
	obj := TrimSpace(raw)
	if len(obj) < 2 || obj[0] != '{' || !jsonwalk.Valid(obj) {
		return nil, false
	}
	args := make(map[string]any)
	for it := jsonwalk.Members(obj); it.Next(); {
		name := it.Key[1 : len(it.Key)-1]
		if !jsonwalk.PlainASCII(name) {
			return nil, false
		}
		var v any
		switch val := it.Val; val[0] {
		case '"':
			inner := val[1 : len(val)-1]
			if !jsonwalk.PlainASCII(inner) {
				return nil, false
			}
			v = string(inner)
		case 't':
			v = true
		case 'f':
			v = false
		case 'n':
			v = nil
		case '{', '[':
			return nil, false
		default: // a number, valid JSON: strconv reads it as encoding/json does
			f, err := strconv.ParseFloat(string(val), 64)
			if err != nil {
				return nil, false
			}
			v = f
		}
		args[string(name)] = v
	}
	return args, true
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
	if !CheckableNumber(s) {
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

// IsNullOrEmpty reports whether raw is empty, blank or the literal null.
func IsNullOrEmpty(raw []byte) bool {
	t := TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}

// MayHoldInexactNumber reports whether raw may hold a number float64 does
// not keep exactly: one with more than 15 digits, or with an exponent. It
// looks at numbers only, skipping strings; a false alarm only costs the
// slower exact decoding.
func MayHoldInexactNumber(raw []byte) bool {
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

// DecodeValue decodes one JSON value of any kind with the number rules of
// DecodeObject: float64 where exact, json.Number otherwise.
func DecodeValue(raw []byte) (any, error) {
	var v any
	if !MayHoldInexactNumber(raw) {
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

// CheckableNumber reports whether the JSON number s is within
// MaxNumberDigits and MaxNumberExponent. It reads s once.
func CheckableNumber(s string) bool {
	digits, i := 0, 0
	for ; i < len(s); i++ {
		c := s[i]
		if c == 'e' || c == 'E' {
			break
		}
		if c >= '0' && c <= '9' {
			if digits++; digits > MaxNumberDigits {
				return false
			}
		}
	}
	if i >= len(s) {
		return true
	}
	exp := s[i+1:]
	if len(exp) > 0 && (exp[0] == '+' || exp[0] == '-') {
		exp = exp[1:]
	}
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	if len(exp) > 4 {
		return false
	}
	e, err := strconv.Atoi(exp)
	return err == nil && e <= MaxNumberExponent
}

// TrimSpace returns b without the JSON white space (space, tab, CR, LF) at
// either end.
func TrimSpace(b []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}
