package toolexec

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
	// Errors lists every failure when Valid is false.
	Errors []ValidationFailure `json:"errors,omitempty"`
}
