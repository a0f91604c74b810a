package schema

// Failure is one way a JSON value fails a schema. Its fields match the
// public toolexec.ValidationFailure, which converts from it.
type Failure struct {
	// Path is a JSON Pointer to the failing value; "" is the root.
	Path string `json:"path"`
	// Message says what is wrong in the validator's own words.
	Message string `json:"message"`
	// Keyword is the JSON Schema keyword that failed, or "format" for a
	// value that is not JSON and "schema" for a schema that cannot be
	// compiled.
	Keyword string `json:"keyword"`
}
