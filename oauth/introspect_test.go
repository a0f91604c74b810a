package oauth_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/oauth"
)

// introspectionEndpoint is an RFC 7662 endpoint that counts what it is
// asked. While held, it answers nothing until released or until the
// request is cancelled.
type introspectionEndpoint struct {
	srv *httptest.Server

	mu          sync.Mutex
	started     int // requests received
	inFlight    int
	maxInFlight int
	cancelled   int // requests whose client gave up before the answer
	active      map[string]bool
	received    map[string]bool // the tokens asked about

	hold        chan struct{} // closed by release
	releaseOnce sync.Once
}

func newIntrospectionEndpoint(t *testing.T, held bool) *introspectionEndpoint {
	t.Helper()
	e := &introspectionEndpoint{active: map[string]bool{}, received: map[string]bool{}, hold: make(chan struct{})}
	if !held {
		e.release()
	}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := r.PostFormValue("token")
		e.mu.Lock()
		e.started++
		e.received[token] = true
		e.inFlight++
		e.maxInFlight = max(e.maxInFlight, e.inFlight)
		active := e.active[token]
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			e.inFlight--
			e.mu.Unlock()
		}()
		select {
		case <-e.hold:
		case <-r.Context().Done():
			e.mu.Lock()
			e.cancelled++
			e.mu.Unlock()
			return
		}
		ans := map[string]any{"active": false}
		if active {
			ans = map[string]any{"active": true, "sub": "bob", "client_id": "c", "aud": testResource,
				"exp": time.Now().Add(time.Hour).Unix()}
		}
		_ = json.NewEncoder(w).Encode(ans)
	}))
	t.Cleanup(e.srv.Close)
	t.Cleanup(e.release) // runs first: held requests end before Close waits for them
	return e
}

func (e *introspectionEndpoint) release() { e.releaseOnce.Do(func() { close(e.hold) }) }

// count returns one of the endpoint's counters.
func (e *introspectionEndpoint) count(f func(*introspectionEndpoint) int) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return f(e)
}

func startedOf(e *introspectionEndpoint) int   { return e.started }
func inFlightOf(e *introspectionEndpoint) int  { return e.inFlight }
func cancelledOf(e *introspectionEndpoint) int { return e.cancelled }

func newIntrospectingVerifier(t *testing.T, e *introspectionEndpoint, in oauth.Introspection, logs *bytes.Buffer) *oauth.Verifier {
	t.Helper()
	in.Endpoint = e.srv.URL
	cfg := oauth.Config{Issuer: "https://as.example.com", Resources: []string{testResource}, Introspection: &in}
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	v, err := oauth.NewVerifier(cfg)
	require.NoError(t, err)
	return v
}

// TestJunkTokensCannotFloodTheIntrospectionEndpoint: 100 anonymous junk
// tokens at once make at most MaxConcurrent requests to the authorization
// server; the tokens waiting for a slot are never sent once their clients
// have gone, and the requests in flight are cancelled with their clients.
func TestJunkTokensCannotFloodTheIntrospectionEndpoint(t *testing.T) {
	e := newIntrospectionEndpoint(t, true)
	v := newIntrospectingVerifier(t, e, oauth.Introspection{MaxConcurrent: 4, MaxPerSecond: -1}, nil)
	type client struct {
		cancel context.CancelFunc
		err    chan error
	}
	clients := map[string]client{}
	for i := range 100 {
		token := "junk-" + strconv.Itoa(i)
		ctx, cancel := context.WithCancel(context.Background())
		c := client{cancel, make(chan error, 1)}
		clients[token] = c
		go func() {
			_, err := v.Verify(ctx, token, testResource)
			c.err <- err
		}()
	}
	require.Eventually(t, func() bool { return e.count(inFlightOf) == 4 }, 10*time.Second, time.Millisecond,
		"four requests reach the endpoint")
	e.mu.Lock()
	sent := maps.Clone(e.received)
	e.mu.Unlock()
	require.Len(t, sent, 4)
	leave := func(token string) {
		clients[token].cancel()
		select {
		case err := <-clients[token].err:
			require.ErrorIs(t, err, context.Canceled)
		case <-time.After(10 * time.Second):
			t.Fatal("a Verify outlived its client")
		}
	}
	for token := range clients {
		if !sent[token] {
			leave(token) // the clients whose tokens wait for a slot go first
		}
	}
	for token := range sent {
		leave(token)
	}
	require.Eventually(t, func() bool { return e.count(cancelledOf) == 4 }, 10*time.Second, time.Millisecond,
		"the requests in flight are cancelled with their clients")
	e.mu.Lock()
	defer e.mu.Unlock()
	assert.Equal(t, 4, e.maxInFlight, "never more than MaxConcurrent at once")
	assert.Equal(t, 4, e.started, "tokens still waiting for a slot are never sent")
}

// TestIntrospectionIsRateLimited: beyond MaxPerSecond, new tokens are
// refused unchecked (and the refusal logged once), not sent.
func TestIntrospectionIsRateLimited(t *testing.T) {
	e := newIntrospectionEndpoint(t, false)
	logs := &bytes.Buffer{}
	v := newIntrospectingVerifier(t, e, oauth.Introspection{MaxPerSecond: 0.001}, logs) // a burst of one
	_, err := v.Verify(context.Background(), "junk-0", testResource)
	require.ErrorIs(t, err, oauth.ErrInvalidToken, "the first is asked about, and inactive")
	for i := 1; i < 20; i++ {
		_, err := v.Verify(context.Background(), "junk-"+strconv.Itoa(i), testResource)
		require.Error(t, err)
		assert.NotErrorIs(t, err, oauth.ErrInvalidToken, "not checked, so not known to be invalid")
		assert.NotContains(t, err.Error(), "junk-", "the error never holds the token")
	}
	assert.Equal(t, 1, e.count(startedOf), "one request within the rate")
	assert.Equal(t, 1, strings.Count(logs.String(), "rate limit"), "the limit is logged once, not per token")
	_, err = v.Verify(context.Background(), "junk-0", testResource)
	require.ErrorIs(t, err, oauth.ErrInvalidToken, "a token known to be inactive needs no request")
}

// TestInactiveAnswersAreRememberedBriefly: a junk token sent again is
// refused without asking; active tokens are asked about every time, so a
// revocation counts at once; the memory holds InactiveEntries tokens.
func TestInactiveAnswersAreRememberedBriefly(t *testing.T) {
	e := newIntrospectionEndpoint(t, false)
	e.active["good"] = true
	v := newIntrospectingVerifier(t, e, oauth.Introspection{InactiveEntries: 2}, nil)
	verify := func(token string) error {
		_, err := v.Verify(context.Background(), token, testResource)
		return err
	}
	for range 10 {
		require.ErrorIs(t, verify("junk-a"), oauth.ErrInvalidToken)
	}
	assert.Equal(t, 1, e.count(startedOf), "the same junk token is asked about once")

	for range 3 {
		require.NoError(t, verify("good"))
	}
	assert.Equal(t, 4, e.count(startedOf), "an active token is asked about on every use")

	require.ErrorIs(t, verify("junk-b"), oauth.ErrInvalidToken)
	require.ErrorIs(t, verify("junk-c"), oauth.ErrInvalidToken) // junk-a forgotten: two entries
	assert.Equal(t, 6, e.count(startedOf))
	require.ErrorIs(t, verify("junk-c"), oauth.ErrInvalidToken)
	assert.Equal(t, 6, e.count(startedOf), "junk-c is remembered")
	require.ErrorIs(t, verify("junk-a"), oauth.ErrInvalidToken)
	assert.Equal(t, 7, e.count(startedOf), "junk-a was forgotten, the least recently seen")

	off := newIntrospectingVerifier(t, e, oauth.Introspection{InactiveTTL: -1}, nil)
	for range 3 {
		_, err := off.Verify(context.Background(), "junk-z", testResource)
		require.ErrorIs(t, err, oauth.ErrInvalidToken)
	}
	assert.Equal(t, 10, e.count(startedOf), "InactiveTTL < 0 remembers nothing")
}

// TestARefusedIntrospectionAnswersUnauthorized: over HTTP, a token the
// verifier could not check gets the same 401 invalid_token as a bad one.
func TestARefusedIntrospectionAnswersUnauthorized(t *testing.T) {
	e := newIntrospectionEndpoint(t, false)
	v := newIntrospectingVerifier(t, e, oauth.Introspection{MaxPerSecond: 0.001}, nil)
	h := v.AuthHook(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a junk token passed") }))
	for i := range 3 {
		r := httptest.NewRequest(http.MethodPost, testResource, nil)
		r.Header.Set("Authorization", "Bearer junk-"+strconv.Itoa(i))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		assert.Equal(t, http.StatusUnauthorized, w.Code)
		assert.Contains(t, w.Header().Get("WWW-Authenticate"), `error="invalid_token"`)
	}
}
