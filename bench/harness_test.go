package bench

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The benchmark loop reuses one Caller: every contender must answer every
// call of it as it answers the first, run the tool each time, and leave the
// shared request header alone (CheckCall checks the header).
func TestEveryContenderAnswersEveryCallOfOneCaller(t *testing.T) {
	const n = 25
	for _, c := range Contenders() {
		t.Run(c.Name, func(t *testing.T) {
			g := NewGate()
			h := c.New(g)
			require.NoError(t, CheckCall(c.Wire, h, ToolAdd, []byte(`{"a":2,"b":40}`), 42))
			cl := NewCaller(h, c.Wire.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`)))
			for i := range n {
				cl.Call()
				w := cl.Response()
				out, err := c.Wire.ParseCall(w.Status(), w.Header(), w.Body())
				require.NoError(t, err, "call %d", i)
				require.Equal(t, 42, out.Sum, "call %d: %s", i, w.Body())
			}
			assert.Equal(t, int64(n+1), g.Ran())
		})
	}
}

func TestCallerSendsTheWholeBodyEveryTime(t *testing.T) {
	var got []string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		got = append(got, string(b))
		assert.Equal(t, int64(len(b)), r.ContentLength)
		assert.Equal(t, "/tools/add/call", r.URL.Path)
		assert.Equal(t, "/tools/add/call", r.RequestURI)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		w.WriteHeader(http.StatusAccepted)
	})
	c := NewCaller(h, WireREST.CallRequest(ToolAdd, []byte(`{"a":1,"b":2}`)))
	c.Call()
	c.Call()
	assert.Equal(t, []string{`{"a":1,"b":2}`, `{"a":1,"b":2}`}, got)
	assert.Equal(t, http.StatusAccepted, c.Response().Status())
}

func TestCallerCancelsEachCallsContextWhenItReturns(t *testing.T) {
	var ctxs []context.Context
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.Context().Err(), "canceled before the handler returned")
		ctxs = append(ctxs, r.Context())
	})
	c := NewCaller(h, WireREST.ListRequest())
	c.Call()
	c.Call()
	require.Len(t, ctxs, 2)
	assert.NotSame(t, ctxs[0], ctxs[1], "each call has its own context")
	for _, ctx := range ctxs {
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
	}
}

func TestWriterStartsEveryCallEmpty(t *testing.T) {
	first := true
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if first {
			first = false
			w.Header().Set("X-First", "1")
			w.WriteHeader(http.StatusTeapot)
			w.WriteHeader(http.StatusOK) // ignored, as net/http ignores it
			_, _ = w.Write([]byte("one"))
			return
		}
		_, _ = w.Write([]byte("two"))
	})
	c := NewCaller(h, WireREST.ListRequest())
	c.Call()
	w := c.Response()
	assert.Equal(t, http.StatusTeapot, w.Status())
	assert.Equal(t, "1", w.Header().Get("X-First"))
	assert.Equal(t, "one", string(w.Body()))
	c.Call()
	assert.Equal(t, http.StatusOK, w.Status(), "a Write without WriteHeader is a 200")
	assert.Empty(t, w.Header())
	assert.Equal(t, "two", string(w.Body()))
}

// The harness's cost is what Null measures: the Caller's own allocations
// (the request copy and the cancelable context) and nothing from Null.
func TestNullAllocatesOnlyWhatTheCallerDoes(t *testing.T) {
	c := NewCaller(Null(nil), WireJSONRPC.CallRequest(ToolAdd, []byte(`{"a":2,"b":40}`)))
	allocs := testing.AllocsPerRun(200, c.Call)
	assert.LessOrEqual(t, allocs, 3.0)
	assert.Equal(t, http.StatusOK, c.Response().Status())
	assert.Equal(t, "application/json", c.Response().Header().Get("Content-Type"))
}

func TestMeasureCountsCallsAndAllocations(t *testing.T) {
	c := NewCaller(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X", "y") // one allocation: the value's slice
	}), WireREST.ListRequest())
	n := Calibrate(c, 0)
	assert.GreaterOrEqual(t, n, 1)
	s := Measure(c, 100)
	assert.Equal(t, 100, s.N)
	assert.GreaterOrEqual(t, s.AllocsPerOp(), 1.0)
	assert.Greater(t, s.BytesPerOp(), 0.0)
	assert.Zero(t, Sample{}.CPUPerOp(), "no calls, no cost")
}

func TestRESTFloorRefusesArgumentsThatDoNotDecode(t *testing.T) {
	g := NewGate()
	w := Serve(RESTFloor().New(g), WireREST.CallRequest(ToolAdd, []byte(`{"a":"two","b":40}`)))
	assert.Equal(t, http.StatusUnprocessableEntity, w.Status())
	out, err := WireREST.ParseCall(w.Status(), w.Header(), w.Body())
	require.NoError(t, err)
	assert.True(t, out.IsError)
	assert.Zero(t, g.Ran())
}

func TestRESTFloorAnswersUnknownToolsAndPathsWith404(t *testing.T) {
	h := RESTFloor().New(NewGate())
	assert.Equal(t, http.StatusNotFound, Serve(h, WireREST.CallRequest("nope", []byte(`{}`))).Status())
	assert.Equal(t, http.StatusNotFound, Serve(h, Request{Method: http.MethodPost, Path: "/tools//call"}).Status())
	assert.Equal(t, http.StatusMethodNotAllowed, Serve(h, Request{Method: http.MethodGet, Path: "/tools/add/call"}).Status())
}
