package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9/logging"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/balancertest"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/redis/redistest"
)

func TestServe_AnUnreachableRedisIsAClearErrorAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close()) // nothing listens there now
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(e2eTools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))

	for name, tc := range map[string]struct {
		flags []string
		env   map[string]string
	}{
		"--redis":            {flags: []string{"--redis", "redis://:pa55word@" + addr + "/0"}},
		"TOOLEXEC_REDIS_URL": {env: map[string]string{"TOOLEXEC_REDIS_URL": "redis://:pa55word@" + addr + "/0"}},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			getenv := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			args := append([]string{"--config", filepath.Join(dir, "tools.yaml"), "--addr", "127.0.0.1:0"}, tc.flags...)
			code := serve(context.Background(), args, getenv, nil, &out, &errOut, nil)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut.String(), "toolexec: --redis: redis: cannot reach Redis at "+addr)
			assert.NotContains(t, errOut.String(), "pa55word")
		})
	}
}

// countingUpstream counts the requests of each path, and how many of
// /enter run at once.
type countingUpstream struct {
	mu            sync.Mutex
	hits          map[string]int
	running, peak int
}

func (u *countingUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	u.hits[r.URL.Path]++
	n := u.hits[r.URL.Path]
	if r.URL.Path == "/enter" {
		u.running++
		u.peak = max(u.peak, u.running)
	}
	u.mu.Unlock()
	if r.URL.Path == "/enter" {
		time.Sleep(10 * time.Millisecond)
		u.mu.Lock()
		u.running--
		u.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"n":%d}`, n)
}

func TestServe_ThreeReplicasWithRedisBehindHAProxyServeAsOne(t *testing.T) {
	rds := redistest.New(t)
	up := &countingUpstream{hits: map[string]int{}}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tools := fmt.Sprintf(`
sources:
  up: {kind: http, baseUrl: %s}
tools:
  cached: {kind: http, source: up, method: GET, path: /hit, description: counts its runs, cache: true}
  one: {kind: http, source: up, method: GET, path: /enter, description: one at a time, maxConcurrency: 1}
`, upSrv.URL)
	var backends []string
	for i := range 3 {
		env := map[string]string{}
		var flags []string
		if i == 0 { // one replica names Redis in its environment, the others with the flag
			env["TOOLEXEC_REDIS_URL"] = rds.URL()
		} else {
			flags = []string{"--redis", rds.URL()}
		}
		base, _ := startServerWith(t, t.TempDir(), tools, env, flags...)
		backends = append(backends, strings.TrimPrefix(base, "http://"))
	}
	lb := balancertest.New(t, backends...).URL()

	for range 9 {
		code, body := post(t, lb+"/api/tools/cached/call", `{}`)
		require.Equal(t, http.StatusOK, code, body)
	}
	up.mu.Lock()
	assert.Equal(t, 1, up.hits["/hit"], "the upstream ran once for nine calls across three replicas")
	up.mu.Unlock()

	var wg sync.WaitGroup
	for range 12 {
		wg.Go(func() {
			code, body := post(t, lb+"/api/tools/one/call", `{}`)
			assert.Equal(t, http.StatusOK, code, body)
		})
	}
	wg.Wait()
	up.mu.Lock()
	defer up.mu.Unlock()
	assert.Equal(t, 12, up.hits["/enter"])
	assert.Equal(t, 1, up.peak, "maxConcurrency: 1 held across the replicas")
}

func TestServe_ReplicasShareARedisCluster(t *testing.T) {
	c := redistest.NewCluster(t, redistest.ClusterConfig{Masters: 3})
	shared, err := openStore(context.Background(), c.URL(), func(string) (string, bool) { return "", false }, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	assert.Equal(t, "Redis Cluster at "+strings.Join(c.Addrs(), ", "), shared.desc, "the banner names the nodes the URL names")
	shared.close()

	up, tools := cachedTool(t)
	var bases []string
	for range 2 {
		base, _ := startServerWith(t, t.TempDir(), tools, nil, "--redis", c.URL())
		bases = append(bases, base)
	}
	for _, base := range bases {
		code, body := post(t, base+"/api/tools/cached/call", `{}`)
		require.Equal(t, http.StatusOK, code, body)
	}
	up.mu.Lock()
	defer up.mu.Unlock()
	assert.Equal(t, 1, up.hits["/hit"], "the upstream ran once for two replicas sharing the cluster")
}

// cachedTool serves an upstream that counts its runs, and returns it with
// a tools file of one cached HTTP tool on it.
func cachedTool(t *testing.T) (*countingUpstream, string) {
	up := &countingUpstream{hits: map[string]int{}}
	upSrv := httptest.NewServer(up)
	t.Cleanup(upSrv.Close)
	return up, fmt.Sprintf(`
sources:
  up: {kind: http, baseUrl: %s}
tools:
  cached: {kind: http, source: up, method: GET, path: /hit, description: counts its runs, cache: true}
`, upSrv.URL)
}

// go-redis logs on its own (a pool that cannot dial, a pub/sub connection
// dropped); serve routes those lines through its logger, as structured
// records among its own, not as bare lines on standard error.
func TestServe_GoRedisLogsThroughTheServersLogger(t *testing.T) {
	srv := redistest.New(t)
	dir := t.TempDir()
	_, tools := cachedTool(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(tools), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan net.Addr, 1), make(chan int, 1)
	var out, logs testlog.Buffer
	go func() {
		done <- serve(ctx, []string{"--config", filepath.Join(dir, "tools.yaml"), "--addr", "127.0.0.1:0", "--redis", srv.URL()},
			func(string) (string, bool) { return "", false }, nil, &out, &logs, ready)
	}()
	t.Cleanup(logging.Enable) // go-redis's own default again, for the tests after
	var addr net.Addr
	select {
	case addr = <-ready:
	case code := <-done:
		t.Fatalf("serve exited %d: %s", code, logs.String())
	}
	defer func() { cancel(); <-done }()

	srv.Kill() // go-redis's pool now fails to dial, and says so
	require.Eventually(t, func() bool {
		code, _ := post(t, "http://"+addr.String()+"/api/tools/cached/call", `{}`)
		require.Equal(t, http.StatusOK, code, "calls go on without Redis")
		return strings.Contains(logs.String(), "component=go-redis")
	}, 20*time.Second, 200*time.Millisecond, "no go-redis line in the server's log:\n%s", logs.String())
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		assert.True(t, strings.HasPrefix(line, "time="), "every line is one of the logger's records: %q", line)
	}
}
