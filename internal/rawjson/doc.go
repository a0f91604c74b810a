// Package rawjson holds the JSON helpers the call pipeline and the
// validator share: decoding arguments with every number kept exact (float64
// where it holds the number as sent, json.Number otherwise), the bounds
// beyond which exact arithmetic on a number would cost too much, and small
// byte-level checks on raw JSON.
package rawjson
