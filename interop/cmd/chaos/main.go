// Command chaos is `make chaos`: the fault drill of docs/scale.md. It
// starts, on loopback, the deployment docs/scale.md describes (three
// replicas of `toolexec serve --redis`, the Redis they share, HAProxy in
// front), puts it under a bounded mixed load, injects one fault after
// another, and prints a table: for each fault, the requests that failed,
// the longest call, how long after the fault ended the last request
// failed, the answers that were wrong, and the tasks lost.
//
//	cd interop && go run ./cmd/chaos     (make chaos; about 90 s)
//
// The load, from the balancer's address: REST and MCP (2025-11-25 and
// 2026-07-28) calls of an echo tool and of a cached tool, calls of a
// tool limited to one call at a time in the whole service
// (maxConcurrency: 1) and of a rate-limited one, all under an
// Executor-wide --max-concurrency, and a task (REST, Prefer:
// respond-async) started every 600 ms, each polled to its end. Every
// answer is checked: an echo must carry the caller's nonce, a cached value
// the key's, a task's result its own nonce. The tools are HTTP tools on
// an upstream the drill serves itself.
//
// The faults, in turn: none (the baseline); a replica killed (kill -9, and
// started again 5 s later); Redis paused (SIGSTOP) for 5 s; Redis killed
// and started again, empty, 2 s later; HAProxy reloaded (SIGUSR2 to its
// master). Needs redis-server and haproxy (apt-get install redis-server
// haproxy), and Go to build the toolexec command.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/toolexec/toolexec/internal/balancertest"
	"github.com/toolexec/toolexec/internal/testserver"
	"github.com/toolexec/toolexec/redis/redistest"
)

func main() {
	repo := flag.String("repo", "..", "the repository's root (where cmd/toolexec is)")
	keep := flag.Bool("keep", false, "keep the work directory (the replicas' logs) and say where it is")
	verbose := flag.Bool("v", false, "print each failure as it happens, with its time from the fault's end")
	flag.Parse()
	if err := run(*repo, *keep, *verbose); err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		os.Exit(1)
	}
}

// A phase is one fault: its name, how long it runs before the fault, the
// fault itself (inject returns once the fault has ended), and how long the
// load goes on after it.
type phase struct {
	name   string
	before time.Duration
	inject func(d *drill) error
	after  time.Duration
}

var phases = []phase{
	{"none (baseline)", 6 * time.Second, nil, 0},
	{"a replica killed (kill -9), back after 5 s", 2 * time.Second, func(d *drill) error {
		d.replicas[1].kill()
		d.mark()
		time.Sleep(5 * time.Second)
		return d.replicas[1].start()
	}, 8 * time.Second},
	{"Redis paused (SIGSTOP) for 5 s", 2 * time.Second, func(d *drill) error {
		d.redis.Pause()
		time.Sleep(5 * time.Second)
		d.redis.Resume()
		d.mark()
		return nil
	}, 10 * time.Second},
	{"Redis restarted, empty, after 2 s", 2 * time.Second, func(d *drill) error {
		d.redis.Kill()
		time.Sleep(2 * time.Second)
		err := d.redis.Restart()
		d.mark()
		return err
	}, 12 * time.Second},
	{"HAProxy reloaded", 2 * time.Second, func(d *drill) error {
		err := d.lb.Reload()
		d.mark()
		return err
	}, 6 * time.Second},
}

// drill is the deployment under test and what the load recorded.
type drill struct {
	work     string
	bin      string
	tools    string
	redis    *redistest.Server
	replicas []*replica
	lb       *balancertest.Balancer
	client   *http.Client
	verbose  bool

	mu      sync.Mutex
	phase   int         // the current phase, which requests and tasks are counted in
	stats   []*phaseLog // one per phase
	pending sync.WaitGroup
}

// phaseLog is what one phase recorded.
type phaseLog struct {
	requests, failed, wrong int
	longest                 time.Duration
	faultEnd, lastFailure   time.Time
	tasks, tasksLost        int
	examples                map[string]int // what failed, counted: the table's footnotes
}

// mark notes that the current phase's fault has just ended.
func (d *drill) mark() {
	d.mu.Lock()
	d.stats[d.phase].faultEnd = time.Now()
	d.mu.Unlock()
}

// record counts one request of phase p that took took, ending at end.
func (d *drill) record(p int, took time.Duration, end time.Time, failure string, wrong bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats[p]
	s.requests++
	s.longest = max(s.longest, took)
	if wrong {
		s.wrong++
		failure = "wrong answer: " + failure
	}
	if failure != "" {
		if d.verbose {
			when := "during the fault"
			if !s.faultEnd.IsZero() {
				when = end.Sub(s.faultEnd).Round(time.Millisecond).String() + " after the fault"
			}
			fmt.Printf("  %s: %s\n", when, failure)
		}
		s.failed++
		if end.After(s.lastFailure) {
			s.lastFailure = end
		}
		s.examples[failure]++
	}
}

func (d *drill) current() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.phase
}

func run(repo string, keep, verbose bool) error {
	start := time.Now()
	work, err := os.MkdirTemp("", "toolexec-chaos-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("work directory (logs):", work)
	} else {
		defer func() { _ = os.RemoveAll(work) }()
	}
	d := &drill{work: work, bin: filepath.Join(work, "toolexec"), verbose: verbose,
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	for range phases {
		d.stats = append(d.stats, &phaseLog{examples: map[string]int{}})
	}

	fmt.Println("== building toolexec")
	build := exec.Command("go", "build", "-o", d.bin, ".")
	build.Dir = filepath.Join(repo, "cmd", "toolexec")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building toolexec: %w", err)
	}

	up := httptest.NewServer(upstream{})
	defer up.Close()
	d.tools = filepath.Join(work, "tools.yaml")
	if err := os.WriteFile(d.tools, []byte(strings.ReplaceAll(toolsYAML, "UPSTREAM", up.URL)), 0o600); err != nil {
		return err
	}
	if d.redis, err = redistest.Start(); err != nil {
		return err
	}
	defer d.redis.Close()
	var backends []string
	for i := range 3 {
		r := &replica{d: d, name: fmt.Sprintf("replica%d", i+1)}
		if r.addr, err = testserver.FreeAddr(); err != nil {
			return err
		}
		if err := r.start(); err != nil {
			return err
		}
		defer r.kill()
		d.replicas = append(d.replicas, r)
		backends = append(backends, r.addr)
	}
	lb, err := balancertest.Start(backends...)
	if err != nil {
		return err
	}
	defer lb.Close()
	d.lb = lb
	fmt.Printf("== three replicas of toolexec serve --redis behind HAProxy at %s; Redis at %s\n", lb.URL(), d.redis.Addr)

	ctx, stop := context.WithCancel(context.Background())
	var load sync.WaitGroup
	for w := range 6 {
		load.Go(func() { d.worker(ctx, w) })
	}
	load.Go(func() { d.tasks(ctx) })
	for i, p := range phases {
		d.mu.Lock()
		d.phase = i
		d.mu.Unlock()
		fmt.Printf("== %s\n", p.name)
		time.Sleep(p.before)
		if p.inject != nil {
			if err := p.inject(d); err != nil {
				stop()
				return fmt.Errorf("%s: %w", p.name, err)
			}
		}
		time.Sleep(p.after)
	}
	stop()
	load.Wait()
	d.pending.Wait() // every task polled to its end
	d.report(time.Since(start))
	return nil
}

// report prints the table, and what failed.
func (d *drill) report(wall time.Duration) {
	d.mu.Lock()
	defer d.mu.Unlock()
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "fault\trequests failed\tlongest call\trecovery\twrong answers\ttasks lost")
	for i, p := range phases {
		s := d.stats[i]
		recovery := "-"
		if !s.faultEnd.IsZero() {
			r := time.Duration(0)
			if s.lastFailure.After(s.faultEnd) {
				r = s.lastFailure.Sub(s.faultEnd)
			}
			recovery = r.Round(100 * time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%d of %d\t%s\t%s\t%d\t%d of %d\n", p.name, s.failed, s.requests,
			s.longest.Round(10*time.Millisecond), recovery, s.wrong, s.tasksLost, s.tasks)
	}
	_ = tw.Flush()
	fmt.Println()
	for i, p := range phases {
		s := d.stats[i]
		if len(s.examples) == 0 {
			continue
		}
		fmt.Printf("%s:\n", p.name)
		for what, n := range s.examples {
			fmt.Printf("  %4d  %s\n", n, what)
		}
	}
	fmt.Printf("\nrecovery: from the end of the fault (the replica killed, Redis resumed or started again, HAProxy reloaded) to the end of the last request that failed; wall time %s\n",
		wall.Round(time.Second))
}

// worker sends the mixed load until ctx ends.
func (d *drill) worker(ctx context.Context, w int) {
	ops := []func(ctx context.Context) (string, bool){d.restEcho, d.mcpEcho, d.restCached, d.mcpCached, d.restOne, d.restRated}
	for i := w; ctx.Err() == nil; i++ {
		p := d.current()
		begin := time.Now()
		failure, wrong := ops[i%len(ops)](ctx)
		if ctx.Err() != nil {
			return // cut by the end of the drill: not counted
		}
		end := time.Now()
		d.record(p, end.Sub(begin), end, failure, wrong)
		time.Sleep(40 * time.Millisecond)
	}
}

func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// do sends a request through the balancer and reads its answer.
func (d *drill) do(ctx context.Context, method, path, body string, hdr ...string) (int, http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, d.lb.URL()+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer func() { _ = resp.Body.Close() }() // read below; closing only frees the connection
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(data), err
}

// restCall calls tool over REST with args, and checks that its text
// holds want: a failure (what), and whether the answer was wrong.
func (d *drill) restCall(ctx context.Context, tool, args, want string) (string, bool) {
	status, _, body, err := d.do(ctx, http.MethodPost, "/api/tools/"+tool+"/call", args)
	switch {
	case err != nil:
		return "REST " + tool + ": " + transport(err), false
	case status != http.StatusOK:
		return fmt.Sprintf("REST %s: HTTP %d %s", tool, status, brief(body)), false
	case !strings.Contains(body, want):
		return fmt.Sprintf("REST %s: %s", tool, brief(body)), true
	}
	return "", false
}

// mcpCall calls tool over MCP at version with args, as restCall.
func (d *drill) mcpCall(ctx context.Context, version, tool, args, want string) (string, bool) {
	meta := "{}"
	hdr := []string{"MCP-Protocol-Version", version}
	if version == "2026-07-28" {
		meta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		hdr = append(hdr, "Mcp-Method", "tools/call", "Mcp-Name", tool)
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":%s}}`, tool, args, meta)
	status, _, out, err := d.do(ctx, http.MethodPost, "/mcp", body, hdr...)
	what := "MCP " + version + " " + tool
	switch {
	case err != nil:
		return what + ": " + transport(err), false
	case status != http.StatusOK:
		return fmt.Sprintf("%s: HTTP %d %s", what, status, brief(out)), false
	}
	if i := strings.LastIndex(out, "data: "); i >= 0 && !strings.HasPrefix(out, "{") { // an SSE stream: its last event
		out, _, _ = strings.Cut(out[i+len("data: "):], "\n")
	}
	var r struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	switch {
	case json.Unmarshal([]byte(out), &r) != nil || r.Result == nil:
		return what + ": " + brief(out), false
	case r.Result.IsError:
		return what + ": " + brief(out), false
	case !strings.Contains(out, want):
		return what + ": " + brief(out), true
	}
	return "", false
}

func (d *drill) restEcho(ctx context.Context) (string, bool) {
	v := nonce()
	return d.restCall(ctx, "echo", `{"v":"`+v+`"}`, "echo:"+v)
}

func (d *drill) mcpEcho(ctx context.Context) (string, bool) {
	v := nonce()
	return d.mcpCall(ctx, "2026-07-28", "echo", `{"v":"`+v+`"}`, "echo:"+v)
}

// cachedKey is one of a few keys, so the cache hits.
func cachedKey() string {
	var b [1]byte
	_, _ = rand.Read(b[:])
	return "k" + strconv.Itoa(int(b[0])%8)
}

func (d *drill) restCached(ctx context.Context) (string, bool) {
	k := cachedKey()
	return d.restCall(ctx, "cached", `{"k":"`+k+`"}`, "value of "+k)
}

func (d *drill) mcpCached(ctx context.Context) (string, bool) {
	k := cachedKey()
	return d.mcpCall(ctx, "2025-11-25", "cached", `{"k":"`+k+`"}`, "value of "+k)
}

func (d *drill) restOne(ctx context.Context) (string, bool) {
	return d.restCall(ctx, "one", `{}`, "one done")
}

func (d *drill) restRated(ctx context.Context) (string, bool) {
	return d.restCall(ctx, "rated", `{}`, "rated done")
}

// tasks starts a task every 600 ms until ctx ends, each polled to its
// end on a goroutine of its own.
func (d *drill) tasks(ctx context.Context) {
	tick := time.NewTicker(600 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		p := d.current()
		d.pending.Add(1)
		go func() {
			defer d.pending.Done()
			d.task(p)
		}()
	}
}

// task runs one task of phase p: created over REST, then polled until it
// ends, or for a minute. It is lost when its caller never gets its result.
func (d *drill) task(p int) {
	ctx := context.Background()
	v := nonce()
	begin := time.Now()
	status, _, body, err := d.do(ctx, http.MethodPost, "/api/tools/job/call", `{"v":"`+v+`","ms":1500}`, "Prefer", "respond-async, wait=0")
	end := time.Now()
	switch {
	case err != nil:
		d.record(p, end.Sub(begin), end, "REST job (task creation): "+transport(err), false)
		return
	case status == http.StatusServiceUnavailable:
		d.record(p, end.Sub(begin), end, "REST job (task creation): HTTP 503, Retry-After (no task created)", false)
		return
	case status == http.StatusOK && strings.Contains(body, "job done:"+v):
		// Answered as an ordinary call: the result is right, no task.
		d.record(p, end.Sub(begin), end, "", false)
		return
	case status != http.StatusAccepted:
		d.record(p, end.Sub(begin), end, fmt.Sprintf("REST job (task creation): HTTP %d %s", status, brief(body)), false)
		return
	}
	d.record(p, end.Sub(begin), end, "", false)
	var created struct {
		TaskID string `json:"taskId"`
	}
	_ = json.Unmarshal([]byte(body), &created)
	d.mu.Lock()
	d.stats[p].tasks++
	d.mu.Unlock()
	lost := func(why string) {
		d.mu.Lock()
		d.stats[p].tasksLost++
		d.stats[p].examples["task lost: "+why]++
		d.mu.Unlock()
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
		q := d.current()
		begin := time.Now()
		status, _, body, err := d.do(ctx, http.MethodGet, "/api/tasks/"+created.TaskID, "")
		end := time.Now()
		switch {
		case err != nil:
			d.record(q, end.Sub(begin), end, "REST task poll: "+transport(err), false)
			continue
		case status == http.StatusServiceUnavailable:
			d.record(q, end.Sub(begin), end, "REST task poll: HTTP 503, Retry-After", false)
			continue
		case status == http.StatusNotFound:
			d.record(q, end.Sub(begin), end, "REST task poll: HTTP 404", false)
			lost("404")
			return
		case status != http.StatusOK:
			d.record(q, end.Sub(begin), end, fmt.Sprintf("REST task poll: HTTP %d %s", status, brief(body)), false)
			continue
		}
		var t struct {
			Status        string `json:"status"`
			StatusMessage string `json:"statusMessage"`
		}
		_ = json.Unmarshal([]byte(body), &t)
		switch t.Status {
		case "working", "input_required":
			d.record(q, end.Sub(begin), end, "", false)
			continue
		case "completed":
			if strings.Contains(body, "job done:"+v) {
				d.record(q, end.Sub(begin), end, "", false)
				return
			}
			d.record(q, end.Sub(begin), end, "REST task poll: "+brief(body), true)
			lost("a wrong result")
			return
		default:
			d.record(q, end.Sub(begin), end, "", false)
			lost(t.Status + ": " + t.StatusMessage)
			return
		}
	}
	lost("still running after a minute")
}

// transport says what a failed request's error was, briefly.
func transport(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "no answer within 10 s"
	case errors.Is(err, io.EOF), strings.Contains(err.Error(), "EOF"), strings.Contains(err.Error(), "reset"):
		return "connection closed"
	}
	return "connection failed"
}

// brief is a body cut to one short line.
func brief(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 140 {
		s = s[:140] + "..."
	}
	return s
}

// replica is one toolexec serve process.
type replica struct {
	d          *drill
	name, addr string
	mu         sync.Mutex
	proc       *testserver.Process // nil while killed
}

// start starts the replica on its address, and waits until it answers
// /healthz.
func (r *replica) start() error {
	logFile, err := os.OpenFile(filepath.Join(r.d.work, r.name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer func() { _ = logFile.Close() }() // the process holds its own copy
	cmd := exec.Command(r.d.bin, "serve", "--config", r.d.tools, "--addr", r.addr, "--redis", r.d.redis.URL(),
		"--max-concurrency", "16", "--log-level", "warn", "--reload-interval", "0")
	cmd.Dir = r.d.work
	cmd.Stdout, cmd.Stderr = logFile, logFile
	proc, err := testserver.Start(cmd, "")
	if err != nil {
		return err
	}
	r.mu.Lock()
	r.proc = proc
	r.mu.Unlock()
	gone, err := testserver.Await(proc.Done(), 30*time.Second, 50*time.Millisecond, func() error {
		resp, err := http.Get("http://" + r.addr + "/healthz")
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/healthz answered %d", resp.StatusCode)
		}
		return nil
	})
	if err != nil {
		r.kill()
		if gone {
			return fmt.Errorf("%s exited at start (see %s.log)", r.name, r.name)
		}
		return fmt.Errorf("%s did not answer /healthz within 30s", r.name)
	}
	return nil
}

// kill stops the replica at once (SIGKILL), as a crash would.
func (r *replica) kill() {
	r.mu.Lock()
	proc := r.proc
	r.proc = nil
	r.mu.Unlock()
	if proc != nil {
		proc.Kill()
	}
}

// upstream is the HTTP API the tools call.
type upstream struct{}

func (upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	switch r.URL.Path {
	case "/echo":
		fmt.Fprint(w, "echo:"+q.Get("v"))
	case "/cached":
		fmt.Fprint(w, "value of "+q.Get("k"))
	case "/one":
		time.Sleep(20 * time.Millisecond)
		fmt.Fprint(w, "one done")
	case "/rated":
		fmt.Fprint(w, "rated done")
	case "/job":
		ms, _ := strconv.Atoi(q.Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			fmt.Fprint(w, "job done:"+q.Get("v"))
		case <-r.Context().Done():
		}
	default:
		http.NotFound(w, r)
	}
}

// toolsYAML is the replicas' tools file; UPSTREAM is the upstream's URL.
const toolsYAML = `sources:
  up: {kind: http, baseUrl: UPSTREAM}
tools:
  echo:
    kind: http
    source: up
    method: GET
    path: /echo
    description: Echoes v.
    queryParams: [{name: v, type: string, description: what to echo}]
  cached:
    kind: http
    source: up
    method: GET
    path: /cached
    description: The value of k, cached for everyone.
    cache: true
    queryParams: [{name: k, type: string, description: the key}]
  one:
    kind: http
    source: up
    method: GET
    path: /one
    description: Runs one call at a time in the whole service.
    maxConcurrency: 1
  rated:
    kind: http
    source: up
    method: GET
    path: /rated
    description: Rate-limited.
    rateLimit: 6000/1m
  job:
    kind: http
    source: up
    method: GET
    path: /job
    description: A slow job, run as a task for callers that can take one.
    taskSupport: optional
    timeout: 30s
    queryParams:
      - {name: v, type: string, description: what the result names}
      - {name: ms, type: integer, description: how long it takes}
`
