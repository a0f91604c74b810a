package toolexec

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mintingProvider finds a tool for any name, each with its own limit: a
// provider that mints tool names.
type mintingProvider struct{ limit ConcurrencyLimit }

func (mintingProvider) Tools() []Tool { return nil }

func (p mintingProvider) LookupTool(name, _ string) (Tool, bool) {
	l := p.limit
	return Tool{Name: name, Options: ToolOptions{ConcurrencyLimit: &l}}, true
}

func TestPerToolLimitersAreBounded(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	h := ToolCallHandlerFunc(func(_ context.Context, name string, _ map[string]any) ([]Content, bool, string, error) {
		if name == "held" {
			started <- struct{}{}
			<-release
		}
		return nil, false, "", nil
	})
	x := New(mintingProvider{ConcurrencyLimit{Max: 1, FailFast: true}}, h, WithAllowExecute(true), WithLogger(discardLogger()))

	// One call in flight on "held", then 3x the bound of other names.
	done := make(chan error)
	go func() {
		_, err := x.Call(context.Background(), CallRequest{Name: "held"})
		done <- err
	}()
	<-started
	for i := range 3 * maxIdleLimiters {
		_, err := x.Call(context.Background(), CallRequest{Name: fmt.Sprintf("minted-%d", i)})
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, x.toolLimiters.len(), maxIdleLimiters+1, "idle limiters are dropped past the bound")

	// The held tool kept its limiter through the churn: its limit holds.
	_, err := x.Call(context.Background(), CallRequest{Name: "held"})
	e, ok := AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, CodeUnavailable, e.Code, "the in-flight call still counts")
	close(release)
	require.NoError(t, <-done)
	assert.LessOrEqual(t, x.toolLimiters.len(), maxIdleLimiters+1)
}
