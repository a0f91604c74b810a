package redis_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/redis/redistest"
)

// openListen opens a 2026-07-28 subscriptions/listen stream on url; it
// ends with the test, or when the returned function is called.
func openListen(t *testing.T, url string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	body := `{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta":` + tasksMeta + `,"notifications":{"toolsListChanged":true}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	return resp, cancel
}

// requireRefused checks a listen request was refused with status.
func requireRefused(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	require.Equal(t, status, resp.StatusCode)
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Contains(t, string(data), "listen streams")
}

// TestListenPerCallerCapHoldsAcrossReplicas: two MCP replicas sharing a
// real Redis count one caller's listen streams together: at its share on
// one, the caller is refused 429 on the other until it closes a stream.
// The caller (here its address) is written to Redis only as a digest.
func TestListenPerCallerCapHoldsAcrossReplicas(t *testing.T) {
	srv := redistest.New(t)
	prefix := t.Name() + ":"
	var urls []string
	for range 2 {
		reg := toolexec.NewRegistry()
		x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discardLogger()),
			toolexec.WithStore(open(t, srv, prefix)))
		s := httptest.NewServer(mcp.NewHandler(x, mcp.WithListenLimits(100, 2)))
		t.Cleanup(s.Close)
		urls = append(urls, s.URL)
	}
	a, b := urls[0], urls[1]

	a1, closeA1 := openListen(t, a)
	require.Equal(t, http.StatusOK, a1.StatusCode)
	b1, _ := openListen(t, b)
	require.Equal(t, http.StatusOK, b1.StatusCode)
	a2, _ := openListen(t, a)
	requireRefused(t, a2, http.StatusTooManyRequests)
	b2, _ := openListen(t, b)
	requireRefused(t, b2, http.StatusTooManyRequests)

	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr})
	defer rdb.Close()
	keys, err := rdb.Keys(context.Background(), prefix+"listen:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1, "one key for the one caller")
	assert.Regexp(t, `^`+regexp.QuoteMeta(prefix)+`listen:[0-9a-f]{32}$`, keys[0], "a digest of the caller, not its address")
	assert.Equal(t, int64(2), rdb.ZCard(context.Background(), keys[0]).Val(), "a lease per open stream")

	closeA1()
	deadline := time.Now().Add(time.Minute)
	for {
		b3, closeB3 := openListen(t, b)
		if b3.StatusCode == http.StatusOK {
			break
		}
		requireRefused(t, b3, http.StatusTooManyRequests)
		closeB3()
		require.True(t, time.Now().Before(deadline), "the stream closed on a never freed a place on b")
		time.Sleep(20 * time.Millisecond)
	}
}
