package toolexec_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolexec/toolexec"
)

func benchCall(b *testing.B, tool toolexec.Tool, opts ...toolexec.Option) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(tool, textHandler("ok"))
	x := toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(discard())}, opts...)...)
	req := toolexec.CallRequest{Name: tool.Name, Arguments: json.RawMessage(`{"city":"Oslo","days":3}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallBare is the pipeline with no built-in configured.
func BenchmarkCallBare(b *testing.B) { benchCall(b, toolexec.Tool{Name: "t"}) }

// BenchmarkCallLimitAndTransforms adds a concurrency limit and a transform
// each way.
func BenchmarkCallLimitAndTransforms(b *testing.B) {
	in := func(_ context.Context, c *toolexec.Call) (map[string]any, error) { return c.Arguments, nil }
	out := func(_ context.Context, _ *toolexec.Call, r *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		return r, nil
	}
	benchCall(b, toolexec.Tool{Name: "t"},
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 8}),
		toolexec.WithInputTransforms(in), toolexec.WithOutputTransforms(out))
}

// BenchmarkCallTimeout adds a timeout, which runs the call on a goroutine.
func BenchmarkCallTimeout(b *testing.B) {
	benchCall(b, toolexec.Tool{Name: "t"}, toolexec.WithTimeout(time.Minute))
}

// BenchmarkCallCacheHit answers from the in-memory cache.
func BenchmarkCallCacheHit(b *testing.B) {
	benchCall(b, toolexec.Tool{Name: "t", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}})
}
