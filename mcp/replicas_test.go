package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/ssetest"
	"github.com/toolexec/toolexec/mcp"
)

// replicaServers starts n servers whose Executors share one store, as n
// replicas of a service sharing a Redis do, each serving reg's tools.
func replicaServers(t *testing.T, n int, reg *toolexec.Registry, opts ...mcp.Option) []*httptest.Server {
	t.Helper()
	store := toolexec.NewMemoryStore()
	var out []*httptest.Server
	for range n {
		x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()), toolexec.WithStore(store))
		srv := httptest.NewServer(mcp.NewHandler(x, opts...))
		t.Cleanup(srv.Close)
		out = append(out, srv)
	}
	return out
}

// newSSEReader reads the events of body with their ids.
func newSSEReader(t *testing.T, body io.Reader) *ssetest.Reader { return ssetest.NewReader(t, body) }

// resumeGET sends GET with Last-Event-ID.
func resumeGET(t *testing.T, ctx context.Context, url, lastEventID string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", lastEventID)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// steppingTool reports progress 1, waits for step, reports progress 2 and
// answers "done"; its context's end is reported on ended.
func steppingTool(step chan struct{}, ended chan error) *toolexec.Registry {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "step", Description: "reports, waits, reports"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1})
			select {
			case <-step:
			case <-ctx.Done():
				ended <- ctx.Err()
				return nil, false, "", ctx.Err()
			}
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 2})
			return []toolexec.Content{toolexec.Text("done")}, false, "", nil
		})
	return reg
}

func TestAStreamResumesOnAnotherReplicaAfterADisconnect(t *testing.T) {
	step, ended := make(chan struct{}), make(chan error, 1)
	srvs := replicaServers(t, 2, steppingTool(step, ended))

	ctx, cancel := context.WithCancel(context.Background())
	resp := rpc(t, ctx, srvs[0].URL, callWithMeta("step", `{"progressToken":"p"}`), "Authorization", "Bearer alice")
	first := newSSEReader(t, resp.Body).Next()
	require.Equal(t, "notifications/progress", first.Msg["method"])
	require.Regexp(t, `^s-[0-9a-f]{16}-[0-9a-f]{32}_\S+$`, first.ID, "every event carries an id")
	cancel() // the connection is lost
	resp.Body.Close()

	close(step) // the call goes on without its client
	res := resumeGET(t, context.Background(), srvs[1].URL, first.ID, "Authorization", "Bearer alice")
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	assert.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	rd := newSSEReader(t, res.Body)
	second := rd.Next()
	assert.Equal(t, "notifications/progress", second.Msg["method"])
	assert.Equal(t, float64(2), second.Msg["params"].(map[string]any)["progress"], "what followed the last event received, no more")
	last := rd.Next()
	assert.Equal(t, float64(7), last.Msg["id"])
	assert.Contains(t, fmt.Sprint(last.Msg["result"]), "done")
	assert.NotEmpty(t, last.ID)
	assert.Empty(t, rd.Next().Msg, "the stream ends with the call's response")
	select {
	case err := <-ended:
		t.Fatalf("the call was cancelled: %v", err)
	default:
	}

	// The whole stream can be read again, from any event, while it is kept.
	again := resumeGET(t, context.Background(), srvs[0].URL, second.ID, "Authorization", "Bearer alice")
	defer again.Body.Close()
	assert.Equal(t, last.Msg, newSSEReader(t, again.Body).Next().Msg)
}

func TestAReaderOnAnotherReplicaKeepsTheCallAlive(t *testing.T) {
	step, ended := make(chan struct{}), make(chan error, 1)
	// A window wide enough that a loaded machine still registers the
	// reader on the other replica well inside it.
	window := time.Second
	srvs := replicaServers(t, 2, steppingTool(step, ended), mcp.WithResumeWindow(window))

	ctx, cancel := context.WithCancel(context.Background())
	resp := rpc(t, ctx, srvs[0].URL, callWithMeta("step", `{"progressToken":"p"}`))
	first := newSSEReader(t, resp.Body).Next()
	cancel()
	resp.Body.Close()

	res := resumeGET(t, context.Background(), srvs[1].URL, first.ID)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	select {
	case err := <-ended:
		t.Fatalf("the call was cancelled while a client read its stream elsewhere: %v", err)
	case <-time.After(3 * window):
	}
	close(step)
	rd := newSSEReader(t, res.Body)
	assert.Equal(t, "notifications/progress", rd.Next().Msg["method"])
	assert.Contains(t, fmt.Sprint(rd.Next().Msg["result"]), "done")
}

func TestACallNobodyResumesIsCancelledAfterTheWindow(t *testing.T) {
	step, ended := make(chan struct{}), make(chan error, 1)
	srvs := replicaServers(t, 1, steppingTool(step, ended), mcp.WithResumeWindow(100*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	resp := rpc(t, ctx, srvs[0].URL, callWithMeta("step", `{"progressToken":"p"}`))
	newSSEReader(t, resp.Body).Next()
	cancel()
	resp.Body.Close()
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned call was never cancelled")
	}
}

func TestOnlyTheCallerResumesItsStream(t *testing.T) {
	step, ended := make(chan struct{}), make(chan error, 1)
	srvs := replicaServers(t, 2, steppingTool(step, ended))
	defer close(step)
	resp := rpc(t, context.Background(), srvs[0].URL, callWithMeta("step", `{"progressToken":"p"}`), "Authorization", "Bearer alice")
	defer resp.Body.Close()
	first := newSSEReader(t, resp.Body).Next()

	for name, tc := range map[string]struct {
		id   string
		hdr  []string
		want int
	}{
		"another caller":             {first.ID, []string{"Authorization", "Bearer mallory"}, http.StatusNotFound},
		"no credentials":             {first.ID, nil, http.StatusNotFound},
		"an unknown stream":          {"s-0123456789abcdef-0123456789abcdef0123456789abcdef_1", []string{"Authorization", "Bearer alice"}, http.StatusNotFound},
		"a malformed id":             {"nonsense", []string{"Authorization", "Bearer alice"}, http.StatusNotFound},
		"an event the log never had": {strings.Split(first.ID, "_")[0] + "_99999", []string{"Authorization", "Bearer alice"}, http.StatusNotFound},
		"protocol 2026-07-28":        {first.ID, []string{"Authorization", "Bearer alice", "MCP-Protocol-Version", "2026-07-28"}, http.StatusMethodNotAllowed},
	} {
		t.Run(name, func(t *testing.T) {
			res := resumeGET(t, context.Background(), srvs[1].URL, tc.id, tc.hdr...)
			defer res.Body.Close()
			assert.Equal(t, tc.want, res.StatusCode)
			body, _ := io.ReadAll(res.Body)
			assert.NotContains(t, string(body), "progress", "nothing of the stream is revealed")
		})
	}
}

func TestWithoutResumptionEventsCarryNoIDsAndGETIsRefused(t *testing.T) {
	srv, _ := streamServer(t, mcp.WithResumeWindow(-1))
	resp := rpc(t, context.Background(), srv.URL, callWithMeta("progress", `{"progressToken":"p"}`))
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.NotContains(t, string(body), "id: ")
	res := resumeGET(t, context.Background(), srv.URL, "s-0123456789abcdef-0123456789abcdef0123456789abcdef_1")
	defer res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
}

func TestA2026StreamCarriesNoEventIDs(t *testing.T) {
	h := streamHandler(t)
	rec := post2026(t, h, "progress", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{},`+
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}}}`)
	require.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"), rec.Body.String())
	assert.NotContains(t, rec.Body.String(), "id: ", "2026-07-28 streams are not resumable")
}

func TestAnInputRequestIsAnsweredOnAnotherReplica(t *testing.T) {
	srvs := replicaServers(t, 3, streamRegistry(t))
	token := initialize(t, srvs[0].URL, `{"elicitation":{},"sampling":{},"roots":{}}`)
	resp := rpc(t, context.Background(), srvs[0].URL, callBody("hello", `{}`), "Mcp-Session-Id", token, "MCP-Protocol-Version", "2025-11-25")
	defer resp.Body.Close()
	ev := newEvents(t, resp.Body)
	req := ev.next()
	require.Equal(t, "elicitation/create", req["method"])
	id, _ := json.Marshal(req["id"])

	// The answer reaches another replica, as a round-robin balancer sends it.
	reply := rpc(t, context.Background(), srvs[2].URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"action":"accept","content":{"name":"Ada"}}}`, id),
		"Mcp-Session-Id", token, "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, http.StatusAccepted, reply.StatusCode)
	reply.Body.Close()
	res := ev.next()
	assert.Contains(t, fmt.Sprint(res["result"]), "Hello, Ada!")
}

func TestACancellationReachesTheCallOnAnotherReplica(t *testing.T) {
	step, ended := make(chan struct{}), make(chan error, 1)
	srvs := replicaServers(t, 2, steppingTool(step, ended))
	token := initialize(t, srvs[0].URL, `{"sampling":{}}`)
	resp := rpc(t, context.Background(), srvs[0].URL, callWithMeta("step", `{"progressToken":"p"}`), "Mcp-Session-Id", token)
	defer resp.Body.Close()
	ev := newEvents(t, resp.Body)
	require.Equal(t, "notifications/progress", ev.next()["method"])

	r := rpc(t, context.Background(), srvs[1].URL, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, "Mcp-Session-Id", token)
	assert.Equal(t, http.StatusAccepted, r.StatusCode)
	r.Body.Close()
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the cancellation did not reach the call")
	}
}

func TestARequestStateSignedOnOneReplicaResumesOnAnother(t *testing.T) {
	srvs := replicaServers(t, 2, streamRegistry(t))
	do := func(srv *httptest.Server, body string) *http.Response {
		return rpc(t, context.Background(), srv.URL, body, headers2026("tools/call", "hello")...)
	}
	resp := do(srvs[0], call2026("hello", ""))
	var first struct {
		Result struct {
			RequestState string `json:"requestState"`
		}
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&first))
	resp.Body.Close()
	require.NotEmpty(t, first.Result.RequestState)

	resp = do(srvs[1], call2026("hello", fmt.Sprintf(`,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"requestState":%q`, first.Result.RequestState)))
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), "Hello, Ada!")
}

// ownerRecorder is a MemoryStore that notes whose each log's appends say
// it is.
type ownerRecorder struct {
	*toolexec.MemoryStore
	mu     sync.Mutex
	owners map[string]string // log: owner
}

func (o *ownerRecorder) AppendOwnedEvent(ctx context.Context, owner, stream string, data []byte, ttl time.Duration) (string, error) {
	o.mu.Lock()
	o.owners[stream] = owner
	o.mu.Unlock()
	return o.MemoryStore.AppendOwnedEvent(ctx, owner, stream, data, ttl)
}

func TestAStreamLogIsKeptInItsCallersShare(t *testing.T) {
	// The store drops the logs of whoever holds the most first: each
	// caller's stream logs must be named its own, so that one caller's
	// flood of streams cannot drop another's. A caller is its identity,
	// else its address, never its credentials alone: a caller without an
	// identity could send new ones with each stream to take a fresh share.
	store := &ownerRecorder{MemoryStore: toolexec.NewMemoryStore(), owners: map[string]string{}}
	step, ended := make(chan struct{}), make(chan error, 4)
	reg := steppingTool(step, ended)
	// The hook names the caller X-Identity says, and no one without it.
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if id := r.Header.Get("X-Identity"); id != "" {
				r = r.WithContext(toolexec.ContextWithIdentity(r.Context(), id))
			}
			next.ServeHTTP(w, r)
		})
	}
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()), toolexec.WithStore(store),
		toolexec.WithAuthHook(hook))
	srv := httptest.NewServer(mcp.NewHandler(x))
	t.Cleanup(srv.Close)
	defer close(step)
	logOf := func(who, token string) string {
		hdr := []string{"Authorization", "Bearer " + token}
		if who != "" {
			hdr = append(hdr, "X-Identity", who)
		}
		resp := rpc(t, context.Background(), srv.URL, callWithMeta("step", `{"progressToken":"p"}`), hdr...)
		t.Cleanup(func() { resp.Body.Close() })
		ev := newSSEReader(t, resp.Body).Next()
		require.NotEmpty(t, ev.ID, "the stream is resumable")
		stream := strings.Split(ev.ID, "_")[0]
		store.mu.Lock()
		defer store.mu.Unlock()
		owner, ok := store.owners["mcp:stream:"+stream]
		require.True(t, ok, "the log's appends name an owner")
		return owner
	}
	alice, mallory, alice2 := logOf("alice", "a1"), logOf("mallory", "m1"), logOf("alice", "a2")
	assert.NotEqual(t, alice, mallory)
	assert.Equal(t, alice, alice2, "one identity, whatever its token")
	assert.NotContains(t, alice, "alice", "the owner is a digest, never the identity")
	anon1, anon2 := logOf("", "fresh-1"), logOf("", "fresh-2")
	assert.Equal(t, anon1, anon2, "without an identity, one address is one caller, whatever its credentials")
	assert.NotEqual(t, anon1, alice)
	assert.NotContains(t, anon1, "127.0.0.1", "the owner is a digest, never the address")
}
