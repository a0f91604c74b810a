package oxp_test

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

func okTool(string, map[string]any) ([]toolexec.Content, bool, string, error) {
	return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
}

// TestCallsSeeEveryChangeOfTheToolSet: the names tool ids resolved to are
// remembered only until the registry changes, so a name that comes to
// share its OXP name with another stops being served at once, and is served
// again once the other is gone.
func TestCallsSeeEveryChangeOfTheToolSet(t *testing.T) {
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "a.b", Version: "1.0.0"}, okTool)
	h := newHandler(t, reg, nil)
	for range 2 { // the second time from what the first remembered
		for _, id := range []string{"a.b", "a_b", "a.b@1", "a_b@1.0.0"} {
			assert.Equal(t, true, callBody(t, call(h, `{"tool_id": "`+id+`"}`))["success"], id)
		}
	}

	reg.MustAdd(toolexec.Tool{Name: "a/b", Version: "2.0.0"}, okTool) // also a.b, a_b
	for _, id := range []string{"a.b", "a_b", "a.b@1"} {
		assert.Equal(t, http.StatusBadRequest, call(h, `{"tool_id": "`+id+`"}`).Code, "%s names two tools now", id)
	}

	require.True(t, reg.Remove("a/b", "2.0.0"))
	reg.MustAdd(toolexec.Tool{Name: "a.b", Version: "1.1.0"}, okTool)
	m := callBody(t, call(h, `{"tool_id": "a.b", "call_id": "c"}`))
	assert.Equal(t, true, m["success"])
	var got string
	reg.MustAdd(toolexec.Tool{Name: "a.b", Version: "1.2.0"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		got = oxp.FromContext(ctx).ToolID
		return nil, false, "", nil
	})
	callBody(t, call(h, `{"tool_id": "a_b"}`))
	assert.Equal(t, "a.b@1.2.0", got, "the latest version, looked up on every call")

	require.True(t, reg.Remove("a.b", "1.0.0"))
	require.True(t, reg.Remove("a.b", "1.1.0"))
	require.True(t, reg.Remove("a.b", "1.2.0"))
	assert.Equal(t, http.StatusBadRequest, call(h, `{"tool_id": "a.b"}`).Code, "gone")
}

// TestToolIDsResolveTheSameWhileTheToolSetChanges calls while another
// goroutine changes the registry (run it with -race): every answer is a
// call of the one tool or a refusal, never a wrong tool.
func TestToolIDsResolveTheSameWhileTheToolSetChanges(t *testing.T) {
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "k.t"}, okTool)
	h := newHandler(t, reg, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			reg.MustAdd(toolexec.Tool{Name: "k/t"}, okTool)
			reg.Remove("k/t", "")
		}
	})
	for range 200 {
		w := call(h, `{"tool_id": "k.t"}`)
		require.Contains(t, []int{http.StatusOK, http.StatusBadRequest}, w.Code, w.Body.String())
	}
	close(stop)
	wg.Wait()
	assert.Equal(t, http.StatusOK, call(h, `{"tool_id": "k.t"}`).Code, "k/t is gone")
}

// notifying is a static list that counts its change subscribers.
type notifying struct {
	toolexec.StaticTools
	subscribers *atomic.Int64
}

func (n notifying) OnToolsChanged(func()) (stop func()) {
	n.subscribers.Add(1)
	var once sync.Once
	return func() { once.Do(func() { n.subscribers.Add(-1) }) }
}

// TestAHandlerNoLongerUsedStopsListeningForChanges: a provider that
// outlives its handlers does not keep them.
func TestAHandlerNoLongerUsedStopsListeningForChanges(t *testing.T) {
	var subscribers atomic.Int64
	p := notifying{toolexec.StaticTools{{Name: "k.t"}}, &subscribers}
	x := toolexec.New(p, okTool, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()))
	for range 10 {
		h := oxp.NewHandler(x)
		assert.Equal(t, http.StatusOK, call(h, `{"tool_id": "k.t"}`).Code)
	}
	require.Positive(t, subscribers.Load())
	require.Eventually(t, func() bool {
		runtime.GC()
		return subscribers.Load() == 0
	}, 10*time.Second, 10*time.Millisecond, "every dropped handler unsubscribes")
}
