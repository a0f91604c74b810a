package interop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/balancertest"
	"github.com/toolexec/toolexec/internal/ssetest"
	"github.com/toolexec/toolexec/redis/redistest"
)

// upstream is the test's side of the cluster tools: it counts runs per
// key, tracks how many run at once, and holds cluster.step calls until
// released.
type upstream struct {
	mu      sync.Mutex
	hits    map[string]int
	running map[string]int
	peak    map[string]int
	steps   map[string]chan struct{}
	waiting map[string]string // key: the replica whose call waits in /step
}

func newUpstream() *upstream {
	return &upstream{hits: map[string]int{}, running: map[string]int{}, peak: map[string]int{},
		steps: map[string]chan struct{}{}, waiting: map[string]string{}}
}

func (u *upstream) step(k string) chan struct{} {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.steps[k] == nil {
		u.steps[k] = make(chan struct{})
	}
	return u.steps[k]
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	k := r.URL.Query().Get("k")
	switch r.URL.Path {
	case "/hit":
		u.mu.Lock()
		u.hits[k]++
		n := u.hits[k]
		u.mu.Unlock()
		fmt.Fprintf(w, "run %d", n)
	case "/enter":
		u.mu.Lock()
		u.running[k]++
		u.peak[k] = max(u.peak[k], u.running[k])
		u.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		u.mu.Lock()
		u.running[k]--
		u.mu.Unlock()
		fmt.Fprint(w, "entered")
	case "/step":
		ch := u.step(k)
		u.mu.Lock()
		u.waiting[k] = r.URL.Query().Get("r")
		u.mu.Unlock()
		select {
		case <-ch:
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "stepped")
	}
}

func (u *upstream) count(m map[string]int, k string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return m[k]
}

func (u *upstream) waitingOn(k string) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.waiting[k]
}

// replica is one cluster-replica process.
type replica struct {
	name, url string
	cmd       *exec.Cmd
	done      chan struct{}
}

func (r *replica) kill() {
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	<-r.done
}

// cluster is three replicas of cmd/cluster-replica sharing a Redis behind
// HAProxy, and their upstream.
type cluster struct {
	url      string // the balancer
	redis    *redistest.Server
	up       *upstream
	replicas []*replica
}

func startCluster(t *testing.T) *cluster {
	t.Helper()
	rds := redistest.New(t)
	bin := filepath.Join(t.TempDir(), "cluster-replica")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cluster-replica")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "building cluster-replica: %s", out)
	up := newUpstream()
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)

	c := &cluster{redis: rds, up: up}
	var addrs []string
	for i := range 3 {
		name := fmt.Sprintf("r%d", i+1)
		cmd := exec.Command(bin, "-redis", rds.URL(), "-upstream", upSrv.URL, "-name", name)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		r := &replica{name: name, cmd: cmd, done: make(chan struct{})}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		require.NoError(t, err, "replica %s did not start", name)
		r.url = strings.TrimSpace(line)
		go func() { _, _ = io.Copy(io.Discard, stdout); _ = cmd.Wait(); close(r.done) }()
		t.Cleanup(r.kill)
		c.replicas = append(c.replicas, r)
		addrs = append(addrs, strings.TrimPrefix(r.url, "http://"))
	}
	c.url = balancertest.New(t, addrs...).URL()
	return c
}

// post sends a JSON body to url with headers (name, value pairs).
func post(t *testing.T, ctx context.Context, url, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// mcpCall is a 2025-11-25 tools/call body.
func mcpCall(id int, name string, args string, meta string) string {
	if meta == "" {
		meta = "{}"
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,"_meta":%s}}`, id, name, args, meta)
}

// callText runs a tools/call through the balancer and returns the text of
// its result (plain JSON or the last event of a stream).
func callText(t *testing.T, c *cluster, who, name, args string) string {
	t.Helper()
	resp := post(t, context.Background(), c.url+"/mcp", mcpCall(1, name, args, ""), "Authorization", "Bearer "+who, "MCP-Protocol-Version", "2025-11-25")
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	data := string(body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		lines := strings.Split(strings.TrimSpace(data), "\n")
		data = strings.TrimPrefix(lines[len(lines)-1], "data: ")
	}
	var r struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	require.NoError(t, json.Unmarshal([]byte(data), &r), data)
	require.NotEmpty(t, r.Result.Content, data)
	if r.Result.IsError {
		return "error: " + r.Result.Content[0].Text
	}
	return r.Result.Content[0].Text
}

// tasksMeta is the _meta of a 2026-07-28 request from a client that
// declares the tasks extension and form elicitation.
const tasksMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// rpc2026 sends a 2026-07-28 request of method (Mcp-Name: name) with
// params (members) as who, through the balancer, and returns its result,
// or its raw error when it failed.
func (c *cluster) rpc2026(t *testing.T, who, method, name, params string) (map[string]any, string) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q,"params":{%s,"_meta":%s}}`, method, params, tasksMeta)
	resp := post(t, context.Background(), c.url+"/mcp", body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method,
		"Mcp-Name", name, "Authorization", "Bearer "+who)
	defer resp.Body.Close()
	var r struct {
		Result map[string]any  `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
	return r.Result, string(r.Error)
}

// ok2026 is rpc2026 for a request that must succeed.
func (c *cluster) ok2026(t *testing.T, who, method, name, params string) map[string]any {
	t.Helper()
	res, failure := c.rpc2026(t, who, method, name, params)
	require.Empty(t, failure, method)
	return res
}

// task polls tasks/get through the balancer until the task's status is
// status, and returns it.
func (c *cluster) task(t *testing.T, who, id, status string) map[string]any {
	t.Helper()
	var got map[string]any
	require.Eventually(t, func() bool {
		got = c.ok2026(t, who, "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
		return got["status"] == status
	}, 20*time.Second, 10*time.Millisecond, "task %s never became %s: %v", id, status, got)
	return got
}

// another returns a replica other than the one named.
func (c *cluster) another(name string) *replica {
	for _, r := range c.replicas {
		if r.name != name {
			return r
		}
	}
	return nil
}

func TestThreeReplicasBehindHAProxyServeAsOne(t *testing.T) {
	c := startCluster(t)

	t.Run("shared", func(t *testing.T) {
		t.Run("round robin spreads calls over every replica", func(t *testing.T) {
			t.Parallel()
			seen := map[string]bool{}
			for range 9 {
				seen[callText(t, c, "anyone", "cluster.whoami", `{}`)] = true
			}
			assert.Len(t, seen, 3, "no stickiness: every replica answered")
		})
		t.Run("a cached tool reaches its upstream once across replicas", func(t *testing.T) {
			t.Parallel()
			for i := range 9 {
				assert.Equal(t, "run 1", callText(t, c, fmt.Sprint("caller", i), "cluster.cached", `{"k":"cache"}`))
			}
			assert.Equal(t, 1, c.up.count(c.up.hits, "cache"))
		})
		t.Run("a maxConcurrency 1 tool never runs twice at once", func(t *testing.T) {
			t.Parallel()
			var wg sync.WaitGroup
			for range 24 {
				wg.Go(func() {
					assert.Equal(t, "entered", callText(t, c, "anyone", "cluster.one", `{"k":"one"}`))
				})
			}
			wg.Wait()
			assert.Equal(t, 1, c.up.count(c.up.peak, "one"), "one at a time, whichever replica ran it")
		})
		t.Run("a rate limit holds across replicas", func(t *testing.T) {
			t.Parallel()
			var ok, refused int
			for range 9 {
				switch text := callText(t, c, "rated-caller", "cluster.rated", `{}`); {
				case text == "ok":
					ok++
				case strings.Contains(text, "Too many calls"):
					refused++
				default:
					t.Errorf("unexpected answer %q", text)
				}
			}
			assert.Equal(t, 3, ok, "three calls per hour, counted by the service, not per replica")
			assert.Equal(t, 6, refused)
			rest := post(t, context.Background(), c.url+"/rest/tools/cluster.rated/call", `{}`, "Authorization", "Bearer rated-caller")
			defer rest.Body.Close()
			assert.Equal(t, http.StatusTooManyRequests, rest.StatusCode)
			assert.NotEmpty(t, rest.Header.Get("Retry-After"))
		})
		t.Run("Last-Event-ID resumes a stream on another replica", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			resp := post(t, ctx, c.url+"/mcp", mcpCall(5, "cluster.step", `{"k":"resume"}`, `{"progressToken":"p"}`),
				"Authorization", "Bearer resumer", "MCP-Protocol-Version", "2025-11-25")
			first := ssetest.NewReader(t, resp.Body).Next()
			require.Equal(t, "notifications/progress", first.Msg["method"])
			holder := strings.TrimPrefix(first.Msg["params"].(map[string]any)["message"].(string), "on ")
			cancel() // the connection drops
			resp.Body.Close()

			close(c.up.step("resume"))
			other := c.another(holder)
			rctx, rcancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer rcancel()
			req, err := http.NewRequestWithContext(rctx, http.MethodGet, other.url+"/mcp", nil)
			require.NoError(t, err)
			req.Header.Set("Accept", "text/event-stream")
			req.Header.Set("Last-Event-ID", first.ID)
			req.Header.Set("Authorization", "Bearer resumer")
			res, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			require.Equal(t, http.StatusOK, res.StatusCode)
			rd := ssetest.NewReader(t, res.Body)
			assert.Equal(t, float64(2), rd.Next().Msg["params"].(map[string]any)["progress"])
			last := rd.Next()
			assert.Equal(t, float64(5), last.Msg["id"])
			assert.Contains(t, fmt.Sprint(last.Msg["result"]), "stepped on "+holder, "the call ran on where it started")
		})
		t.Run("a 2025 elicitation is answered on another replica", func(t *testing.T) {
			t.Parallel()
			init := post(t, context.Background(), c.url+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
			token := init.Header.Get("Mcp-Session-Id")
			init.Body.Close()
			require.NotEmpty(t, token)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // an answer that never arrives fails the test
			defer cancel()
			resp := post(t, ctx, c.url+"/mcp", mcpCall(9, "cluster.greet", `{}`, ""), "Mcp-Session-Id", token, "MCP-Protocol-Version", "2025-11-25")
			defer resp.Body.Close()
			rd := ssetest.NewReader(t, resp.Body)
			ask := rd.Next()
			require.Equal(t, "elicitation/create", ask.Msg["method"])
			msg := ask.Msg["params"].(map[string]any)["message"].(string)
			holder := strings.TrimSuffix(msg[strings.LastIndex(msg, " ")+1:], ")")
			id, _ := json.Marshal(ask.Msg["id"])
			answer := post(t, context.Background(), c.another(holder).url+"/mcp",
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada"}}}`, id),
				"Mcp-Session-Id", token, "MCP-Protocol-Version", "2025-11-25")
			answer.Body.Close()
			assert.Equal(t, http.StatusAccepted, answer.StatusCode)
			assert.Contains(t, fmt.Sprint(rd.Next().Msg["result"]), "Hello, Ada!")
		})
		t.Run("a 2026 input-required call resumes on any replica", func(t *testing.T) {
			t.Parallel()
			hdr := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "cluster.greet", "Authorization", "Bearer mrtr"}
			meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
			state := ""
			for round := range 4 { // each round may land on another replica
				extra := ""
				if state != "" {
					extra = fmt.Sprintf(`,"inputResponses":{"name":{"action":"accept","content":{"name":"Ada"}}},"requestState":%q`, state)
				}
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cluster.greet","arguments":{},"_meta":%s%s}}`, meta, extra)
				resp := post(t, context.Background(), c.url+"/mcp", body, hdr...)
				var r struct {
					Result struct {
						ResultType   string `json:"resultType"`
						RequestState string `json:"requestState"`
						Content      []struct{ Text string }
					}
				}
				require.NoError(t, json.NewDecoder(resp.Body).Decode(&r))
				resp.Body.Close()
				if round%2 == 0 {
					require.Equal(t, "input_required", r.Result.ResultType)
					state = r.Result.RequestState
				} else {
					require.NotEmpty(t, r.Result.Content)
					assert.Equal(t, "Hello, Ada!", r.Result.Content[0].Text)
					state = ""
				}
			}
		})
		t.Run("a task runs on one replica and is polled, answered and cancelled on any", func(t *testing.T) {
			t.Parallel()
			created := c.ok2026(t, "tasker", "tools/call", "cluster.task", `"name":"cluster.task","arguments":{"k":"task1"}`)
			require.Equal(t, "task", created["resultType"])
			id := created["taskId"].(string)
			require.Eventually(t, func() bool { return c.up.waitingOn("task1") != "" }, 10*time.Second, 5*time.Millisecond)
			runner := c.up.waitingOn("task1")
			// Polled through a round-robin balancer: every replica answers.
			answered := map[string]bool{}
			for range 6 {
				got := c.ok2026(t, "tasker", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
				assert.Equal(t, "working", got["status"])
				info := got["_meta"].(map[string]any)["io.modelcontextprotocol/serverInfo"].(map[string]any)
				answered[info["version"].(string)] = true // cluster-replica's version is its name
			}
			assert.Len(t, answered, 3, "replicas other than the one running it answered too: %v", answered)
			for range 3 {
				_, failure := c.rpc2026(t, "intruder", "tasks/get", id, fmt.Sprintf(`"taskId":%q`, id))
				assert.Contains(t, failure, `-32602`, "another caller's task is not found, on any replica")
			}

			close(c.up.step("task1"))
			asked := c.task(t, "tasker", id, "input_required")
			assert.Contains(t, asked["inputRequests"], "go")
			c.ok2026(t, "tasker", "tasks/update", id, fmt.Sprintf(`"taskId":%q,"inputResponses":{"go":{"action":"accept","content":{"ok":true}}}`, id))
			done := c.task(t, "tasker", id, "completed")
			assert.Equal(t, "task1 done on "+runner+": accept",
				done["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"], "it ran where it started")

			cancelled := c.ok2026(t, "tasker", "tools/call", "cluster.task", `"name":"cluster.task","arguments":{"k":"task2"}`)["taskId"].(string)
			require.Eventually(t, func() bool { return c.up.waitingOn("task2") != "" }, 10*time.Second, 5*time.Millisecond)
			c.ok2026(t, "tasker", "tasks/cancel", cancelled, fmt.Sprintf(`"taskId":%q`, cancelled))
			assert.Equal(t, "cancelled", c.task(t, "tasker", cancelled, "cancelled")["status"])
		})
		t.Run("REST and OXP through the balancer", func(t *testing.T) {
			t.Parallel()
			for range 3 {
				resp := post(t, context.Background(), c.url+"/rest/tools/cluster.cached/call", `{"k":"rest"}`)
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Contains(t, string(body), "run 1")
				resp = post(t, context.Background(), c.url+"/oxp/tools/call", `{"tool_id":"cluster.cached","input":{"k":"rest"}}`)
				body, _ = io.ReadAll(resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Contains(t, string(body), `"success":true`)
			}
			assert.Equal(t, 1, c.up.count(c.up.hits, "rest"), "REST and OXP share MCP's cache")
		})
	})

	t.Run("a replica killed mid-call loses only its own calls", func(t *testing.T) {
		// Two calls wait in their tools on two replicas; one replica dies.
		type pending struct {
			k    string
			resp *http.Response
			done chan string
		}
		var calls []*pending
		for i := range 2 {
			p := &pending{k: fmt.Sprint("kill", i), done: make(chan string, 1)}
			p.resp = post(t, context.Background(), c.url+"/mcp", mcpCall(1, "cluster.step", fmt.Sprintf(`{"k":%q}`, p.k), `{"progressToken":"p"}`),
				"MCP-Protocol-Version", "2025-11-25")
			rd := ssetest.NewReader(t, p.resp.Body)
			rd.Next()
			require.Eventually(t, func() bool { return c.up.waitingOn(p.k) != "" }, 10*time.Second, 5*time.Millisecond)
			go func() {
				for {
					ev := rd.Next()
					if ev.Msg == nil {
						p.done <- "the stream ended without a response"
						return
					}
					if _, notification := ev.Msg["method"]; !notification {
						p.done <- fmt.Sprint(ev.Msg["result"], ev.Msg["error"])
						return
					}
				}
			}()
			calls = append(calls, p)
		}
		victim := c.up.waitingOn(calls[0].k)
		survivor := calls[1]
		if c.up.waitingOn(calls[1].k) == victim {
			t.Skip("both calls landed on one replica") // round robin makes this rare
		}
		for _, r := range c.replicas {
			if r.name == victim {
				r.kill()
			}
		}
		select {
		case got := <-calls[0].done:
			assert.NotContains(t, got, "stepped", "the killed replica's call is lost")
		case <-time.After(10 * time.Second):
			t.Fatal("the killed replica's call did not end")
		}
		close(c.up.step(survivor.k))
		select {
		case got := <-survivor.done:
			assert.Contains(t, got, "stepped", "a call on another replica completes")
		case <-time.After(10 * time.Second):
			t.Fatal("the surviving call did not complete")
		}
		for _, p := range calls {
			p.resp.Body.Close()
		}
		for range 12 {
			assert.NotEqual(t, victim, callText(t, c, "anyone", "cluster.whoami", `{}`), "the balancer sends nothing to the dead replica")
		}
	})

	t.Run("Redis restarted mid-load", func(t *testing.T) {
		var failed atomic.Int32
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				for n := 0; ; n++ {
					select {
					case <-stop:
						return
					default:
					}
					tool := []string{"cluster.whoami", "cluster.cached", "cluster.one"}[n%3]
					ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
					resp := post(t, ctx, c.url+"/rest/tools/"+tool+"/call", fmt.Sprintf(`{"k":"load%d"}`, i))
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					cancel()
					if resp.StatusCode != http.StatusOK {
						failed.Add(1)
					}
				}
			})
		}
		time.Sleep(300 * time.Millisecond)
		c.redis.Kill()
		time.Sleep(500 * time.Millisecond)
		require.NoError(t, c.redis.Restart())
		time.Sleep(time.Second)
		close(stop)
		wg.Wait()
		assert.Zero(t, failed.Load(), "every call was answered while Redis went away and came back")
		// Once it is back, the replicas share again.
		require.Eventually(t, func() bool {
			return callText(t, c, "x", "cluster.cached", `{"k":"after-restart"}`) == "run 1" &&
				callText(t, c, "y", "cluster.cached", `{"k":"after-restart"}`) == "run 1"
		}, 10*time.Second, 50*time.Millisecond)
	})

	t.Run("a task whose replica dies ends failed", func(t *testing.T) {
		id := c.ok2026(t, "tasker", "tools/call", "cluster.task", `"name":"cluster.task","arguments":{"k":"task3"}`)["taskId"].(string)
		require.Eventually(t, func() bool { return c.up.waitingOn("task3") != "" }, 10*time.Second, 5*time.Millisecond)
		victim := c.up.waitingOn("task3")
		for _, r := range c.replicas {
			if r.name == victim {
				r.kill()
			}
		}
		// The balancer may still try the dead replica for a moment: only
		// answers count.
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":%q,"_meta":%s}}`, id, tasksMeta)
		var got struct {
			Result map[string]any `json:"result"`
		}
		require.Eventually(t, func() bool {
			resp := post(t, context.Background(), c.url+"/mcp", body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tasks/get",
				"Mcp-Name", id, "Authorization", "Bearer tasker")
			defer resp.Body.Close()
			got.Result = nil
			return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&got) == nil && got.Result["status"] == "failed"
		}, 30*time.Second, 50*time.Millisecond, "the dead replica's task never ended")
		assert.Equal(t, "the replica running this task stopped", got.Result["statusMessage"])
		assert.EqualValues(t, -32603, got.Result["error"].(map[string]any)["code"])
	})
}
