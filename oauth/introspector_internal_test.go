package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const internalResource = "https://tools.example.com/mcp"

// heldEndpoint answers every token active once released; it counts the
// requests it got and those cancelled before their answer.
type heldEndpoint struct {
	srv       *httptest.Server
	started   atomic.Int32
	cancelled atomic.Int32
	hold      chan struct{}
	once      sync.Once
}

func newHeldEndpoint(t *testing.T) *heldEndpoint {
	e := &heldEndpoint{hold: make(chan struct{})}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.PostFormValue("token") // the body read whole: the server now notices a client that goes
		e.started.Add(1)
		select {
		case <-e.hold:
		case <-r.Context().Done():
			e.cancelled.Add(1)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"active": true, "sub": "bob", "client_id": "c",
			"aud": internalResource, "exp": time.Now().Add(time.Hour).Unix()})
	}))
	t.Cleanup(e.srv.Close)
	t.Cleanup(e.release)
	return e
}

func (e *heldEndpoint) release() { e.once.Do(func() { close(e.hold) }) }

func newHeldVerifier(t *testing.T, e *heldEndpoint) *Verifier {
	v, err := NewVerifier(Config{Issuer: "https://as.example.com", Resources: []string{internalResource},
		Introspection: &Introspection{Endpoint: e.srv.URL}})
	require.NoError(t, err)
	return v
}

// waiters is how many requests wait for token's answer.
func waiters(v *Verifier, token string) int {
	in := v.introspector
	in.mu.Lock()
	defer in.mu.Unlock()
	if f, ok := in.flights[sha256.Sum256([]byte(token))]; ok {
		return f.waiters
	}
	return 0
}

type verified struct {
	id  *Identity
	err error
}

func verifyAsync(ctx context.Context, v *Verifier, token string) <-chan verified {
	out := make(chan verified, 1)
	go func() {
		id, err := v.Verify(ctx, token, internalResource)
		out <- verified{id, err}
	}()
	return out
}

func TestIdenticalTokensInFlightShareOneIntrospection(t *testing.T) {
	e := newHeldEndpoint(t)
	v := newHeldVerifier(t, e)
	var results []<-chan verified
	for range 10 {
		results = append(results, verifyAsync(context.Background(), v, "tok"))
	}
	require.Eventually(t, func() bool { return waiters(v, "tok") == 10 }, 10*time.Second, time.Millisecond)
	e.release()
	for _, r := range results {
		got := <-r
		require.NoError(t, got.err)
		assert.Equal(t, "bob", got.id.Subject)
	}
	assert.EqualValues(t, 1, e.started.Load(), "ten identical tokens, one request")
	assert.Equal(t, 0, waiters(v, "tok"))
}

func TestAnIntrospectionOutlivesAWaiterThatLeaves(t *testing.T) {
	e := newHeldEndpoint(t)
	v := newHeldVerifier(t, e)
	leaving, leave := context.WithCancel(context.Background())
	first := verifyAsync(leaving, v, "tok")
	second := verifyAsync(context.Background(), v, "tok")
	require.Eventually(t, func() bool { return waiters(v, "tok") == 2 }, 10*time.Second, time.Millisecond)
	leave()
	require.ErrorIs(t, (<-first).err, context.Canceled)
	assert.Equal(t, 1, waiters(v, "tok"), "the other still waits")
	e.release()
	got := <-second
	require.NoError(t, got.err, "the request went on for the waiter that stayed")
	assert.Equal(t, "bob", got.id.Subject)
	assert.EqualValues(t, 1, e.started.Load())
	assert.EqualValues(t, 0, e.cancelled.Load())
}

func TestAnIntrospectionEndsWithItsLastWaiter(t *testing.T) {
	e := newHeldEndpoint(t)
	v := newHeldVerifier(t, e)
	ctx, cancel := context.WithCancel(context.Background())
	a, b := verifyAsync(ctx, v, "tok"), verifyAsync(ctx, v, "tok")
	require.Eventually(t, func() bool { return waiters(v, "tok") == 2 && e.started.Load() == 1 }, 10*time.Second, time.Millisecond)
	cancel()
	require.ErrorIs(t, (<-a).err, context.Canceled)
	require.ErrorIs(t, (<-b).err, context.Canceled)
	require.Eventually(t, func() bool { return e.cancelled.Load() == 1 }, 10*time.Second, time.Millisecond,
		"the authorization server sees the request cancelled")

	e.release()
	got := <-verifyAsync(context.Background(), v, "tok")
	require.NoError(t, got.err, "a later request for the same token starts afresh")
	assert.EqualValues(t, 2, e.started.Load())
}
