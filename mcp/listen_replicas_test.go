package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/mcp"
	"github.com/toolexec/toolexec/storetest"
)

// listenReplicas starts one server per logger, their Executors sharing
// store and admitting "Bearer NAME" as NAME (bearerHook), each handler
// with opts: replicas of one service.
func listenReplicas(t *testing.T, store toolexec.Store, logs []*testlog.Buffer, opts ...mcp.Option) []*httptest.Server {
	t.Helper()
	var out []*httptest.Server
	for _, log := range logs {
		reg := streamRegistry(t)
		x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(log.Logger()),
			toolexec.WithAuthHook(bearerHook), toolexec.WithStore(store))
		srv := httptest.NewServer(mcp.NewHandler(x, opts...))
		t.Cleanup(srv.Close)
		out = append(out, srv)
	}
	return out
}

// openListen opens a listen stream on url as who; the returned function
// closes it.
func openListen(t *testing.T, url, who string) (*http.Response, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	t.Cleanup(cancel)
	return listen(t, ctx, url, "Authorization", "Bearer "+who), cancel
}

// TestListenPerCallerCapCountsAcrossReplicas: with a shared store, a
// caller holding its share of listen streams on one replica is refused
// 429 on another, and a stream it closes on the first frees a place on
// the second.
func TestListenPerCallerCapCountsAcrossReplicas(t *testing.T) {
	srvs := listenReplicas(t, toolexec.NewMemoryStore(), []*testlog.Buffer{{}, {}}, mcp.WithListenLimits(100, 2))
	a, b := srvs[0].URL, srvs[1].URL

	a1, closeA1 := openListen(t, a, "alice")
	require.Equal(t, http.StatusOK, a1.StatusCode)
	a2, _ := openListen(t, a, "alice")
	require.Equal(t, http.StatusOK, a2.StatusCode)
	b1, _ := openListen(t, b, "alice")
	assertListenRefused(t, b1, http.StatusTooManyRequests)
	b2, _ := openListen(t, b, "bob")
	require.Equal(t, http.StatusOK, b2.StatusCode, "bob has a share of his own")

	closeA1()
	deadline := time.Now().Add(generous)
	for {
		b3, closeB3 := openListen(t, b, "alice")
		if b3.StatusCode == http.StatusOK {
			break
		}
		assertListenRefused(t, b3, http.StatusTooManyRequests)
		closeB3()
		require.True(t, time.Now().Before(deadline), "the stream closed on a never freed a place on b")
		time.Sleep(10 * time.Millisecond)
	}
	a3, _ := openListen(t, a, "alice")
	assertListenRefused(t, a3, http.StatusTooManyRequests)
}

// TestListenTotalCapStaysPerReplica: the total bounds what one replica
// holds, so a replica at its total refuses 503 while another admits.
func TestListenTotalCapStaysPerReplica(t *testing.T) {
	srvs := listenReplicas(t, toolexec.NewMemoryStore(), []*testlog.Buffer{{}, {}}, mcp.WithListenLimits(2, 16))
	a, b := srvs[0].URL, srvs[1].URL
	for _, who := range []string{"alice", "bob"} {
		l, _ := openListen(t, a, who)
		require.Equal(t, http.StatusOK, l.StatusCode, who)
	}
	c1, _ := openListen(t, a, "carol")
	assertListenRefused(t, c1, http.StatusServiceUnavailable)
	c2, _ := openListen(t, b, "carol")
	assert.Equal(t, http.StatusOK, c2.StatusCode, "b holds none of a's streams")
	d1, _ := openListen(t, b, "dave")
	assert.Equal(t, http.StatusOK, d1.StatusCode)
}

// TestListenIsCountedInTheProcessWhileTheStoreIsDown: a store that cannot
// be reached refuses no stream: each replica counts its callers' streams
// itself and logs the change once.
func TestListenIsCountedInTheProcessWhileTheStoreIsDown(t *testing.T) {
	store := storetest.NewFaultyStore(toolexec.NewMemoryStore())
	store.Fail(storetest.OpAdmit, storetest.OpRenewSlot, storetest.OpRelease)
	logA, logB := &testlog.Buffer{}, &testlog.Buffer{}
	srvs := listenReplicas(t, store, []*testlog.Buffer{logA, logB}, mcp.WithListenLimits(100, 1))
	a, b := srvs[0].URL, srvs[1].URL

	a1, _ := openListen(t, a, "alice")
	require.Equal(t, http.StatusOK, a1.StatusCode, "not refused because the store is down")
	a2, _ := openListen(t, a, "alice")
	assertListenRefused(t, a2, http.StatusTooManyRequests) // counted in a's process
	b1, _ := openListen(t, b, "alice")
	assert.Equal(t, http.StatusOK, b1.StatusCode, "each replica counts its own")
	assert.Positive(t, store.Calls(storetest.OpAdmit), "the store was asked first")
	const warning = "mcp: listen streams: the shared store cannot be reached"
	assert.Equal(t, 1, strings.Count(logA.String(), warning), "logged once, not per stream: %s", logA.String())

	store.Recover()
	b2, _ := openListen(t, b, "bob")
	require.Equal(t, http.StatusOK, b2.StatusCode)
	a3, _ := openListen(t, a, "bob")
	assertListenRefused(t, a3, http.StatusTooManyRequests) // counted in the store again
	assert.Contains(t, logA.String(), "the shared store answers again")
}
