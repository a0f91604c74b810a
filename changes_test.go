package toolexec_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestRegistryNotifiesToolsChanged(t *testing.T) {
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg)
	var n atomic.Int32
	stop := x.SurfaceKit().OnToolsChanged(func() { n.Add(1) })

	require.NoError(t, reg.Add(toolexec.Tool{Name: "a"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}))
	assert.EqualValues(t, 1, n.Load(), "Add notifies")

	assert.Error(t, reg.Add(toolexec.Tool{Name: "a"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}))
	assert.EqualValues(t, 1, n.Load(), "a refused Add changes nothing and notifies nobody")

	assert.False(t, reg.Remove("missing", ""))
	assert.EqualValues(t, 1, n.Load(), "removing nothing notifies nobody")

	assert.True(t, reg.Remove("a", ""))
	assert.EqualValues(t, 2, n.Load(), "Remove notifies")

	stop()
	stop() // idempotent
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "b"}, func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })
	assert.EqualValues(t, 2, n.Load(), "an unregistered listener is not called")
}

func TestExecutorOnToolsChangedWithoutNotifier(t *testing.T) {
	x := toolexec.New(toolexec.StaticTools{{Name: "a"}}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	})
	stop := x.SurfaceKit().OnToolsChanged(func() { t.Fatal("a static provider never changes") })
	stop()
}
