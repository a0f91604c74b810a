package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

func listenBody(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"_meta":` + meta2026 + `,"notifications":{"toolsListChanged":true}}}`
}

// listen opens a subscriptions/listen stream with hdr; the stream ends
// with ctx.
func listen(t *testing.T, ctx context.Context, url string, hdr ...string) *http.Response {
	t.Helper()
	resp := rpc(t, ctx, url, listenBody(`"sub"`), append(headers2026("subscriptions/listen", ""), hdr...)...)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// bearerHook admits a request whose Authorization is "Bearer NAME" as the
// identity NAME, refuses "Bearer reader" with 403 and a request without
// credentials with 401, each with its challenge. It decides the same for
// calls and for requests that are not calls (whose Call has no tool).
func bearerHook(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch auth := r.Header.Get("Authorization"); auth {
		case "":
			toolexec.WriteChallenge(w, http.StatusUnauthorized, `Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource"`)
		case "Bearer reader":
			toolexec.WriteChallenge(w, http.StatusForbidden, `Bearer error="insufficient_scope", scope="tools.listen"`)
		default:
			next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), strings.TrimPrefix(auth, "Bearer "))))
		}
	})
}

// listenServer serves the stream registry over a real server, with xopts
// on the Executor and opts on the handler.
func listenServer(t *testing.T, xopts []toolexec.Option, opts ...mcp.Option) (*httptest.Server, *toolexec.Registry) {
	t.Helper()
	reg := streamRegistry(t)
	x := toolexec.New(reg, reg, append([]toolexec.Option{toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())}, xopts...)...)
	srv := httptest.NewServer(mcp.NewHandler(x, opts...))
	t.Cleanup(srv.Close)
	return srv, reg
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

// TestListenIsRefusedAsACallIs: subscriptions/listen runs the Executor's
// auth hook, and a refusal answers exactly as a refused 2026-07-28
// tools/call does: the same status, the hook's challenge, the same body.
func TestListenIsRefusedAsACallIs(t *testing.T) {
	srv, _ := listenServer(t, []toolexec.Option{toolexec.WithAuthHook(bearerHook)})
	for _, tc := range []struct {
		name, auth string
		status     int
		challenge  string
	}{
		{"anonymous", "", http.StatusUnauthorized, `Bearer resource_metadata="https://x.example/.well-known/oauth-protected-resource"`},
		{"forbidden", "Bearer reader", http.StatusForbidden, `Bearer error="insufficient_scope", scope="tools.listen"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), generous)
			defer cancel()
			var hdr []string
			if tc.auth != "" {
				hdr = []string{"Authorization", tc.auth}
			}
			l := listen(t, ctx, srv.URL, hdr...)
			require.Equal(t, tc.status, l.StatusCode)
			assert.Equal(t, tc.challenge, l.Header.Get("WWW-Authenticate"))
			listenBody := readAll(t, l)

			c := rpc(t, ctx, srv.URL, call2026("quiet", ""), append(headers2026("tools/call", "quiet"), hdr...)...)
			defer c.Body.Close()
			require.Equal(t, tc.status, c.StatusCode, "a refused call answers the same")
			assert.Equal(t, c.Header.Get("WWW-Authenticate"), l.Header.Get("WWW-Authenticate"))
			assert.Equal(t, c.Header.Get("Content-Type"), l.Header.Get("Content-Type"))
			callBody := readAll(t, c)
			assert.Equal(t, strings.ReplaceAll(callBody, `"id":3`, `"id":"sub"`), listenBody)
		})
	}
	t.Run("admitted", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), generous)
		defer cancel()
		l := listen(t, ctx, srv.URL, "Authorization", "Bearer alice")
		require.Equal(t, http.StatusOK, l.StatusCode)
		assert.Equal(t, "notifications/subscriptions/acknowledged", newEvents(t, l.Body).next()["method"])
	})
}

// TestListenWithAHookThatExpectsACallIsRefused: a hook written for calls
// of named tools alone admits only when it sees a tool, and a listen request
// has none: it is refused, never a 500 or an open stream.
func TestListenWithAHookThatExpectsACallIsRefused(t *testing.T) {
	callsOnly := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if toolexec.CallFromContext(r.Context()).Tool.Name != "" {
				next.ServeHTTP(w, r)
			}
		})
	}
	srv, _ := listenServer(t, []toolexec.Option{toolexec.WithAuthHook(callsOnly)})
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	l := listen(t, ctx, srv.URL)
	assert.Equal(t, http.StatusUnauthorized, l.StatusCode)
	assert.Equal(t, "Bearer", l.Header.Get("WWW-Authenticate"))
}

// TestListenIsToldOnlyOfChangesItsCallerCanSee: with per-caller tool lists
// (WithToolFilter), a change to tools the listener cannot see sends it
// nothing.
func TestListenIsToldOnlyOfChangesItsCallerCanSee(t *testing.T) {
	filtered := make(chan string, 100) // the identity of each list the filter made
	filter := func(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
		id, _ := toolexec.IdentityFromContext(r.Context())
		defer func() { filtered <- id }()
		out := make([]toolexec.Tool, 0, len(tools))
		for _, tl := range tools {
			if !strings.HasPrefix(tl.Name, "secret") {
				out = append(out, tl)
			}
		}
		return out
	}
	srv, reg := listenServer(t, []toolexec.Option{toolexec.WithAuthHook(bearerHook), toolexec.WithToolFilter(filter)})
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	l := listen(t, ctx, srv.URL, "Authorization", "Bearer alice")
	require.Equal(t, http.StatusOK, l.StatusCode)
	ev := newEvents(t, l.Body)
	require.Equal(t, "notifications/subscriptions/acknowledged", ev.next()["method"])
	awaitFilter := func() {
		t.Helper()
		select {
		case id := <-filtered:
			require.Equal(t, "alice", id, "the filter sees the identity the auth hook established")
		case <-ctx.Done():
			t.Fatal("the listener never looked at the change")
		}
	}
	awaitFilter() // the list the stream started with
	noop := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "secret_one"}, noop)
	awaitFilter()
	reg.MustAdd(toolexec.Tool{Name: "public_one"}, noop)
	awaitFilter()
	// The listener handles changes one at a time: once it has looked at
	// this one, whatever it sent for the two before is on the wire.
	reg.MustAdd(toolexec.Tool{Name: "secret_two"}, noop)
	awaitFilter()
	srv.CloseClientConnections()
	n := 0
	for m := ev.next(); m != nil; m = ev.next() {
		assert.Equal(t, "notifications/tools/list_changed", m["method"])
		n++
	}
	assert.Equal(t, 1, n, "one notification: public_one's")
}

// assertListenRefused checks a listen refused by a cap: status, a
// Retry-After in seconds, and a JSON-RPC error answering the request.
func assertListenRefused(t *testing.T, resp *http.Response, status int) {
	t.Helper()
	require.Equal(t, status, resp.StatusCode)
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After in seconds")
	assert.Positive(t, secs)
	var reply rpcReply
	require.NoError(t, json.Unmarshal([]byte(readAll(t, resp)), &reply))
	assert.JSONEq(t, `"sub"`, string(reply.ID))
	require.NotNil(t, reply.Error)
	assert.Equal(t, mcp.CodeRequestRejected, reply.Error.Code)
}

// TestListenStreamsAreCappedPerCallerAndInAll: a caller over its share is
// answered 429, any caller once the server holds its maximum 503; a
// stream that ends frees its place.
func TestListenStreamsAreCappedPerCallerAndInAll(t *testing.T) {
	srv, _ := listenServer(t, []toolexec.Option{toolexec.WithAuthHook(bearerHook)}, mcp.WithListenLimits(3, 2))
	open := func(who string) (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithTimeout(context.Background(), generous)
		t.Cleanup(cancel)
		return listen(t, ctx, srv.URL, "Authorization", "Bearer "+who), cancel
	}
	a1, closeA1 := open("alice")
	require.Equal(t, http.StatusOK, a1.StatusCode)
	a2, _ := open("alice")
	require.Equal(t, http.StatusOK, a2.StatusCode)
	a3, _ := open("alice")
	assertListenRefused(t, a3, http.StatusTooManyRequests)
	b1, _ := open("bob")
	require.Equal(t, http.StatusOK, b1.StatusCode)
	c1, _ := open("carol")
	assertListenRefused(t, c1, http.StatusServiceUnavailable)

	closeA1()
	deadline := time.Now().Add(generous)
	for {
		a4, closeA4 := open("alice")
		if a4.StatusCode == http.StatusOK {
			break
		}
		assertListenRefused(t, a4, http.StatusTooManyRequests)
		closeA4()
		require.True(t, time.Now().Before(deadline), "the closed stream's place was never freed")
		time.Sleep(10 * time.Millisecond)
	}
}

// TestListenStreamsHaveADefaultCapPerCaller: without an identity, the
// caller is its address, and by default one address holds 16 streams.
func TestListenStreamsHaveADefaultCapPerCaller(t *testing.T) {
	srv, _ := listenServer(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	for i := range 16 {
		l := listen(t, ctx, srv.URL)
		require.Equal(t, http.StatusOK, l.StatusCode, "stream %d", i+1)
	}
	assertListenRefused(t, listen(t, ctx, srv.URL), http.StatusTooManyRequests)
}

// TestAStalledListenerIsDropped: a listener that never reads while the
// tool set keeps changing fills its socket; the blocked write ends at its
// deadline, the stream is dropped (its connection closed) and its place
// freed.
func TestAStalledListenerIsDropped(t *testing.T) {
	reg := streamRegistry(t)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	srv, closed := watchedServer(t, mcp.NewHandler(x, mcp.WithListenLimits(100, 1), mcp.WithStreamWriteTimeout(stallWriteTimeout)))
	conn := rawPost(t, srv, listenBody(`"stalled"`), headers2026("subscriptions/listen", "")...)
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	churned := make(chan struct{})
	go func() {
		defer close(churned)
		noop := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", nil
		}
		for ctx.Err() == nil {
			reg.MustAdd(toolexec.Tool{Name: "churn"}, noop)
			reg.Remove("churn", "")
		}
	}()
	awaitDropped(t, closed, conn)
	l := listen(t, ctx, srv.URL)
	assert.Equal(t, http.StatusOK, l.StatusCode, "the dropped stream's place is free")
	cancel()
	<-churned
}

// TestAListenIDIsBounded: the request's id is repeated in every
// notification of the stream, so a large one is refused.
func TestAListenIDIsBounded(t *testing.T) {
	h := streamHandler(t)
	long := `"` + strings.Repeat("i", 300) + `"`
	rec := post(t, h, listenBody(long), headers2026("subscriptions/listen", "")...)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	assertCode(t, mcp.CodeInvalidRequest, decodeReply(t, rec))
}

// TestListenCountsAnIPv6CallerByItsPrefix: without an identity, a caller is
// its network, and an IPv6 one its /64, so that a host cannot open 16
// streams from each of its addresses.
func TestListenCountsAnIPv6CallerByItsPrefix(t *testing.T) {
	reg := streamRegistry(t)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	h := mcp.NewHandler(x, mcp.WithListenLimits(100, 2))
	// The test's own addresses: each request says which it comes from.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.RemoteAddr = r.Header.Get("X-Test-Remote")
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	from := func(addr string) *http.Response { return listen(t, ctx, srv.URL, "X-Test-Remote", addr) }
	require.Equal(t, http.StatusOK, from("[2001:db8:1:2::1]:1000").StatusCode)
	require.Equal(t, http.StatusOK, from("[2001:db8:1:2::2]:1000").StatusCode)
	assertListenRefused(t, from("[2001:db8:1:2:ffff::3]:1000"), http.StatusTooManyRequests)
	require.Equal(t, http.StatusOK, from("[2001:db8:1:3::1]:1000").StatusCode, "another /64 is another caller")
}
