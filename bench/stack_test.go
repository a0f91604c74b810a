package bench

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStackDepthMeasuresTheFramesACallAdds runs handlers that add known
// numbers of padding frames and checks what StackDepth reports for them: no
// more than the harness for a handler that adds nothing, and, between two
// handlers deep enough to be the call's deepest point, exactly the frames
// that separate them, to within one padding step.
func TestStackDepthMeasuresTheFramesACallAdds(t *testing.T) {
	r := WireJSONRPC.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`))
	null := func() { Serve(Null(nil), r) }
	depth := func(levels int) int {
		h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			pad(levels, func() { w.WriteHeader(http.StatusOK) })
		})
		return StackDepth(func() { Serve(h, r) }, null)
	}
	assert.LessOrEqual(t, depth(0), StackStep)
	d20, d60 := depth(20), depth(60)
	assert.Greater(t, d20, 0)
	assert.InDelta(t, 40*StackStep, d60-d20, float64(StackStep))
}
