package toolexec

import (
	"context"
	"encoding/json"
	"testing"
)

type benchTypedIn struct {
	City  string   `json:"city"`
	Days  int      `json:"days,omitempty"`
	Units *string  `json:"units,omitempty"`
	Tags  []string `json:"tags,omitempty"`
}

type benchTypedOut struct {
	Days int `json:"days"`
}

// benchTyped measures one in-process call of a typed tool, opts added.
func benchTyped(b *testing.B, opts ...Option) {
	reg := NewRegistry()
	MustAddTool(reg, Tool{Name: "forecast"}, func(_ context.Context, in benchTypedIn) (benchTypedOut, error) {
		return benchTypedOut{Days: in.Days}, nil
	})
	x := New(reg, reg, append([]Option{WithAllowExecute(true), WithLogger(discardLogger())}, opts...)...)
	req := CallRequest{Name: "forecast", Arguments: json.RawMessage(`{"city": "Oslo", "days": 3, "units": "metric", "tags": ["a", "b"]}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallTyped is a typed tool's call with validation on: the typed
// fast path.
func BenchmarkCallTyped(b *testing.B) { benchTyped(b) }

// BenchmarkCallTypedGeneric is the same call behind a no-op interceptor,
// which keeps it on the generic path (map, validator, decode into In).
func BenchmarkCallTypedGeneric(b *testing.B) {
	benchTyped(b, WithInterceptors(func(next CallFunc) CallFunc { return next }))
}
