package toolexec

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type ctxProbeKey struct{}

// TestCallContextBehavesAsWithCall: the context a call runs in, which holds
// the Call itself, answers as the context.WithValue of withCall would: the
// call, its parent's values, deadline, cancellation and cause, and the
// same name when printed (never the call's arguments).
func TestCallContextBehavesAsWithCall(t *testing.T) {
	parent, cancel := context.WithCancelCause(context.WithValue(context.Background(), ctxProbeKey{}, "v"))
	parent, cancelT := context.WithTimeout(parent, time.Hour)
	defer cancelT()
	cc := &callContext{Context: parent}
	cc.call.Arguments = map[string]any{"secret": "s3cr3t"}
	plain := withCall(parent, &cc.call)

	for _, ctx := range []context.Context{cc, plain} {
		assert.Same(t, &cc.call, CallFromContext(ctx))
		assert.Equal(t, "v", ctx.Value(ctxProbeKey{}))
		dl, ok := ctx.Deadline()
		assert.True(t, ok)
		pdl, _ := parent.Deadline()
		assert.Equal(t, pdl, dl)
	}
	named := &callContext{Context: context.WithValue(context.Background(), ctxProbeKey{}, "v")} // no deadline: its text changes by the nanosecond
	assert.Equal(t, fmt.Sprint(withCall(named.Context, &named.call)), fmt.Sprint(named))
	assert.Equal(t, "context.Background.WithValue(toolexec.ctxProbeKey, v).WithValue(toolexec.contextKey, *toolexec.Call)", fmt.Sprint(named))
	assert.NotContains(t, fmt.Sprintf("%v %+v %s", cc, cc, cc), "s3cr3t")

	child, cancelChild := context.WithCancel(cc)
	defer cancelChild()
	cause := errors.New("gone")
	cancel(cause)
	<-child.Done()
	<-cc.Done()
	require.ErrorIs(t, child.Err(), context.Canceled)
	assert.Equal(t, cause, context.Cause(child))
	assert.Equal(t, cause, context.Cause(cc))
}
