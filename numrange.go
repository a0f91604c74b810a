package toolexec

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// numbersOutOfRange lists every number in v, a JSON value decoded with its
// numbers kept exact (json.Number), that does not fit a float64: 1e400, or
// an integer of more than 308 digits. Handlers receive numbers as float64,
// so such a number can never reach one; each is one failure at its JSON
// Pointer, keyword "format", sorted by path.
func numbersOutOfRange(v any) []ValidationFailure {
	var out []ValidationFailure
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch v := v.(type) {
		case json.Number:
			if _, err := strconv.ParseFloat(string(v), 64); errors.Is(err, strconv.ErrRange) {
				out = append(out, ValidationFailure{Path: path, Keyword: "format",
					Message: "number " + truncateNumber(string(v)) + " is out of range: numbers must fit a 64-bit float"})
			}
		case map[string]any:
			for k, e := range v {
				walk(e, path+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"))
			}
		case []any:
			for i, e := range v {
				walk(e, path+"/"+strconv.Itoa(i))
			}
		}
	}
	walk(v, "")
	slices.SortFunc(out, func(a, b ValidationFailure) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// outOfRangeArguments explains why arguments that are well-formed JSON did
// not decode: the numbers in them that do not fit a float64. It returns nil
// when that is not the reason (raw is not JSON, or not an object).
func outOfRangeArguments(raw json.RawMessage) []ValidationFailure {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	if _, ok := v.(map[string]any); !ok {
		return nil
	}
	return numbersOutOfRange(v)
}

// truncateNumber keeps a failure message short whatever the number's length.
func truncateNumber(s string) string {
	const limit = 32
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}
