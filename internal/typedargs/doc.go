// Package typedargs checks a typed tool's JSON arguments against the schema
// inferred from its Go input type without decoding them into a map, so that
// a typed tool skips the generic JSON Schema validator and the map on its
// hot path.
//
// A Plan is built once per tool (For) from the Go type and the schema
// document inferred from it, and only when every keyword of that document is
// one the plan checks itself; otherwise For refuses and the caller keeps the
// generic validator. Plan.Check reads the raw arguments once and answers
// only "accepted": it is exact on acceptance (it accepts a value if and only
// if the validator accepts it for that schema, apart from the refusals listed
// on Check, which only send a call back to the generic path). A rejected
// value is left to the generic validator, whose failures (paths, keywords,
// wording, bounds) the caller reports unchanged.
package typedargs
