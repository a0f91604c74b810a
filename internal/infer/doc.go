// Package infer derives a JSON Schema from a Go type, for typed tools: the
// inference of github.com/google/jsonschema-go with the corrections that
// make the schema describe what encoding/json actually reads and writes.
package infer
