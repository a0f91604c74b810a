package toolexec

import (
	"strings"

	"github.com/toolexec/toolexec/internal/schema"
)

// ValidationFailure is one way a JSON value fails a tool's input schema.
type ValidationFailure struct {
	// Path is a JSON Pointer to the failing value; "" is the root.
	Path string `json:"path"`
	// Message says what is wrong in the validator's own words.
	Message string `json:"message"`
	// Keyword is the JSON Schema keyword that failed ("required", "type",
	// ...), or "format" for a body that is not JSON and "schema" for a schema
	// that cannot be compiled.
	Keyword string `json:"keyword"`
}

// ValidateResult is the outcome of validating arguments against a tool's
// input schema, as POST /tools/{name}/validate answers it. Errors is omitted
// from the JSON when Valid is true.
type ValidateResult struct {
	// Valid reports whether the value passes the schema.
	Valid bool `json:"valid"`
	// Errors lists the failures when Valid is false: every one, up to
	// MaxValidationFailures and MaxFailureBytes.
	Errors []ValidationFailure `json:"errors,omitempty"`
	// Omitted counts the failures left out of Errors; omitted from the
	// JSON when none were.
	Omitted int `json:"omitted,omitempty"`
}

// Tokens returns the reference tokens of f.Path, unescaped as JSON Pointer
// says ("~1" is '/', "~0" is '~'): nil for the root, ["address", "city"]
// for "/address/city". Surfaces use them to name the failing parameter.
func (f ValidationFailure) Tokens() []string {
	if !strings.HasPrefix(f.Path, "/") {
		return nil
	}
	tokens := strings.Split(f.Path[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens
}

// failuresOf converts the validator's failures to the public type.
func failuresOf(fs []schema.Failure) []ValidationFailure {
	if fs == nil {
		return nil
	}
	out := make([]ValidationFailure, len(fs))
	for i, f := range fs {
		out[i] = ValidationFailure(f)
	}
	return out
}

// nonNilFailures returns fs, or an empty list for nil, so that it encodes
// as [] rather than null.
func nonNilFailures(fs []ValidationFailure) []ValidationFailure {
	if fs == nil {
		return []ValidationFailure{}
	}
	return fs
}
