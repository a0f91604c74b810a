package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every feature's handler answers its call correctly, the streamed one
// with an event stream, the others with JSON.
func TestEveryFeatureAnswersItsCall(t *testing.T) {
	fs := Features()
	require.Equal(t, FeatureNone, fs[0].Name)
	for _, f := range fs {
		t.Run(f.Name, func(t *testing.T) {
			h := f.New()
			for range 3 { // a cache answers the second call
				rec := Serve(h, f.Request)
				out, err := WireJSONRPC.ParseCall(rec.Status(), rec.Header(), rec.Body())
				require.NoError(t, err)
				assert.Equal(t, 42, out.Sum)
				assert.False(t, out.IsError)
				streamed := rec.Header().Get("Content-Type") == "text/event-stream"
				assert.Equal(t, f.Name == "+ progress (SSE)", streamed, "%s", rec.Body())
			}
		})
	}
}
