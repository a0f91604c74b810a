package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/httptool"
)

// upstream is a loopback server that counts its connections.
func upstream(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func fetcher(t *testing.T, hosts []string, opts ...httptool.SourceOption) *httptool.Fetcher {
	t.Helper()
	f, err := httptool.NewFetcher(hosts, false, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func failure(err error) (string, string) {
	f := httptool.Classify(err)
	return f.Message, f.Log
}

const fetchScript = `export default async function (p) {
  try {
    const r = await fetch(p.inputs.url, p.inputs.init);
    const body = p.inputs.json ? await r.json() : await r.text();
    return {status: r.status, ok: r.ok, type: r.headers.get("content-type"), body};
  } catch (e) {
    return {error: e.name + ": " + e.message};
  }
}`

func TestFetch_AnAllowedHost(t *testing.T) {
	var got struct{ method, header, body, query string }
	srv, _ := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.header, got.body, got.query = r.Method, r.Header.Get("X-Key"), string(b), r.URL.RawQuery
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"temp": 21.5}`))
	})
	host := strings.TrimPrefix(srv.URL, "http://")
	r := mustCompile(t, map[string]string{"a.js": fetchScript}, "a.js").Runner(Options{Fetcher: fetcher(t, []string{host}), FetchFailure: failure})
	v, err := callJSON(t, r, map[string]any{"url": srv.URL + "/weather?city=Oslo", "json": true,
		"init": map[string]any{"method": "post", "headers": map[string]any{"X-Key": "k1"}, "body": `{"a":1}`}})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"status": 200.0, "ok": true, "type": "application/json", "body": map[string]any{"temp": 21.5}}, v)
	assert.Equal(t, "POST", got.method)
	assert.Equal(t, "k1", got.header)
	assert.Equal(t, `{"a":1}`, got.body)
	assert.Equal(t, "city=Oslo", got.query)
}

func TestFetch_RefusedBeforeAnyConnection(t *testing.T) {
	allowed, _ := upstream(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	other, otherConns := upstream(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("secret")) })
	var dials atomic.Int32
	countDials := httptool.WithDial(func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return nil, errors.New("no dial in this test")
	})
	// Every name resolves to a private address, as a rebinding or an
	// internal name would.
	private := httptool.WithLookup(func(_ context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "metadata.example.com":
			return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
		case "mixed.example.com":
			return []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("10.0.0.7")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("10.1.2.3")}, nil
	})
	hosts := []string{strings.TrimPrefix(allowed.URL, "http://"), "internal.example.com", "metadata.example.com", "mixed.example.com", "*.corp.example.com"}
	logs := &logBuffer{}
	r := mustCompile(t, map[string]string{"a.js": fetchScript}, "a.js").Runner(Options{
		Tool: "t", Logger: logs.logger(), Fetcher: fetcher(t, hosts, countDials, private), FetchFailure: failure})
	cases := map[string]string{
		"http://internal.example.com/":            "TypeError: fetch failed: the upstream request was refused: the upstream host resolves to a private or local network address",
		"http://metadata.example.com/latest":      "TypeError: fetch failed: the upstream request was refused: the upstream host resolves to a private or local network address",
		"http://mixed.example.com/":               "TypeError: fetch failed: the upstream request was refused: the upstream host resolves to a private or local network address",
		"https://db.corp.example.com/":            "TypeError: fetch failed: the upstream request was refused: the upstream host resolves to a private or local network address",
		other.URL + "/":                           "TypeError: fetch failed: the upstream request was refused: it targets a host that is not allowed",
		"http://127.0.0.1:6379/":                  "TypeError: fetch failed: the upstream request was refused: it targets a host that is not allowed",
		"http://169.254.169.254/latest/meta-data": "TypeError: fetch failed: the upstream request was refused: it targets a host that is not allowed",
		"file:///etc/passwd":                      "TypeError: fetch: the URL is not an absolute http or https URL",
		"/relative":                               "TypeError: fetch: the URL is not an absolute http or https URL",
	}
	for url, msg := range cases {
		v, err := callJSON(t, r, map[string]any{"url": url})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"error": msg}, v, url)
	}
	assert.Zero(t, dials.Load(), "no connection was attempted")
	assert.Zero(t, otherConns.Load(), "the host outside the list saw no connection")
	assert.Contains(t, logs.String(), "level=WARN msg=\"script fetch: upstream host name resolves to a private or local address")
	assert.Contains(t, logs.String(), "metadata.example.com resolves to 169.254.169.254", "the log names the host and the address")
	assert.NotContains(t, logs.String(), "/latest", "not the URL")
}

func TestFetch_OffWithoutHostsAndOutsideACall(t *testing.T) {
	r := mustCompile(t, map[string]string{"a.js": fetchScript}, "a.js").Runner(Options{})
	v, err := callJSON(t, r, map[string]any{"url": "https://api.example.com/"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"error": "TypeError: fetch is off for this tool: list the hosts it may reach in its allowedHosts"}, v)

	p := mustCompile(t, map[string]string{"a.js": "let msg = 'none';\nfetch('https://api.example.com').catch((e) => { msg = e.message; });\nexport default () => msg;\n"}, "a.js")
	v, err = callJSON(t, p.Runner(Options{Fetcher: fetcher(t, []string{"api.example.com"})}), nil)
	require.NoError(t, err)
	assert.Equal(t, "fetch is only available while the script answers a call, not in its top-level code", v)
}

func TestFetch_Limits(t *testing.T) {
	srv, _ := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			_, _ = w.Write([]byte(strings.Repeat("x", MaxFetchResponseBytes+1)))
			return
		}
		_, _ = w.Write([]byte("ok"))
	})
	f := fetcher(t, []string{strings.TrimPrefix(srv.URL, "http://")})
	p := mustCompile(t, map[string]string{"a.js": `export default async (p) => {
  const out = [];
  for (const [url, init] of p.inputs.requests) {
    try { out.push(await (await fetch(url, init)).text()); } catch (e) { out.push(e.name + ": " + e.message); }
  }
  return out;
};`}, "a.js")
	r := p.Runner(Options{Fetcher: f})
	reqs := []any{
		[]any{srv.URL + "/big", nil},
		[]any{srv.URL + "/", map[string]any{"body": strings.Repeat("y", MaxFetchBodyBytes+1), "method": "POST"}},
		[]any{srv.URL + "/", map[string]any{"body": map[string]any{"a": 1.0}, "method": "POST"}},
		[]any{srv.URL + "/", map[string]any{"headers": map[string]any{"X-Bad": "a\r\nInjected: 1"}}},
		[]any{srv.URL + "/", map[string]any{"method": "GET /x HTTP/1.1"}},
	}
	for range MaxFetches {
		reqs = append(reqs, []any{srv.URL + "/", nil})
	}
	v, err := callJSON(t, r, map[string]any{"requests": reqs})
	require.NoError(t, err)
	out := v.([]any)
	assert.Equal(t, fmt.Sprintf("RangeError: fetch: the response is larger than %d bytes", MaxFetchResponseBytes), out[0])
	assert.Equal(t, fmt.Sprintf("RangeError: fetch: a request body holds at most %d bytes", MaxFetchBodyBytes), out[1])
	assert.Equal(t, "TypeError: fetch: body must be a string (JSON.stringify an object)", out[2])
	assert.Equal(t, `TypeError: fetch: header "X-Bad" is not a valid header`, out[3])
	assert.Equal(t, `TypeError: fetch: "GET /X HTTP/1.1" is not a method`, out[4])
	assert.Equal(t, "ok", out[5])
	assert.Equal(t, fmt.Sprintf("RangeError: fetch: a call may send at most %d requests", MaxFetches), out[len(out)-1])
}
