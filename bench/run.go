package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Serve answers r with h once, in-process, through a Caller, and returns
// the recorded response.
func Serve(h http.Handler, r Request) *Writer {
	c := NewCaller(h, r)
	c.Call()
	return c.Response()
}

// BenchServe is the in-process benchmark loop: b.N calls of h through one
// Caller, so every contender pays the same small harness cost (measure it
// with Null). It fails b if the last response is not a 200.
func BenchServe(b *testing.B, h http.Handler, r Request) {
	c := NewCaller(h, r)
	b.ReportAllocs()
	for b.Loop() {
		c.Call()
	}
	if w := c.Response(); w.Status() != http.StatusOK {
		b.Fatalf("status %d: %s", w.Status(), truncate(w.Body()))
	}
}

// LoadResult is the outcome of a loopback load run.
type LoadResult struct {
	Requests int // answered requests
	Errors   int // transport errors, non-200 answers and answers Check refused
	// FirstError is one of the errors counted in Errors (nil when none).
	FirstError error
	Elapsed    time.Duration // wall time of the measured run
	// CPU is the process's CPU time over the measured run: the clients,
	// the server and the garbage collector together (0 where ProcessCPU
	// cannot be read).
	CPU      time.Duration
	P50, P99 time.Duration // latency percentiles of answered requests
	// Latencies holds every answered request's latency, sorted.
	Latencies []time.Duration
}

// Percentiles returns the 50th and 99th percentiles of latencies, which it
// sorts.
func Percentiles(latencies []time.Duration) (p50, p99 time.Duration) {
	if len(latencies) == 0 {
		return 0, 0
	}
	slices.Sort(latencies)
	return latencies[len(latencies)*50/100], latencies[min(len(latencies)-1, len(latencies)*99/100)]
}

// RPS is answered requests per second.
func (l LoadResult) RPS() float64 {
	if l.Elapsed <= 0 {
		return 0
	}
	return float64(l.Requests) / l.Elapsed.Seconds()
}

// LoadOptions bound a loopback load run.
type LoadOptions struct {
	Clients  int           // concurrent clients, each with its own keep-alive connection
	Duration time.Duration // measured run length
	MaxCalls int           // stop after this many requests in all, whatever the time
	Warmup   int           // requests sent (and not measured) per client before the run
	// Check, when set, reads every answer's body (warm-up included): an
	// answer it refuses counts as an error, like a non-200 status. Without
	// it bodies are drained unread.
	Check func(body []byte) error
	// Around, when set, is called once with the measured part of the run
	// (after the warm-up) and must call it exactly once: a way to read
	// other counters, such as a server process's CPU time, over exactly
	// that part.
	Around func(measured func())
}

// Loopback serves h on a fresh 127.0.0.1 listener and drives it with
// opts.Clients concurrent keep-alive clients sending r, until opts.Duration
// has passed or opts.MaxCalls requests were sent. It only ever talks to the
// loopback server it started, and stops it before returning.
func Loopback(h http.Handler, r Request, opts LoadOptions) (LoadResult, error) {
	if opts.Clients < 1 || opts.Duration <= 0 || opts.MaxCalls < 1 {
		return LoadResult{}, errors.New("bench: Loopback needs Clients, Duration and MaxCalls")
	}
	srv := httptest.NewServer(h) // always 127.0.0.1 (or [::1])
	defer srv.Close()
	return Drive(srv.URL, r, opts)
}

// Drive drives the server at base, a loopback URL of a server the caller
// started (http://127.0.0.1:PORT), such as one running in a process of its
// own, as Loopback drives its own: opts.Clients concurrent keep-alive
// clients sending r until opts.Duration has passed or opts.MaxCalls
// requests were sent, with the same warm-up, answer checks and hook. Any
// other host is refused.
func Drive(base string, r Request, opts LoadOptions) (LoadResult, error) {
	if opts.Clients < 1 || opts.Duration <= 0 || opts.MaxCalls < 1 {
		return LoadResult{}, errors.New("bench: Drive needs Clients, Duration and MaxCalls")
	}
	u, err := url.Parse(base)
	if err != nil {
		return LoadResult{}, err
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		return LoadResult{}, fmt.Errorf("bench: Drive only drives loopback servers, not %s", u.Host)
	}
	tr := &http.Transport{
		MaxIdleConns:        opts.Clients,
		MaxIdleConnsPerHost: opts.Clients,
		MaxConnsPerHost:     opts.Clients,
		DisableCompression:  true,
		IdleConnTimeout:     30 * time.Second,
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}

	// do sends one request; buf holds its body when opts.Check reads it.
	do := func(ctx context.Context, buf *bytes.Buffer) (time.Duration, error) {
		req, err := r.NewRequest(base)
		if err != nil {
			return 0, err
		}
		req = req.WithContext(ctx)
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		if opts.Check != nil {
			buf.Reset()
			_, err = buf.ReadFrom(resp.Body)
		} else {
			_, err = io.Copy(io.Discard, resp.Body)
		}
		_ = resp.Body.Close() // read above; closing only frees the connection
		d := time.Since(start)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
		if err == nil && opts.Check != nil {
			err = opts.Check(buf.Bytes())
		}
		return d, err
	}

	ctx := context.Background()
	// Warm up: open every connection and let each contender reach its
	// steady state.
	var wg sync.WaitGroup
	warmErr := make(chan error, opts.Clients)
	for range opts.Clients {
		wg.Go(func() {
			var buf bytes.Buffer
			for range opts.Warmup {
				if _, err := do(ctx, &buf); err != nil {
					warmErr <- err
					return
				}
			}
		})
	}
	wg.Wait()
	select {
	case err := <-warmErr:
		return LoadResult{}, fmt.Errorf("warm-up: %w", err)
	default:
	}

	var (
		mu        sync.Mutex
		latencies = make([]time.Duration, 0, min(opts.MaxCalls, 1<<20))
		errs      int
		firstErr  error
		budget    atomic.Int64 // requests left to send
	)
	budget.Store(int64(opts.MaxCalls))
	var res LoadResult
	measured := func() {
		deadline := time.Now().Add(opts.Duration)
		start, cpuStart := time.Now(), ProcessCPU()
		for range opts.Clients {
			wg.Go(func() {
				var buf bytes.Buffer
				local := make([]time.Duration, 0, 1024)
				bad := 0
				var first error
				for budget.Add(-1) >= 0 {
					if time.Now().After(deadline) {
						break
					}
					d, err := do(ctx, &buf)
					if err != nil {
						bad++
						first = cmp.Or(first, err)
						continue
					}
					local = append(local, d)
				}
				mu.Lock()
				latencies = append(latencies, local...)
				errs += bad
				firstErr = cmp.Or(firstErr, first)
				mu.Unlock()
			})
		}
		wg.Wait()
		res = LoadResult{Requests: len(latencies), Errors: errs, FirstError: firstErr, Elapsed: time.Since(start), Latencies: latencies}
		if cpuStart > 0 {
			res.CPU = ProcessCPU() - cpuStart
		}
	}
	if opts.Around != nil {
		opts.Around(measured)
	} else {
		measured()
	}
	res.P50, res.P99 = Percentiles(res.Latencies)
	return res, nil
}

// InFlightMemory starts n calls of ToolWait on a fresh handler of c,
// in-process, waits until all n are inside the tool, and returns the heap
// and goroutine stack memory held per waiting call (live bytes after a
// garbage collection, less those before the calls started). The calls are
// then released and each answer is checked. timeout bounds the whole run.
// The figure includes what the harness itself holds per call (a goroutine,
// a Caller, a request); NullInFlightMemory measures that part.
func InFlightMemory(c Contender, n int, timeout time.Duration) (float64, error) {
	g := NewGate()
	defer g.Open()
	return inFlight(c.Name, c.New(g), g, c.Wire.CallRequest(ToolWait, []byte(`{}`)), n, timeout,
		func(w *Writer) error {
			out, err := c.Wire.ParseCall(w.Status(), w.Header(), w.Body())
			if err == nil && (out.IsError || out.Sum != 0) {
				err = fmt.Errorf("%+v", out)
			}
			return err
		})
}

// NullInFlightMemory is InFlightMemory for the Null handler held on a gate:
// the memory the harness holds per waiting call, whatever the handler.
func NullInFlightMemory(n int, timeout time.Duration) (float64, error) {
	g := NewGate()
	defer g.Open()
	return inFlight("null", Null(g), g, WireJSONRPC.CallRequest(ToolWait, []byte(`{}`)), n, timeout,
		func(w *Writer) error {
			if w.Status() != http.StatusOK {
				return fmt.Errorf("status %d", w.Status())
			}
			return nil
		})
}

func inFlight(name string, h http.Handler, g *Gate, r Request, n int, timeout time.Duration, check func(*Writer) error) (float64, error) {
	Serve(Null(nil), r) // warm the harness's own lazy state
	before := liveBytes()

	answers := make(chan *Writer, n)
	for range n {
		go func() { answers <- Serve(h, r) }()
	}
	deadline := time.Now().Add(timeout)
	for g.Entered() < int64(n) {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%s: only %d of %d calls reached the tool", name, g.Entered(), n)
		}
		time.Sleep(time.Millisecond)
	}
	held := liveBytes()
	g.Open()
	for range n {
		select {
		case w := <-answers:
			if err := check(w); err != nil {
				return 0, fmt.Errorf("%s: wait answer: %w: %s", name, err, truncate(w.Body()))
			}
		case <-time.After(time.Until(deadline)):
			return 0, fmt.Errorf("%s: released calls did not answer in time", name)
		}
	}
	return float64(held-before) / float64(n), nil
}

// liveBytes is the heap in use plus goroutine stacks, after a full GC.
func liveBytes() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc) + int64(m.StackInuse)
}

// CheckCall sends one call of tool with args to h and checks that the
// answer is a success carrying {"sum": want}. Benchmarks run it before
// measuring, so a contender that answers wrongly is never timed.
func CheckCall(w Wire, h http.Handler, tool string, args []byte, want int) error {
	return CheckRequest(w, h, w.CallRequest(tool, args), want)
}

// CheckRequest is CheckCall for a call request of w made otherwise (one
// whose _meta asks for progress, say).
func CheckRequest(w Wire, h http.Handler, r Request, want int) error {
	c := NewCaller(h, r)
	before := c.Header().Clone()
	c.Call()
	rec := c.Response()
	out, err := w.ParseCall(rec.Status(), rec.Header(), rec.Body())
	if err != nil {
		return err
	}
	if out.IsError || out.Sum != want {
		return fmt.Errorf("answered %+v, want sum %d: %s", out, want, truncate(rec.Body()))
	}
	if !reflect.DeepEqual(before, c.Header()) {
		// The Caller shares one header map between its calls.
		return fmt.Errorf("the handler changed the request header: %v, was %v", c.Header(), before)
	}
	return nil
}

// CheckList sends one discovery request to h and checks that it lists
// exactly the n tools named by ListToolName, in one page.
func CheckList(w Wire, h http.Handler, n int) error {
	rec := Serve(h, w.ListRequest())
	names, err := w.ParseList(rec.Status(), rec.Header(), rec.Body())
	if err != nil {
		return err
	}
	if len(names) != n {
		return fmt.Errorf("listed %d tools, want %d", len(names), n)
	}
	seen := make(map[string]bool, n)
	for _, name := range names {
		seen[name] = true
	}
	for i := range n {
		if !seen[ListToolName(i)] {
			return fmt.Errorf("%s is not listed", ListToolName(i))
		}
	}
	return nil
}

// OpenAPIRequest is the REST surface's request for its OpenAPI document.
func OpenAPIRequest() Request {
	return Request{Method: http.MethodGet, Path: "/openapi.json", Header: http.Header{"Accept": {"application/json"}}}
}

// CheckOpenAPI fetches the OpenAPI document from h, toolexec's REST
// surface serving the n tools named by ListToolName, and checks that it
// has an operation calling each.
func CheckOpenAPI(h http.Handler, n int) error {
	rec := Serve(h, OpenAPIRequest())
	if rec.Status() != http.StatusOK {
		return fmt.Errorf("status %d: %s", rec.Status(), truncate(rec.Body()))
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body(), &doc); err != nil {
		return err
	}
	for i := range n {
		if doc.Paths["/tools/"+ListToolName(i)+"/call"]["post"].OperationID != ListToolName(i) {
			return fmt.Errorf("no operation calls %s", ListToolName(i))
		}
	}
	return nil
}
