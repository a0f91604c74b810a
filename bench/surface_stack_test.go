package bench

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
)

// maxSurfaceStack bounds the stack a surface of toolexec may add to a call
// above the pipeline's own (toolexec.Executor.Call): over a real
// connection, every byte of it is stack that net/http's long-lived
// connection goroutine grows back after each collection (see StackDepth).
const maxSurfaceStack = 2 << 10

// TestSurfacesAddLittleStackAboveThePipeline measures, for each of
// toolexec's wire surfaces, the stack a call needs beyond what the same
// call needs when a bare handler passes it straight to Executor.Call: what
// the surface's own frames add, wherever its deepest point is.
func TestSurfacesAddLittleStackAboveThePipeline(t *testing.T) {
	args := []byte(`{"a":2,"b":40}`)
	null := func() { Serve(Null(nil), WireJSONRPC.CallRequest(ToolAdd, args)) }
	for _, c := range []struct {
		contender Contender
		surface   toolexec.Surface
	}{
		{ToolexecMCP(), toolexec.SurfaceMCP},
		{ToolexecOXP(), toolexec.SurfaceOXP},
		{ToolexecREST(), toolexec.SurfaceREST},
	} {
		t.Run(c.contender.Name, func(t *testing.T) {
			r := c.contender.Wire.CallRequest(ToolAdd, args)
			surface := c.contender.New(NewGate())
			require200(t, Serve(surface, r))
			bare := bareCaller(toolexecExecutor(NewGate()), c.surface, args)
			require200(t, Serve(bare, r))

			added := StackDepth(func() { Serve(surface, r) }, null) - StackDepth(func() { Serve(bare, r) }, null)
			t.Logf("%s adds %d bytes of stack above Executor.Call", c.contender.Name, added)
			assert.LessOrEqual(t, added, maxSurfaceStack, "bytes of stack the surface adds above Executor.Call")
		})
	}
}

// bareCaller is the least a surface can be: a handler that calls ToolAdd
// with args through x and writes the result, reading nothing of the
// request.
func bareCaller(x *toolexec.Executor, surface toolexec.Surface, args []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, err := x.Call(r.Context(), toolexec.CallRequest{Name: ToolAdd, Arguments: args, Request: r, Surface: surface})
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		data, _ := res.MarshalJSON()
		_, _ = w.Write(data)
	})
}

func require200(t *testing.T, w *Writer) {
	t.Helper()
	if w.Status() != http.StatusOK {
		t.Fatalf("status %d: %s", w.Status(), truncate(w.Body()))
	}
}

// maxPipelineStack bounds the stack Executor.Call itself needs for a typed
// tool's call, under the same harness: every surface pays it.
const maxPipelineStack = 3 << 10

// TestThePipelineNeedsLittleStack measures the stack a call of a typed tool
// needs through a bare handler that passes it straight to Executor.Call:
// the pipeline's own frames, from the call to the handler and back,
// whatever the surface.
func TestThePipelineNeedsLittleStack(t *testing.T) {
	args := []byte(`{"a":2,"b":40}`)
	r := WireJSONRPC.CallRequest(ToolAdd, args)
	null := func() { Serve(Null(nil), r) }
	bare := bareCaller(toolexecExecutor(NewGate()), toolexec.SurfaceGo, args)
	require200(t, Serve(bare, r))
	depth := StackDepth(func() { Serve(bare, r) }, null)
	t.Logf("a call through Executor.Call needs %d bytes of stack beyond the harness", depth)
	assert.LessOrEqual(t, depth, maxPipelineStack)
}
