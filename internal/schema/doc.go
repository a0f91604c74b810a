// Package schema is the JSON Schema machinery of the call pipeline:
// compiling a tool's schema (github.com/santhosh-tekuri/jsonschema/v6, no
// external references loaded), a cache that compiles each schema once,
// validating a value with its failures worded, sorted and bounded, and the
// bounds that keep validation's work linear in the size of its input.
package schema
