package toolexec

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestOnlyValidatesHoldsExactlyWhenNoOtherBuiltinApplies checks the
// predicate that lets a call skip the timeout, limit, transform and cache
// interceptors: it must be false whenever any of them, configured on the
// Executor or on the tool, would do something, and true only when none
// would.
func TestOnlyValidatesHoldsExactlyWhenNoOtherBuiltinApplies(t *testing.T) {
	in := func(context.Context, *Call) (map[string]any, error) { return nil, nil }
	out := func(_ context.Context, _ *Call, r *CallToolResult) (*CallToolResult, error) { return r, nil }
	tests := []struct {
		name string
		opts []Option
		tool ToolOptions
		want bool
	}{
		{name: "nothing configured", want: true},
		{name: "executor timeout", opts: []Option{WithTimeout(time.Second)}},
		{name: "tool timeout", tool: ToolOptions{Timeout: time.Second}},
		{name: "tool timeout off under executor timeout", opts: []Option{WithTimeout(time.Second)}, tool: ToolOptions{Timeout: -1}, want: true},
		{name: "executor limit", opts: []Option{WithConcurrencyLimit(ConcurrencyLimit{Max: 2})}},
		{name: "tool limit", tool: ToolOptions{ConcurrencyLimit: &ConcurrencyLimit{Max: 2}}},
		{name: "tool unlimited under executor limit", opts: []Option{WithConcurrencyLimit(ConcurrencyLimit{Max: 2})}, tool: ToolOptions{ConcurrencyLimit: &ConcurrencyLimit{}}, want: true},
		{name: "executor rate limit", opts: []Option{WithRateLimit(RateLimit{Rate: 5})}},
		{name: "tool rate limit", tool: ToolOptions{RateLimit: &RateLimit{Rate: 5}}},
		{name: "tool without rate under executor rate", opts: []Option{WithRateLimit(RateLimit{Rate: 5})}, tool: ToolOptions{RateLimit: &RateLimit{}}, want: true},
		{name: "executor input transform", opts: []Option{WithInputTransforms(in)}},
		{name: "tool input transform", tool: ToolOptions{InputTransforms: []InputTransform{in}}},
		{name: "executor output transform", opts: []Option{WithOutputTransforms(out)}},
		{name: "tool output transform", tool: ToolOptions{OutputTransforms: []OutputTransform{out}}},
		{name: "tool cache", tool: ToolOptions{Cache: true}},
		{name: "validation off changes nothing here", opts: []Option{WithValidation(false)}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &Registry{}
			x := New(reg, reg, tt.opts...)
			tool := Tool{Name: "t", Options: tt.tool}
			assert.Equal(t, tt.want, x.onlyValidates(&tool))
			// Each built-in's own pass-through test agrees.
			l, done := x.limiterFor(&tool)
			if done != nil {
				done()
			}
			_, _, rated := x.rateFor(&tool)
			none := x.timeoutFor(&tool) <= 0 && l == nil && !rated && !tool.Options.Cache &&
				len(x.inputTransforms)+len(tool.Options.InputTransforms) == 0 &&
				len(x.outputTransforms)+len(tool.Options.OutputTransforms) == 0
			assert.Equal(t, none, x.onlyValidates(&tool))
		})
	}
}
