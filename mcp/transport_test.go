package mcp_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

func TestMCPEndpointRefusesMethodsOtherThanPOSTWith405(t *testing.T) {
	h := newHandler(t, nil)
	for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut, http.MethodHead} {
		t.Run(method, func(t *testing.T) {
			rec := send(t, h, method, "/", "", "Accept", "text/event-stream")
			assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
			assert.Equal(t, "POST", rec.Header().Get("Allow"))
			if method != http.MethodHead {
				r := decodeReply(t, rec)
				require.NotNil(t, r.Error)
				assert.Equal(t, mcp.CodeRequestRejected, r.Error.Code)
				assert.JSONEq(t, "null", string(r.ID))
			}
		})
	}
}

func TestNotificationsAndClientResponsesAnswer202WithNoBody(t *testing.T) {
	h := newHandler(t, nil)
	for name, body := range map[string]string{
		"initialized":          `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		"cancelled":            `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		"unknown notification": `{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		"client result":        `{"jsonrpc":"2.0","id":"srv-1","result":{}}`,
		"client error":         `{"jsonrpc":"2.0","id":"srv-2","error":{"code":-1,"message":"no"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := post(t, h, body)
			assert.Equal(t, http.StatusAccepted, rec.Code)
			assert.Empty(t, rec.Body.String())
		})
	}
}

func TestNoSessionIsIssuedAndOneSentIsIgnored(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Empty(t, rec.Header().Get("Mcp-Session-Id"))

	rec = post(t, h, callBody("weather_get", `{"location":"Paris"}`), "Mcp-Session-Id", "made-up-session", "MCP-Protocol-Version", "2025-11-25")
	res := callResult(t, rec)
	assert.False(t, res.IsError)
	assert.Empty(t, rec.Header().Get("Mcp-Session-Id"))
}

func TestResponsesAreJSONEvenWhenTheClientAlsoAcceptsEventStreams(t *testing.T) {
	h := newHandler(t, nil)
	for _, accept := range []string{"application/json, text/event-stream", "text/event-stream, application/json", "*/*", ""} {
		rec := post(t, h, pingBody, "Accept", accept)
		require.Equal(t, http.StatusOK, rec.Code, accept)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), accept)
		assert.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"))
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, rec.Body.String())
	}
}

func TestAClientAcceptingOnlyEventStreamsGetsTheResponseAsOneEvent(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, pingBody, "Accept", "text/event-stream")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	body := rec.Body.String()
	require.True(t, strings.HasPrefix(body, "event: message\ndata: "), body)
	require.True(t, strings.HasSuffix(body, "\n\n"), body)
	data := strings.TrimSuffix(strings.TrimPrefix(body, "event: message\ndata: "), "\n\n")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, data)
}

func TestAnAcceptHeaderNamingNeitherJSONNorEventStreamsAnswers406(t *testing.T) {
	h := newHandler(t, nil)
	for _, accept := range []string{"text/html", "application/json;q=0"} {
		rec := post(t, h, pingBody, "Accept", accept)
		assert.Equal(t, http.StatusNotAcceptable, rec.Code, accept)
		assert.Equal(t, mcp.CodeRequestRejected, decodeReply(t, rec).Error.Code)
	}
}

func TestABodyDeclaredAsSomethingOtherThanJSONAnswers415(t *testing.T) {
	h := newHandler(t, nil)
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "nonsense/"} {
		rec := post(t, h, pingBody, "Content-Type", ct)
		assert.Equal(t, http.StatusUnsupportedMediaType, rec.Code, ct)
		assert.Equal(t, mcp.CodeRequestRejected, decodeReply(t, rec).Error.Code)
	}
	for _, ct := range []string{"application/json; charset=utf-8", "application/json-rpc+json", ""} {
		assert.Equal(t, http.StatusOK, post(t, h, pingBody, "Content-Type", ct).Code, ct)
	}
}

func TestAnUnsupportedProtocolVersionHeaderAnswers400(t *testing.T) {
	h := newHandler(t, nil)
	for _, v := range []string{"1900-01-01", "not-a-version", "2024-11-05", "2026-07-29"} {
		t.Run(v, func(t *testing.T) {
			rec := post(t, h, `{"jsonrpc":"2.0","id":"v-1","method":"tools/list"}`, "MCP-Protocol-Version", v)
			require.Equal(t, http.StatusBadRequest, rec.Code)
			r := decodeReply(t, rec)
			assert.JSONEq(t, `"v-1"`, string(r.ID), "the refusal is matched to its request")
			require.NotNil(t, r.Error)
			assert.Equal(t, mcp.CodeUnsupportedProtocolVersion, r.Error.Code)
			assert.Contains(t, r.Error.Message, v)
			assert.JSONEq(t, `{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"],"requested":"`+v+`"}`, string(r.Error.Data))
		})
	}
	for _, v := range mcp.SupportedProtocolVersions()[1:] {
		assert.Equal(t, http.StatusOK, post(t, h, pingBody, "MCP-Protocol-Version", v).Code, v)
	}
}

func TestABodyOverTheLimitAnswers413AndTheToolNeverRuns(t *testing.T) {
	var ran atomic.Bool
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, func(_ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		ran.Store(true)
		return nil, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithMaxBodyBytes(64))
	h := mcp.NewHandler(x)
	rec := post(t, h, callBody("echo", `{"text":"`+strings.Repeat("a", 200)+`"}`))
	assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	r := decodeReply(t, rec)
	assert.Equal(t, mcp.CodeRequestRejected, r.Error.Code)
	assert.Contains(t, r.Error.Message, "64 bytes")
	assert.False(t, ran.Load())
}

func TestByDefaultOnlyTheRequestsOwnBrowserOriginIsServed(t *testing.T) {
	h := newHandler(t, nil) // httptest requests are for Host example.com
	for origin, want := range map[string]int{
		"":                        http.StatusOK,
		"http://example.com":      http.StatusOK,
		"https://EXAMPLE.com":     http.StatusOK,
		"https://evil.example":    http.StatusForbidden,
		"http://example.com:8080": http.StatusForbidden,
		"null":                    http.StatusForbidden,
		"http://example.com.evil": http.StatusForbidden,
	} {
		assert.Equal(t, want, post(t, h, pingBody, "Origin", origin).Code, "origin %q", origin)
	}
	off := newHandler(t, nil, mcp.WithoutRebindingProtection())
	assert.Equal(t, http.StatusOK, post(t, off, pingBody, "Origin", "https://evil.example").Code)
}

func TestTheOriginAllowListRefusesOtherBrowserOriginsWith403(t *testing.T) {
	h := newHandler(t, nil, mcp.WithAllowedOrigins("http://localhost:3000", "HTTPS://App.Example/"))
	cases := []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK}, // not a browser
		{"http://localhost:3000", http.StatusOK},
		{"https://app.example", http.StatusOK},
		{"http://localhost:3001", http.StatusForbidden},
		{"https://evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	}
	for _, c := range cases {
		rec := post(t, h, pingBody, "Origin", c.origin)
		assert.Equal(t, c.want, rec.Code, "origin %q", c.origin)
		if c.want == http.StatusForbidden {
			r := decodeReply(t, rec)
			assert.Equal(t, mcp.CodeRequestRejected, r.Error.Code)
			assert.JSONEq(t, "null", string(r.ID))
		}
	}
	// The check guards every route, and it comes before anything else.
	rec := send(t, h, http.MethodGet, "/tools/list", "", "Origin", "https://evil.example")
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden: origin or host not allowed"}}`, rec.Body.String())
	rec = send(t, h, http.MethodGet, "/", "", "Origin", "https://evil.example")
	assert.Equal(t, http.StatusForbidden, rec.Code)
}

func TestTheHostAllowListRefusesOtherHostsWith403(t *testing.T) {
	h := newHandler(t, nil, mcp.WithAllowedHosts("localhost", "127.0.0.1:8080", "[::1]"))
	cases := []struct {
		host string
		want int
	}{
		{"localhost", http.StatusOK},
		{"LOCALHOST:9999", http.StatusOK},
		{"127.0.0.1:8080", http.StatusOK},
		{"[::1]:8080", http.StatusOK},
		{"127.0.0.1:9090", http.StatusForbidden},
		{"attacker.example", http.StatusForbidden},
		{"attacker.example:8080", http.StatusForbidden},
	}
	for _, c := range cases {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(pingBody))
		req.Host = c.host
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, c.want, rec.Code, "host %q", c.host)
	}
}

func TestTheHandlerWorksWhereverItIsMounted(t *testing.T) {
	h := newHandler(t, nil)

	r := chi.NewRouter()
	r.Mount("/mcp", h)

	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)

	stripped := http.NewServeMux()
	stripped.Handle("/api/mcp/", http.StripPrefix("/api/mcp", h))

	for name, c := range map[string]struct {
		root http.Handler
		base string
	}{
		"chi Mount":         {r, "/mcp"},
		"ServeMux":          {mux, "/mcp"},
		"StripPrefix":       {stripped, "/api/mcp/"},
		"bare at the root ": {h, "/"},
	} {
		t.Run(name, func(t *testing.T) {
			rec := send(t, c.root, http.MethodPost, c.base, pingBody)
			assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, rec.Body.String())

			base := strings.TrimSuffix(c.base, "/")
			rec = send(t, c.root, http.MethodGet, base+"/tools/list", "")
			assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), `"weather_get"`)

			rec = send(t, c.root, http.MethodPost, base+"/tools/call", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Oslo"}},"id":"m"}`)
			assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
			assert.Contains(t, rec.Body.String(), `"result"`)
		})
	}
}

func TestNewHandlerPanicsOnANilExecutor(t *testing.T) {
	assert.PanicsWithValue(t, "mcp: NewHandler: nil Executor", func() { mcp.NewHandler(nil) })
}

func TestConcurrentRequestsAreAnsweredIndependently(t *testing.T) {
	srv := httptest.NewServer(newHandler(t, nil))
	defer srv.Close()
	const n = 40
	errs := make(chan error, n)
	for i := range n {
		go func() {
			body := callBody("weather_get", `{"location":"x"}`)
			want := `"isError":false`
			switch i % 4 {
			case 1:
				body, want = callBody("explode", `{}`), `"isError":true`
			case 2:
				body, want = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `"weather_get"`
			case 3:
				body, want = callBody("nope", `{}`), `-32602`
			}
			resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(body))
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), want) {
				errs <- fmt.Errorf("request %d: %d %s", i, resp.StatusCode, b)
				return
			}
			errs <- nil
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
}
