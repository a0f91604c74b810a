package httpjson

import "unicode/utf8"

// ValidUTF8 returns data, JSON, with each byte that is not part of a valid
// UTF-8 sequence replaced by U+FFFD, as encoding/json replaces them in the
// strings it writes. Such bytes can only come from raw JSON passed through
// (a json.RawMessage result, an echoed id), and only inside strings, where
// U+FFFD is valid, so the output is valid UTF-8 JSON. Valid data, the common
// case, is returned as it is after one check.
func ValidUTF8(data []byte) []byte {
	if utf8.Valid(data) {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			out = append(out, "\uFFFD"...)
		} else {
			out = append(out, data[i:i+n]...)
		}
		i += n
	}
	return out
}
