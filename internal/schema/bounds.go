package schema

import (
	"github.com/toolexec/toolexec/internal/rawjson"

	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The bounds that keep validation's work and answer linear in the size of
// the input, whatever a caller sends (docs/security.md).
const (
	// MaxFailures is the most failures one validation lists; the rest
	// are counted.
	MaxFailures = 100
	// MaxFailureMessageBytes is the longest message of one failure; a
	// longer one (a pattern failure quoting a long value) is cut and ends
	// with "…".
	MaxFailureMessageBytes = 512
	// MaxFailureBytes bounds the bytes of the failures one validation lists,
	// paths and messages together: a failure that would go over it is
	// omitted, with every failure after it.
	MaxFailureBytes = 32 << 10
)

// numberKeyword and numberMessage are the failure of a number the validator
// cannot check cheaply (see rawjson.MaxNumberDigits).
const (
	numberKeyword = "format"
	numberMessage = "number cannot be checked: a number may have at most 400 digits before its exponent and an exponent from -400 to 400"
)

// numberFailures walks v, a value of the validator's JSON model, and
// returns a failure for each json.Number the validator cannot check cheaply
// (at most MaxFailures of them, the first in document order with object
// members by name) and how many more there are. The walk is linear in the
// size of v, but for sorting each object's member names; float64 values
// are always checkable.
func numberFailures(v any) (fs []Failure, omitted int) {
	if !hasUncheckableNumber(v) {
		return nil, 0 // the common case: one pass, no allocation
	}
	var path []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case json.Number:
			if rawjson.CheckableNumber(string(v)) {
				return
			}
			if len(fs) >= MaxFailures {
				omitted++
				return
			}
			fs = append(fs, Failure{Path: jsonPointer(path), Message: numberMessage, Keyword: numberKeyword})
		case map[string]any:
			// Members in name order, so that which failures are listed
			// (and which are counted as omitted) is the same on every run.
			for _, k := range slices.Sorted(maps.Keys(v)) {
				e := v[k]
				switch e.(type) {
				case json.Number, map[string]any, []any:
					path = append(path, k)
					walk(e)
					path = path[:len(path)-1]
				}
			}
		case []any:
			for i, e := range v {
				switch e.(type) {
				case json.Number, map[string]any, []any:
					path = append(path, strconv.Itoa(i))
					walk(e)
					path = path[:len(path)-1]
				}
			}
		}
	}
	walk(v)
	return fs, omitted
}

// hasUncheckableNumber reports whether v holds a json.Number beyond the
// validator's bounds.
func hasUncheckableNumber(v any) bool {
	switch v := v.(type) {
	case json.Number:
		return !rawjson.CheckableNumber(string(v))
	case map[string]any:
		for _, e := range v {
			if hasUncheckableNumber(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasUncheckableNumber(e) {
				return true
			}
		}
	}
	return false
}

// boundFailures keeps the failures an answer lists within
// MaxFailures and MaxFailureBytes, each message within
// MaxFailureMessageBytes, and returns them with the count of those left
// out, added to omitted. fs is reused.
func boundFailures(fs []Failure, omitted int) ([]Failure, int) {
	total := 0
	for i := range fs {
		fs[i].Message = cutMessage(fs[i].Message)
		total += len(fs[i].Path) + len(fs[i].Message) + len(fs[i].Keyword)
		if i >= MaxFailures || total > MaxFailureBytes {
			return fs[:i:i], omitted + len(fs) - i
		}
	}
	return fs, omitted
}

// cutMessage cuts s to MaxFailureMessageBytes, on a rune boundary, ending
// it with "…".
func cutMessage(s string) string {
	if len(s) <= MaxFailureMessageBytes {
		return s
	}
	end := MaxFailureMessageBytes - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

// OmittedNote is the line that says how many failures were left out.
func OmittedNote(n int) string {
	if n == 1 {
		return "1 more failure was omitted"
	}
	return strconv.Itoa(n) + " more failures were omitted"
}
