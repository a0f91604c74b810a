package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/redis/redistest"
)

// rateTools is a tools file whose tools have rate limits of their own
// (find and count "2/1h", the http tool fetch the same as a mapping),
// none (free, free2: the server's --rate-limit applies) or rateLimit: none
// (exempt). fetch calls upstream's /hit.
func rateTools(upstream string) string {
	return fmt.Sprintf(`
sources:
  db: {kind: sqlite, database: shop.db, init: schema.sql}
  up: {kind: http, baseUrl: %s}
tools:
  find:
    kind: sqlite-sql
    source: db
    description: Find an item by id.
    parameters:
      - {name: id, type: integer, description: The id.}
    statement: SELECT id, name FROM items WHERE id = ?
    rateLimit: "2/1h"
  count:
    kind: sqlite-sql
    source: db
    description: How many items.
    statement: SELECT count(*) AS n FROM items
    rateLimit: 2/1h
  fetch:
    kind: http
    source: up
    description: Calls the upstream.
    method: GET
    path: /hit
    rateLimit: {rate: 2, per: 1h}
  free: {kind: sqlite-sql, source: db, description: One., statement: SELECT 1 AS one}
  free2: {kind: sqlite-sql, source: db, description: Two., statement: SELECT 2 AS two}
  exempt: {kind: sqlite-sql, source: db, description: Three., statement: SELECT 3 AS three, rateLimit: none}
toolsets:
  public: [find]
`, upstream)
}

// rateUpstream is an upstream for fetch that counts its calls.
func rateUpstream(t *testing.T) (*countingUpstream, string) {
	up := &countingUpstream{hits: map[string]int{}}
	srv := httptest.NewServer(up)
	t.Cleanup(srv.Close)
	return up, srv.URL
}

// clientFrom is an HTTP client whose connections come from the loopback
// address ip, so that the server sees another remote address.
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// exchange posts body to url with c and returns the response (its body
// read) and the body.
func exchange(t *testing.T, c *http.Client, url, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// restCall calls tool over REST and returns the response and its body.
func restCall(t *testing.T, c *http.Client, base, tool string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	args := `{}`
	if tool == "find" {
		args = `{"id": 1}`
	}
	return exchange(t, c, base+"/api/tools/"+tool+"/call", args, headers...)
}

// mcpToolCall calls tool over MCP at path and returns the response and
// the result (isError and its text).
func mcpToolCall(t *testing.T, base, path, tool string, headers ...string) (*http.Response, bool, string) {
	t.Helper()
	resp, body := exchange(t, http.DefaultClient, base+path, mcpCall(tool), headers...)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(body, &m), string(body))
	require.NotNil(t, m.Result, "a tool result: %s", body)
	text := ""
	if len(m.Result.Content) > 0 {
		text = m.Result.Content[0].Text
	}
	return resp, m.Result.IsError, text
}

// assertRateRefused checks a REST or OXP refusal of a rate limit: 429,
// with a Retry-After of at most the period, and a body saying why.
func assertRateRefused(t *testing.T, resp *http.Response, body []byte, per int, msg ...any) {
	t.Helper()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, append(msg, string(body))...)
	ra, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After is a number of seconds: %q", resp.Header.Get("Retry-After"))
	assert.Positive(t, ra)
	assert.LessOrEqual(t, ra, per)
	assert.Contains(t, string(body), "Too many calls", msg...)
}

const hour = 3600

// A tool's rateLimit: each caller's calls of the tool beyond its rate are
// refused on every surface (REST and OXP 429 with Retry-After, MCP an
// isError result, toolbox's native API 429 in its shape), before the tool
// runs; another caller (another remote address) has a budget of its own.
func TestServe_ToolRateLimitOnEverySurface(t *testing.T) {
	up, upURL := rateUpstream(t)
	base, _ := startServerWith(t, t.TempDir(), rateTools(upURL), map[string]string{"TOOLEXEC_TOKEN": "tok"})
	auth := []string{"Authorization", "Bearer tok"}
	c := http.DefaultClient

	// REST: twice, then 429.
	for i := range 2 {
		resp, body := restCall(t, c, base, "find", auth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, "call %d: %s", i+1, body)
	}
	resp, body := restCall(t, c, base, "find", auth...)
	assertRateRefused(t, resp, body, hour)
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	require.NoError(t, json.Unmarshal(body, &res))
	assert.True(t, res.IsError)
	require.Len(t, res.Content, 1)
	assert.Contains(t, res.Content[0].Text, "Too many calls: at most 2 calls per 1h0m0s per caller, for tool find.")

	// The same caller's budget of find is spent on every surface.
	_, isErr, text := mcpToolCall(t, base, "/mcp", "find", auth...)
	assert.True(t, isErr, "MCP: an isError result")
	assert.Contains(t, text, "Too many calls")
	// The HandsAI route answers a failed call as HandsAI clients expect
	// (-32603 with the message).
	resp, body = exchange(t, c, base+"/mcp/tools/call", mcpCall("find"), auth...)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(body), `"code":-32603,"message":"Internal error: Too many calls: at most 2 calls per 1h0m0s per caller, for tool find.`)
	resp, body = exchange(t, c, base+"/oxp/tools/call", `{"tool_id":"Tools.find","input":{"id":1}}`, auth...)
	assertRateRefused(t, resp, body, hour, "OXP")
	resp, body = exchange(t, c, base+"/api/tool/find/invoke", `{"id":1}`, auth...)
	assertRateRefused(t, resp, body, hour, "toolbox's native API")
	var tb map[string]string
	require.NoError(t, json.Unmarshal(body, &tb), string(body))
	assert.Equal(t, "Too Many Requests", tb["status"])
	assert.Contains(t, tb["error"], "Too many calls: at most 2 calls per 1h0m0s per caller, for tool find. Try again in ",
		"toolbox's shape, with the library's message")

	// MCP: twice, then an isError result, with Retry-After on the HTTP
	// response.
	for i := range 2 {
		_, isErr, text := mcpToolCall(t, base, "/mcp", "count", auth...)
		require.False(t, isErr, "call %d: %s", i+1, text)
	}
	resp, isErr, text = mcpToolCall(t, base, "/mcp", "count", auth...)
	assert.True(t, isErr)
	assert.Contains(t, text, "Too many calls: at most 2 calls per 1h0m0s per caller, for tool count.")
	assert.NotEmpty(t, resp.Header.Get("Retry-After"))

	// Another caller has a budget of its own.
	other := clientFrom("127.0.0.2")
	for i := range 2 {
		resp, body := restCall(t, other, base, "find", auth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, "another caller's call %d: %s", i+1, body)
	}
	resp, body = restCall(t, other, base, "find", auth...)
	assertRateRefused(t, resp, body, hour, "another caller, once its own budget is spent")

	// An http tool's rate: the refused call never reaches the upstream.
	for i := range 2 {
		resp, body := restCall(t, c, base, "fetch", auth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, "call %d: %s", i+1, body)
	}
	resp, body = restCall(t, c, base, "fetch", auth...)
	assertRateRefused(t, resp, body, hour)
	up.mu.Lock()
	assert.Equal(t, 2, up.hits["/hit"], "the refused call did not run")
	up.mu.Unlock()

	// Tools without a rate are not limited.
	for range 5 {
		resp, body := restCall(t, c, base, "free", auth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	}
}

// --rate-limit bounds each caller's calls of every tool together, but for
// tools with a rateLimit of their own (counted on their own) or
// rateLimit: none.
func TestServe_ServerRateLimitFlag(t *testing.T) {
	_, upURL := rateUpstream(t)
	base, _ := startServerWith(t, t.TempDir(), rateTools(upURL), nil, "--rate-limit", "2/1h")
	c := http.DefaultClient

	resp, body := restCall(t, c, base, "free")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	resp, body = restCall(t, c, base, "free2")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	for _, tool := range []string{"free", "free2"} {
		resp, body = restCall(t, c, base, tool)
		assertRateRefused(t, resp, body, hour, tool)
		assert.Contains(t, string(body), "Too many calls: at most 2 calls per 1h0m0s per caller, all tools together.")
	}
	_, isErr, text := mcpToolCall(t, base, "/mcp", "free")
	assert.True(t, isErr, "MCP too")
	assert.Contains(t, text, "all tools together")

	for range 3 {
		resp, body = restCall(t, c, base, "exempt")
		require.Equal(t, http.StatusOK, resp.StatusCode, "rateLimit: none: %s", body)
	}
	for range 2 {
		resp, body = restCall(t, c, base, "find")
		require.Equal(t, http.StatusOK, resp.StatusCode, "a tool's own rate is counted on its own: %s", body)
	}
	resp, body = restCall(t, c, base, "find")
	assertRateRefused(t, resp, body, hour, "the tool's own rate")

	other := clientFrom("127.0.0.2")
	resp, body = restCall(t, other, base, "free")
	require.Equal(t, http.StatusOK, resp.StatusCode, "another caller: %s", body)
}

func TestServe_ServerRateBurstFlag(t *testing.T) {
	_, upURL := rateUpstream(t)
	base, _ := startServerWith(t, t.TempDir(), rateTools(upURL), nil, "--rate-limit", "1/h", "--rate-burst", "3")
	for i := range 3 {
		resp, body := restCall(t, http.DefaultClient, base, "free")
		require.Equal(t, http.StatusOK, resp.StatusCode, "call %d of the burst: %s", i+1, body)
	}
	resp, body := restCall(t, http.DefaultClient, base, "free")
	assertRateRefused(t, resp, body, hour)
}

func TestServe_BadRateFlagsAreUsageErrors(t *testing.T) {
	path := stdioFixture(t)
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--rate-limit", "0/1m"}, `toolexec: --rate-limit: the rate must be a whole number of calls from 1 to 1000000, not "0/1m"`},
		{[]string{"--rate-limit", "10"}, `toolexec: --rate-limit: want RATE/PER, such as 10/1m or 5/s, not "10"`},
		{[]string{"--rate-limit", "10/2d"}, `toolexec: --rate-limit: the period must be a duration`},
		{[]string{"--rate-limit", "10/48h"}, `toolexec: --rate-limit: the period must be from 1s to 24h`},
		{[]string{"--rate-limit", "1/m", "--rate-burst", "2000"}, `toolexec: --rate-burst: the burst must be a whole number of calls from 1 to 1000000, and at most 1000 times the rate`},
		{[]string{"--rate-limit", "1/m", "--rate-burst", "-1"}, `toolexec: --rate-burst: the burst must be`},
		{[]string{"--rate-burst", "5"}, `toolexec: --rate-burst needs --rate-limit`},
		{[]string{"--stdio", "--rate-limit", "x/m"}, `toolexec: --rate-limit: the rate must be`},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"--config", path, "--addr", "127.0.0.1:0"}, c.flags...)
		code := serve(context.Background(), args, func(string) (string, bool) { return "", false }, strings.NewReader(""), &out, &errOut, nil)
		assert.Equal(t, 2, code, "%v", c.flags)
		assert.Contains(t, errOut.String(), c.want, "%v", c.flags)
	}
}

// With OAuth, the caller is the token's subject: two subjects calling from
// one address have a budget each.
func TestServe_RateLimitCountsEachOAuthSubject(t *testing.T) {
	_, upURL := rateUpstream(t)
	is := newIssuer(t, "openid")
	const res = "https://tools.example.com"
	base, _ := startServerWith(t, t.TempDir(), rateTools(upURL), nil, "--oauth-issuer", is.srv.URL, "--oauth-resource", res+"/")
	alice := []string{"Authorization", "Bearer " + is.token(t, res+"/api", "scope", "openid")}
	bob := []string{"Authorization", "Bearer " + is.token(t, res+"/api", "scope", "openid", "sub", "bob")}

	for i := range 2 {
		resp, body := restCall(t, http.DefaultClient, base, "find", alice...)
		require.Equal(t, http.StatusOK, resp.StatusCode, "alice's call %d: %s", i+1, body)
	}
	resp, body := restCall(t, http.DefaultClient, base, "find", alice...)
	assertRateRefused(t, resp, body, hour, "alice")
	resp, body = restCall(t, http.DefaultClient, base, "find", bob...)
	require.Equal(t, http.StatusOK, resp.StatusCode, "bob, from the same address, has a budget of his own: %s", body)
}

// With --redis, replicas count each caller's rate together.
func TestServe_ReplicasWithRedisShareACallersRate(t *testing.T) {
	rds := redistest.New(t)
	_, upURL := rateUpstream(t)
	tools := rateTools(upURL)
	a, _ := startServerWith(t, t.TempDir(), tools, nil, "--redis", rds.URL())
	b, _ := startServerWith(t, t.TempDir(), tools, map[string]string{"TOOLEXEC_REDIS_URL": rds.URL()}, "--rate-limit", "2/1h")

	for _, base := range []string{a, b} {
		resp, body := restCall(t, http.DefaultClient, base, "find")
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", base, body)
	}
	for _, base := range []string{a, b} {
		resp, body := restCall(t, http.DefaultClient, base, "find")
		assertRateRefused(t, resp, body, hour, "two calls on two replicas spent the caller's budget: "+base)
	}
	_, isErr, text := mcpToolCall(t, b, "/mcp", "find")
	assert.True(t, isErr, "over MCP too")
	assert.Contains(t, text, "Too many calls")

	// The other caller's budget is shared too.
	other := clientFrom("127.0.0.2")
	for _, base := range []string{b, a} {
		resp, body := restCall(t, other, base, "find")
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", base, body)
	}
	resp, body := restCall(t, other, b, "find")
	assertRateRefused(t, resp, body, hour)

	// b's --rate-limit counts b's callers' calls of the tools without a
	// rate of their own.
	for range 2 {
		resp, body = restCall(t, http.DefaultClient, b, "free")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	}
	resp, body = restCall(t, http.DefaultClient, b, "free")
	assertRateRefused(t, resp, body, hour)
}

// Over stdio the one caller is the client: its calls beyond the rate are
// isError results.
func TestServeStdio_RateLimitCountsTheClient(t *testing.T) {
	dir := t.TempDir()
	_, upURL := rateUpstream(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tools.yaml"), []byte(rateTools(upURL)), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	var in strings.Builder
	for i := range 3 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"find","arguments":{"id":1}}}`+"\n", i+1)
	}
	for i := range 3 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"free","arguments":{}}}`+"\n", i+10)
	}
	var out, errOut bytes.Buffer
	code := serve(context.Background(), []string{"--config", filepath.Join(dir, "tools.yaml"), "--stdio", "--rate-limit", "2/h"},
		func(string) (string, bool) { return "", false }, strings.NewReader(in.String()), &out, &errOut, nil)
	require.Equal(t, 0, code, errOut.String())
	assert.Contains(t, errOut.String(), "rate limit: at most 2 calls per 1h0m0s per caller", "the banner, on stderr")

	refused := map[string]int{}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 6, out.String())
	for _, l := range lines {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		if m.Result.IsError {
			require.NotEmpty(t, m.Result.Content, l)
			assert.Contains(t, m.Result.Content[0].Text, "Too many calls", l)
			if m.ID < 10 {
				refused["find"]++
			} else {
				refused["free"]++
			}
		}
	}
	assert.Equal(t, map[string]int{"find": 1, "free": 1}, refused, "one call of three refused by each rate: %s", out.String())
}

// validate reports a bad rateLimit at its value.
func TestValidate_ReportsABadRateLimitAtItsValue(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	tools := strings.Replace(rateTools("http://127.0.0.1:1"), `rateLimit: "2/1h"`, `rateLimit: "0/1h"`, 1)
	require.NoError(t, os.WriteFile(path, []byte(tools), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "schema.sql"), []byte(e2eSchema), 0o600))
	var out, errOut bytes.Buffer
	code := validate([]string{"--config", path}, func(string) (string, bool) { return "", false }, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), path+`:13:16: tool "find" rateLimit: the rate must be a whole number of calls from 1 to 1000000, not "0/1h"`)
}

// Without --redis, every route of one server counts together: a tool
// reached at /api and through a toolset's routes (each served by an
// Executor of its own) has one concurrency limit, one cache and one rate
// per caller.
func TestServe_ToolsetRoutesCountAsOneServer(t *testing.T) {
	up := &countingUpstream{hits: map[string]int{}}
	upSrv := httptest.NewServer(up)
	defer upSrv.Close()
	tools := fmt.Sprintf(`
sources:
  up: {kind: http, baseUrl: %s}
tools:
  cached: {kind: http, source: up, method: GET, path: /hit, description: counts its runs, cache: true}
  one: {kind: http, source: up, method: GET, path: /enter, description: one at a time, maxConcurrency: 1}
  rated: {kind: http, source: up, method: GET, path: /rated, description: twice an hour, rateLimit: 2/1h}
toolsets:
  ts: [cached, one, rated]
`, upSrv.URL)
	base, _ := startServerWith(t, t.TempDir(), tools, map[string]string{"TOOLEXEC_TOKEN": "tok"})
	auth := []string{"Authorization", "Bearer tok"}
	routes := []string{base, base + "/toolsets/ts"}

	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, body := restCall(t, http.DefaultClient, routes[i%2], "one", auth...)
			assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		}()
	}
	wg.Wait()
	up.mu.Lock()
	assert.Equal(t, 12, up.hits["/enter"])
	assert.Equal(t, 1, up.peak, "maxConcurrency: 1 held across /api and the toolset's routes")
	up.mu.Unlock()

	for _, r := range routes {
		resp, body := restCall(t, http.DefaultClient, r, "cached", auth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	}
	up.mu.Lock()
	assert.Equal(t, 1, up.hits["/hit"], "the toolset's route answered from the cache /api filled")
	up.mu.Unlock()

	for _, r := range routes {
		resp, body := restCall(t, http.DefaultClient, r, "rated", auth...)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	}
	resp, body := restCall(t, http.DefaultClient, base, "rated", auth...)
	assertRateRefused(t, resp, body, hour, "the caller's two calls were spent across the routes")
	resp, body = restCall(t, http.DefaultClient, base+"/toolsets/ts", "rated", auth...)
	assertRateRefused(t, resp, body, hour, "on the toolset's route too")
}
