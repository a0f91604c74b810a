package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// The load and leak test drives the example server's handler, on loopback
// and behind the example's own http.Server settings (newServer), with many
// concurrent clients calling fast, slow, failing and panicking tools over
// REST, OXP and MCP, some of them going away mid-call. Every call must be
// answered as documented, or cancelled with the handler's context ended;
// afterwards no goroutine may be left and the heap must be back near where
// it started.
//
// `make test` runs the short form (a few seconds). `make soak` sets
// TOOLEXEC_SOAK=1 for the long form.

// loadShape is how much load one run puts on the server.
type loadShape struct {
	clients   int           // concurrent clients
	calls     int           // calls per client
	deadline  time.Duration // the whole run must end within it
	heapSlack uint64        // how far above its baseline the heap may stay
}

func loadShapeFromEnv() loadShape {
	if os.Getenv("TOOLEXEC_SOAK") != "" {
		return loadShape{clients: 200, calls: 500, deadline: 15 * time.Minute, heapSlack: 64 << 20}
	}
	return loadShape{clients: 200, calls: 6, deadline: 2 * time.Minute, heapSlack: 64 << 20}
}

// loadPanicMessage is what the test's panicking tool panics with.
const loadPanicMessage = "load: deliberate panic"

// loadIDHeader tags a request so that the observer can report on its call.
const loadIDHeader = "X-Load-Id"

// callObserver is an interceptor that watches every call: how many run at
// once, and, for calls tagged with loadIDHeader, when they start and how
// they end.
type callObserver struct {
	active  atomic.Int64
	watched sync.Map // id -> *watch
}

type watch struct {
	started chan struct{}
	ended   chan callEnd // buffered: one
}

// callEnd is how a watched call ended: the pipeline's error, and the error
// of the context the handler ran under.
type callEnd struct {
	err    error
	ctxErr error
}

func (o *callObserver) watch(id string) *watch {
	w := &watch{started: make(chan struct{}), ended: make(chan callEnd, 1)}
	o.watched.Store(id, w)
	return w
}

func (o *callObserver) interceptor(next toolexec.CallFunc) toolexec.CallFunc {
	return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
		o.active.Add(1)
		defer o.active.Add(-1)
		var w *watch
		if r := toolexec.RequestFromContext(ctx); r != nil {
			if v, ok := o.watched.LoadAndDelete(r.Header.Get(loadIDHeader)); ok {
				w = v.(*watch)
				close(w.started)
			}
		}
		res, err := next(ctx, call)
		if w != nil {
			w.ended <- callEnd{err: err, ctxErr: ctx.Err()}
		}
		return res, err
	}
}

// panicLogs counts the error-level records that report a tool's panic.
type panicLogs struct{ n atomic.Int64 }

func (p *panicLogs) Enabled(context.Context, slog.Level) bool { return true }
func (p *panicLogs) Handle(_ context.Context, r slog.Record) error {
	if r.Level == slog.LevelError && strings.Contains(r.Message, "panicked") {
		p.n.Add(1)
	}
	return nil
}
func (p *panicLogs) WithAttrs([]slog.Attr) slog.Handler { return p }
func (p *panicLogs) WithGroup(string) slog.Handler      { return p }

// loadServer is the example's handler, plus an MCP endpoint mounted beside
// it and a panicking tool registered next to the demo tools, served by the
// example's http.Server settings on loopback.
type loadServer struct {
	srv      *httptest.Server
	observer *callObserver
	panics   *panicLogs
}

func newLoadServer(t *testing.T) *loadServer {
	t.Helper()
	swatch, err := makeSwatch()
	require.NoError(t, err)
	reg := newRegistry(swatch)
	reg.MustAdd(toolexec.Tool{Name: "load_panic", Description: "Panics.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { panic(loadPanicMessage) })

	ls := &loadServer{observer: &callObserver{}, panics: &panicLogs{}}
	logger := slog.New(ls.panics)
	x := newExecutor(reg, testToken, logger, toolexec.WithInterceptors(ls.observer.interceptor))
	h := http.NewServeMux()
	h.Handle("/", newMux(x))
	h.Handle("/mcp", mcp.NewHandler(x))

	ls.srv = httptest.NewUnstartedServer(h)
	ls.srv.Config = newServer(h, logger)
	ls.srv.Start()
	return ls
}

// loadClient makes calls of every kind and checks each answer.
type loadClient struct {
	base     string
	client   *http.Client
	observer *callObserver
}

// kinds of call, chosen in turn by each client.
var loadKinds = []string{
	"rest fast", "rest slow", "rest failing", "rest panicking",
	"oxp fast", "oxp panicking", "mcp fast", "mcp failing", "mcp panicking",
	"disconnect", "unauthorized",
}

// post sends one authorised JSON request and returns the status and body.
func (c *loadClient) post(ctx context.Context, path, body, token string, header ...string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// expectResult checks a REST answer: status and the result's text.
func expectResult(status int, body []byte, wantStatus int, wantError bool, wantText string) error {
	if status != wantStatus {
		return fmt.Errorf("status %d, want %d: %s", status, wantStatus, body)
	}
	var res toolexec.CallToolResult
	if err := json.Unmarshal(body, &res); err != nil {
		return fmt.Errorf("not a result: %s", body)
	}
	if res.IsError != wantError || res.Text() != wantText {
		return fmt.Errorf("isError=%v text=%q, want %v %q", res.IsError, res.Text(), wantError, wantText)
	}
	return nil
}

// expectOXP checks an OXP answer: 200, the call id echoed, and the outcome.
func expectOXP(status int, body []byte, callID string, success bool, text string) error {
	var resp struct {
		CallID  string          `json:"call_id"`
		Success bool            `json:"success"`
		Value   json.RawMessage `json:"value"`
		Error   *struct {
			Message          string `json:"message"`
			DeveloperMessage string `json:"developer_message"`
		} `json:"error"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &resp) != nil {
		return fmt.Errorf("status %d: %s", status, body)
	}
	if resp.CallID != callID || resp.Success != success {
		return fmt.Errorf("call_id %q success %v: %s", resp.CallID, resp.Success, body)
	}
	if success {
		want, _ := json.Marshal(text)
		if !bytes.Equal(resp.Value, want) {
			return fmt.Errorf("value %s, want %s", resp.Value, want)
		}
		return nil
	}
	if resp.Error == nil || resp.Error.Message != "The tool failed unexpectedly" || resp.Error.DeveloperMessage != text {
		return fmt.Errorf("error %s", body)
	}
	return nil
}

// expectMCP checks an MCP tools/call answer: 200, the id echoed, and the
// result.
func expectMCP(status int, body []byte, id int, isError bool, text string) error {
	var resp struct {
		JSONRPC string                   `json:"jsonrpc"`
		ID      int                      `json:"id"`
		Result  *toolexec.CallToolResult `json:"result"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &resp) != nil || resp.Result == nil {
		return fmt.Errorf("status %d: %s", status, body)
	}
	if resp.JSONRPC != "2.0" || resp.ID != id || resp.Result.IsError != isError || resp.Result.Text() != text {
		return fmt.Errorf("unexpected answer: %s", body)
	}
	return nil
}

// do makes call number n of one kind and reports what went wrong, if
// anything. Every call is bounded by ctx.
func (c *loadClient) do(ctx context.Context, kind, id string, n int) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	switch kind {
	case "rest fast":
		status, body, err := c.post(ctx, "/api/tools/echo/call", `{"text":"`+id+`"}`, testToken)
		if err != nil {
			return err
		}
		return expectResult(status, body, http.StatusOK, false, id)
	case "rest slow":
		status, body, err := c.post(ctx, "/api/tools/sleep/call", `{"seconds":0.02}`, testToken)
		if err != nil {
			return err
		}
		return expectResult(status, body, http.StatusOK, false, "slept 20ms")
	case "rest failing":
		status, body, err := c.post(ctx, "/api/tools/fail/call", `{}`, testToken)
		if err != nil {
			return err
		}
		return expectResult(status, body, http.StatusInternalServerError, true, "fail always fails: this is how a handler error is answered")
	case "rest panicking":
		status, body, err := c.post(ctx, "/api/tools/load_panic/call", `{}`, testToken)
		if err != nil {
			return err
		}
		return expectResult(status, body, http.StatusInternalServerError, true, toolexec.PanicMessage) // the value is only logged
	case "oxp fast":
		status, body, err := c.post(ctx, "/oxp/tools/call", `{"tool_id":"Tools.echo","call_id":"`+id+`","input":{"text":"`+id+`"}}`, testToken)
		if err != nil {
			return err
		}
		return expectOXP(status, body, id, true, id)
	case "oxp panicking":
		status, body, err := c.post(ctx, "/oxp/tools/call", `{"tool_id":"Tools.load_panic","call_id":"`+id+`"}`, testToken)
		if err != nil {
			return err
		}
		return expectOXP(status, body, id, false, "") // no developer_message: the value is only logged
	case "mcp fast", "mcp failing", "mcp panicking":
		name, args, isError, text := "echo", `{"text":"`+id+`"}`, false, id
		switch kind {
		case "mcp failing":
			name, args, isError, text = "fail", `{}`, true, "fail always fails: this is how a handler error is answered"
		case "mcp panicking":
			name, args, isError, text = "load_panic", `{}`, true, toolexec.PanicMessage
		}
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, n, name, args)
		status, data, err := c.post(ctx, "/mcp", body, testToken, "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-11-25")
		if err != nil {
			return err
		}
		return expectMCP(status, data, n, isError, text)
	case "unauthorized":
		status, body, err := c.post(ctx, "/api/tools/echo/call", `{"text":"x"}`, "wrong")
		if err != nil {
			return err
		}
		if status != http.StatusUnauthorized || strings.TrimSpace(string(body)) != `{"error":"Unauthorized"}` {
			return fmt.Errorf("status %d: %s", status, body)
		}
		return nil
	case "disconnect":
		return c.disconnect(ctx, id)
	}
	return fmt.Errorf("unknown kind %q", kind)
}

// disconnect starts a long sleep call, goes away once the handler runs,
// and checks that the handler's context was cancelled and the call ended
// as canceled.
func (c *loadClient) disconnect(ctx context.Context, id string) error {
	w := c.observer.watch(id)
	callCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	clientErr := make(chan error, 1)
	go func() {
		_, _, err := c.post(callCtx, "/api/tools/sleep/call", `{"seconds":30}`, testToken, loadIDHeader, id)
		clientErr <- err
	}()
	select {
	case <-w.started:
	case <-ctx.Done():
		c.observer.watched.Delete(id)
		return fmt.Errorf("the call never started: %w", ctx.Err())
	}
	cancel()
	if err := <-clientErr; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the client's call ended with %v, not its cancellation", err)
	}
	select {
	case end := <-w.ended:
		if !errors.Is(end.ctxErr, context.Canceled) {
			return fmt.Errorf("the handler's context ended with %v", end.ctxErr)
		}
		e, ok := toolexec.AsError(end.err)
		if !ok || e.Code != toolexec.CodeCanceled {
			return fmt.Errorf("the call ended with %v, not canceled", end.err)
		}
		return nil
	case <-ctx.Done():
		return errors.New("the handler was still running after its client went away")
	}
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func TestLoadEveryCallIsAnsweredAndNothingLeaks(t *testing.T) {
	shape := loadShapeFromEnv()
	ignore := goleak.IgnoreCurrent()
	baseline := heapInUse()

	ls := newLoadServer(t)
	tr := &http.Transport{MaxIdleConnsPerHost: shape.clients, MaxConnsPerHost: 0}
	client := &loadClient{base: ls.srv.URL, client: &http.Client{Transport: tr}, observer: ls.observer}

	ctx, cancel := context.WithTimeout(t.Context(), shape.deadline)
	defer cancel()
	var (
		wg       sync.WaitGroup
		answered atomic.Int64
		perKind  sync.Map // kind -> *atomic.Int64
		mu       sync.Mutex
		failures []string
	)
	for _, k := range loadKinds {
		perKind.Store(k, new(atomic.Int64))
	}
	start := time.Now()
	for c := range shape.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range shape.calls {
				if ctx.Err() != nil {
					return
				}
				kind := loadKinds[(c+i)%len(loadKinds)]
				id := "c" + strconv.Itoa(c) + "-" + strconv.Itoa(i)
				if err := client.do(ctx, kind, id, c*shape.calls+i); err != nil {
					mu.Lock()
					failures = append(failures, kind+" "+id+": "+err.Error())
					mu.Unlock()
					continue
				}
				answered.Add(1)
				v, _ := perKind.Load(kind)
				v.(*atomic.Int64).Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	require.NoError(t, ctx.Err(), "the run did not finish within %s", shape.deadline)

	total := int64(shape.clients * shape.calls)
	mu.Lock()
	if len(failures) > 10 {
		failures = append(failures[:10], fmt.Sprintf("... and %d more", len(failures)-10))
	}
	assert.Empty(t, failures)
	mu.Unlock()
	assert.Equal(t, total, answered.Load(), "every call answered as documented")
	var panicking int64
	for _, k := range loadKinds {
		v, _ := perKind.Load(k)
		n := v.(*atomic.Int64).Load()
		assert.Positive(t, n, "no %s call was made", k)
		if strings.HasSuffix(k, "panicking") {
			panicking += n
		}
	}
	assert.Equal(t, panicking, ls.panics.n.Load(), "each panic logged once, at error level")

	// Every handler has returned: none is left running after its call.
	settle, stop := context.WithTimeout(t.Context(), 10*time.Second)
	defer stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for ls.observer.active.Load() != 0 && settle.Err() == nil {
		select {
		case <-tick.C:
		case <-settle.Done():
		}
	}
	assert.Zero(t, ls.observer.active.Load(), "calls still running after every client is done")

	tr.CloseIdleConnections()
	ls.srv.Close()
	goleak.VerifyNone(t, ignore)

	after := heapInUse()
	t.Logf("%d calls by %d clients in %s; heap %d KiB before, %d KiB after", total, shape.clients, elapsed.Round(time.Millisecond), baseline>>10, after>>10)
	assert.LessOrEqual(t, after, baseline+shape.heapSlack, "the heap did not come back near its baseline")
}
