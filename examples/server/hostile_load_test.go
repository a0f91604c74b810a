//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The adversarial load test: 200 clients mix hostile bodies (numbers the
// validator cannot check cheaply, failure-dense arguments, deep nesting,
// invalid UTF-8) with normal calls, on every surface, for a fixed time.
// Every normal call must be answered correctly, every hostile one with a
// bounded, well-formed refusal; the heap must stay under a stated bound,
// and a hostile request must cost at most a stated multiple of the CPU of a
// normal one. docs/security.md quotes these bounds.
//
// `make test` runs it for a few seconds; `make soak` (TOOLEXEC_SOAK=1) for
// a minute.

const (
	// hostilePeakHeap bounds the heap in use, sampled every 5 ms, while 200
	// clients mix hostile and normal calls.
	hostilePeakHeap = 256 << 20
	// hostileCPUMultiple bounds the process CPU time of one hostile request
	// (at most hostileDenseBytes of arguments) over that of a normal call.
	hostileCPUMultiple = 20
	// hostileAnswerBytes bounds every answer to a hostile request.
	hostileAnswerBytes = 64 << 10
	// hostileDenseBytes is the size of the failure-dense bodies.
	hostileDenseBytes = 4 << 10
)

func hostileDuration() time.Duration {
	if os.Getenv("TOOLEXEC_SOAK") != "" {
		return time.Minute
	}
	return 3 * time.Second
}

// hostileBody is one kind of hostile arguments for the stats tool
// ({"numbers": [number, ...]}).
type hostileBody struct {
	name string
	args string
}

func hostileBodies() []hostileBody {
	numbers := func(item string, size int) string {
		var b strings.Builder
		b.WriteString(`{"numbers":[`)
		for i := 0; b.Len() < size; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(item)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	return []hostileBody{
		{"huge exponents", numbers("1e-999999", 380)},
		{"dense failures", numbers(`""`, hostileDenseBytes)},
		{"deep nesting", `{"numbers":[` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `]}`},
		{"invalid UTF-8", "{\"numbers\":[\"\xff\xfe\"]}"},
	}
}

// hostileRequest is a hostile body sent to one surface.
type hostileRequest struct {
	surface, path, body string
	header              []string
}

func hostileRequests() []hostileRequest {
	var out []hostileRequest
	for _, h := range hostileBodies() {
		out = append(out,
			hostileRequest{"rest validate " + h.name, "/api/tools/stats/validate", h.args, nil},
			hostileRequest{"rest call " + h.name, "/api/tools/stats/call", h.args, nil},
			hostileRequest{"mcp " + h.name, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stats","arguments":` + h.args + `}}`,
				[]string{"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-11-25"}},
			hostileRequest{"handsai " + h.name, "/mcp/tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stats","arguments":` + h.args + `}}`, nil},
			hostileRequest{"oxp " + h.name, "/oxp/tools/call", `{"tool_id":"Tools.stats","input":` + h.args + `}`, nil},
		)
	}
	return out
}

// sendHostile sends r and checks the refusal: below 500, bounded, valid
// UTF-8 JSON.
func (c *loadClient) sendHostile(ctx context.Context, r hostileRequest) error {
	status, body, err := c.post(ctx, r.path, r.body, testToken, r.header...)
	if err != nil {
		return err
	}
	switch {
	case status >= 500:
		return fmt.Errorf("status %d: %.200s", status, body)
	case len(body) > hostileAnswerBytes:
		return fmt.Errorf("a %d-byte answer", len(body))
	case !utf8.Valid(body):
		return fmt.Errorf("invalid UTF-8: %.200q", body)
	}
	return nil
}

// normalCall makes one ordinary call, alternating surfaces, and checks its
// answer exactly.
func (c *loadClient) normalCall(ctx context.Context, id string, n int) error {
	if n%2 == 0 {
		return c.do(ctx, "rest fast", id, n)
	}
	return c.do(ctx, "oxp fast", id, n)
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapSampler records the highest HeapInuse it sees until stopped.
type heapSampler struct {
	peak atomic.Uint64
	stop chan struct{}
	done chan struct{}
}

func sampleHeap() *heapSampler {
	s := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > s.peak.Load() {
				s.peak.Store(m.HeapInuse)
			}
			select {
			case <-tick.C:
			case <-s.stop:
				return
			}
		}
	}()
	return s
}

func (s *heapSampler) end() uint64 {
	close(s.stop)
	<-s.done
	return s.peak.Load()
}

func TestLoadHostileMixedWithNormalCalls(t *testing.T) {
	const clients = 200
	ls := newLoadServer(t)
	t.Cleanup(ls.srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	t.Cleanup(tr.CloseIdleConnections)
	client := &loadClient{base: ls.srv.URL, client: &http.Client{Transport: tr}, observer: ls.observer}
	requests := hostileRequests()

	runtime.GC()
	sampler := sampleHeap()
	ctx, cancel := context.WithTimeout(t.Context(), hostileDuration())
	defer cancel()
	var (
		wg               sync.WaitGroup
		normal, hostile  atomic.Int64
		mu               sync.Mutex
		normalFailures   []string
		hostileFailures  []string
		callCtx, stopAll = context.WithTimeout(t.Context(), hostileDuration()+time.Minute)
	)
	defer stopAll()
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				id := "h" + strconv.Itoa(c) + "-" + strconv.Itoa(i)
				if i%2 == 0 {
					if err := client.normalCall(callCtx, id, c*1_000_000+i); err != nil {
						mu.Lock()
						normalFailures = append(normalFailures, id+": "+err.Error())
						mu.Unlock()
						continue
					}
					normal.Add(1)
					continue
				}
				r := requests[(c+i)%len(requests)]
				if err := client.sendHostile(callCtx, r); err != nil {
					mu.Lock()
					hostileFailures = append(hostileFailures, r.surface+": "+err.Error())
					mu.Unlock()
					continue
				}
				hostile.Add(1)
			}
		}()
	}
	wg.Wait()
	peak := sampler.end()
	t.Logf("%d normal and %d hostile requests by %d clients in %s; peak heap in use %d MiB",
		normal.Load(), hostile.Load(), clients, hostileDuration(), peak>>20)
	mu.Lock()
	defer mu.Unlock()
	assert.Empty(t, first(normalFailures, 10), "every normal call answered correctly")
	assert.Empty(t, first(hostileFailures, 10), "every hostile request refused, bounded")
	assert.Positive(t, normal.Load())
	assert.Positive(t, hostile.Load())
	assert.Less(t, peak, uint64(hostilePeakHeap), "peak heap in use")
}

func first(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("... and %d more", len(s)-n))
	}
	return s
}

// TestLoadHostileCPUIsAFixedMultipleOfANormalCall measures the process CPU
// time per request, normal calls against each kind of hostile request, with
// a few clients so the machine is not saturated.
func TestLoadHostileCPUIsAFixedMultipleOfANormalCall(t *testing.T) {
	const clients, rounds = 4, 50
	ls := newLoadServer(t)
	t.Cleanup(ls.srv.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	t.Cleanup(tr.CloseIdleConnections)
	client := &loadClient{base: ls.srv.URL, client: &http.Client{Transport: tr}, observer: ls.observer}

	perRequest := func(send func(ctx context.Context, n int) error) time.Duration {
		var wg sync.WaitGroup
		var failed atomic.Int64
		start := cpuTime(t)
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range rounds {
					if send(t.Context(), c*rounds+i) != nil {
						failed.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		require.Zero(t, failed.Load())
		return (cpuTime(t) - start) / (clients * rounds)
	}
	normal := perRequest(func(ctx context.Context, n int) error {
		return client.normalCall(ctx, "n"+strconv.Itoa(n), n)
	})
	t.Logf("normal call: %s of CPU", normal)
	// Each kind of body, sent to every surface in turn.
	all := hostileRequests()
	perKind := len(all) / len(hostileBodies())
	for k, h := range hostileBodies() {
		kind := all[k*perKind : (k+1)*perKind]
		cost := perRequest(func(ctx context.Context, n int) error { return client.sendHostile(ctx, kind[n%len(kind)]) })
		ratio := float64(cost) / float64(normal)
		t.Logf("%-16s %8s of CPU, %.1fx a normal call", h.name, cost, ratio)
		assert.Less(t, ratio, float64(hostileCPUMultiple), "%s: CPU per request over %dx a normal call's", h.name, hostileCPUMultiple)
	}
}
