package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

const secret = "s3cr3t-token-value"

// upstream is the fake API: it records what it got.
type upstream struct {
	srv      *httptest.Server
	lastBody atomic.Value
	lastURL  atomic.Value
	lastAuth atomic.Value
}

func newUpstream(t *testing.T, other *httptest.Server) *upstream {
	u := &upstream{}
	mux := http.NewServeMux()
	mux.HandleFunc("/users/{id}", func(w http.ResponseWriter, r *http.Request) {
		u.lastURL.Store(r.URL.String())
		u.lastAuth.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id": %q, "q": %q, "lang": %q}`, r.PathValue("id"), r.URL.Query().Get("q"), r.Header.Get("X-Lang"))
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.lastBody.Store(string(b))
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
	mux.HandleFunc("/echo-headers", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, "you sent %s and %s", r.Header.Get("Authorization"), r.URL.RawQuery)
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprint(w, `{"message": "the widget is out of stock"}`)
	})
	mux.HandleFunc("/fail-huge", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(strings.Repeat("e", 100000)))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i < 100; i++ {
			if _, err := w.Write([]byte(strings.Repeat("x", 64<<10))); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/redirect-away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/stolen", http.StatusFound)
	})
	mux.HandleFunc("/redirect-home", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/users/7", http.StatusFound)
	})
	u.srv = httptest.NewServer(mux)
	t.Cleanup(u.srv.Close)
	return u
}

func httpTools(base string) string {
	return fmt.Sprintf(`
sources:
  api:
    kind: http
    baseUrl: %s
    timeout: 5s
    headers:
      Authorization: Bearer ${API_TOKEN}
    queryParams:
      key: ${API_TOKEN}
    allowedHosts: [127.0.0.1]
tools:
  get-user:
    kind: http
    source: api
    method: GET
    path: /users/{{.id}}
    description: a user
    pathParams:
      - {name: id, type: string, description: id}
    queryParams:
      - {name: q, type: string, description: q, required: false}
    headerParams:
      - {name: X-Lang, type: string, description: language, required: false}
  echo:
    kind: http
    source: api
    method: POST
    path: /echo
    description: echo a body
    bodyParams:
      - {name: name, type: string, description: n}
      - {name: n, type: integer, description: n}
      - {name: tags, type: array, description: t, items: {name: t, type: string, description: t}}
  echo-template:
    kind: http
    source: api
    method: POST
    path: /echo
    description: echo a templated body
    requestBody: '{"user": {"name": "{{.name}}", "n": {{.n}}, "tags": {{json .tags}}}, "fixed": true}'
    bodyParams:
      - {name: name, type: string, description: n}
      - {name: n, type: integer, description: n}
      - {name: tags, type: array, description: t, items: {name: t, type: string, description: t}}
  fail: {kind: http, source: api, method: GET, path: /fail, description: fails}
  echo-headers: {kind: http, source: api, method: GET, path: /echo-headers, description: echoes the secrets}
  fail-huge: {kind: http, source: api, method: GET, path: /fail-huge, description: fails hugely}
  slow: {kind: http, source: api, method: GET, path: /slow, description: slow, timeout: 200ms}
  huge: {kind: http, source: api, method: GET, path: /huge, description: huge, maxBytes: 100000}
  redirect-away: {kind: http, source: api, method: GET, path: /redirect-away, description: redirects away}
  redirect-home: {kind: http, source: api, method: GET, path: /redirect-home, description: redirects home}
`, base)
}

func httpExecutor(t *testing.T) (*toolexec.Executor, *upstream, *atomic.Int32) {
	var stolen atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { stolen.Add(1) }))
	t.Cleanup(other.Close)
	// The other server is reached by another host name: localhost.
	other.URL = strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	up := newUpstream(t, other)
	set := build(t, httpTools(up.srv.URL), nil, map[string]string{"API_TOKEN": secret})
	return executor(set, Options{}), up, &stolen
}

func errorText(t *testing.T, res *toolexec.CallToolResult, err error) string {
	t.Helper()
	if err != nil {
		e, ok := toolexec.AsError(err)
		require.True(t, ok, err)
		return e.Result().Text()
	}
	require.True(t, res.IsError, res.Text())
	return res.Text()
}

func TestHTTP_RequestFromArguments(t *testing.T) {
	x, up, _ := httpExecutor(t)
	res, err := call(t, x, "get-user", map[string]any{"id": "a/b?c=d#e", "q": "x&key=forged", "X-Lang": "fr"})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	sc := structured(t, res)
	assert.Equal(t, "a/b?c=d#e", sc["id"], "a path parameter is one escaped segment")
	assert.Equal(t, "x&key=forged", sc["q"], "a query parameter is one escaped value")
	assert.Equal(t, "fr", sc["lang"])
	assert.Equal(t, "Bearer "+secret, up.lastAuth.Load(), "the secret header from the environment is sent")
	assert.Contains(t, up.lastURL.Load(), "key="+secret)
	assert.NotContains(t, up.lastURL.Load(), "key=forged")

	res, err = call(t, x, "get-user", map[string]any{"id": ".."})
	assert.Contains(t, errorText(t, res, err), `must not be empty, "." or ".."`, "a path parameter cannot climb the path")
	res, err = call(t, x, "get-user", map[string]any{"id": "1", "X-Lang": "fr\r\nX-Evil: 1"})
	assert.Contains(t, errorText(t, res, err), "line breaks", "a header parameter cannot add a header")
}

// TestHTTP_IntegerBeyond64BitsIsInvalid: an http tool refuses an integer
// argument no 64-bit integer holds as invalid arguments, before any
// request, as every kind does (it used to reach the handler and answer
// an isError result).
func TestHTTP_IntegerBeyond64BitsIsInvalid(t *testing.T) {
	x, up, _ := httpExecutor(t)
	_, err := call(t, x, "echo", json.RawMessage(`{"name": "a", "n": 9223372036854775808, "tags": []}`))
	require.Error(t, err)
	e, ok := toolexec.AsError(err)
	require.True(t, ok, err)
	assert.Equal(t, toolexec.StageValidate, e.Stage)
	assert.Equal(t, toolexec.CodeInvalidArguments, e.Code)
	assert.Nil(t, up.lastBody.Load(), "no request was sent")
}

func TestHTTP_SecretsNeverListed(t *testing.T) {
	x, _, _ := httpExecutor(t)
	b, err := json.Marshal(x.SurfaceKit().AllTools())
	require.NoError(t, err)
	assert.NotContains(t, string(b), secret)
	assert.NotContains(t, string(b), "Authorization")
}

func TestHTTP_EchoedSecretsRedacted(t *testing.T) {
	x, _, _ := httpExecutor(t)
	res, err := call(t, x, "echo-headers", nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.NotContains(t, res.Text(), secret)
	assert.Equal(t, "upstream answered 400 Bad Request: you sent [redacted] and key=[redacted]", res.Text())
}

func TestHTTP_JSONBodyCannotBeInjected(t *testing.T) {
	x, up, _ := httpExecutor(t)
	evil := `", "admin": true, "x": "`
	res, err := call(t, x, "echo", map[string]any{"name": evil, "n": 3, "tags": []string{"a", evil}})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(up.lastBody.Load().(string)), &got))
	assert.Equal(t, map[string]any{"name": evil, "n": float64(3), "tags": []any{"a", evil}}, got)

	res, err = call(t, x, "echo-template", map[string]any{"name": evil, "n": 4, "tags": []string{evil}})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	got = nil
	require.NoError(t, json.Unmarshal([]byte(up.lastBody.Load().(string)), &got))
	assert.Equal(t, map[string]any{"user": map[string]any{"name": evil, "n": float64(4), "tags": []any{evil}}, "fixed": true}, got)
}

func TestHTTP_FailingUpstreamIsToolError(t *testing.T) {
	x, _, _ := httpExecutor(t)
	res, err := call(t, x, "fail", nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "upstream answered 422 Unprocessable Entity: the widget is out of stock", res.Text())

	res, err = call(t, x, "fail-huge", nil)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Less(t, len(res.Text()), 1200, "the upstream's message is bounded")
}

func TestHTTP_SlowUpstreamTimesOut(t *testing.T) {
	x, _, _ := httpExecutor(t)
	_, err := call(t, x, "slow", nil)
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Equal(t, toolexec.CodeTimeout, e.Code)
}

func TestHTTP_HugeResponseCapped(t *testing.T) {
	x, _, _ := httpExecutor(t)
	res, err := call(t, x, "huge", nil)
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 2)
	assert.Len(t, res.Content[0].(*toolexec.TextContent).Text, 100000)
	assert.Contains(t, res.Text(), "[truncated: the response exceeds 100000 bytes]")
}

func TestHTTP_RedirectToDisallowedHostRefused(t *testing.T) {
	x, _, stolen := httpExecutor(t)
	res, err := call(t, x, "redirect-away", nil)
	msg := errorText(t, res, err)
	assert.Contains(t, msg, "not allowed")
	assert.NotContains(t, msg, secret)
	assert.Zero(t, stolen.Load(), "the disallowed host was never contacted")

	res, err = call(t, x, "redirect-home", nil)
	require.NoError(t, err)
	assert.False(t, res.IsError, "a redirect within the allowed host is followed")
}

func TestHTTP_TransportErrorsHideTheURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	set := build(t, strings.Replace(httpTools("http://"+addr), "timeout: 5s", "timeout: 2s", 1), nil, map[string]string{"API_TOKEN": secret})
	x := executor(set, Options{})
	res, err := call(t, x, "fail", nil)
	msg := errorText(t, res, err)
	assert.Equal(t, "the upstream request failed", msg)
}
