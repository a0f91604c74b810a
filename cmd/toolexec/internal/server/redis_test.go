package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/redis/redistest"
)

// redisTools is a tools file of redis tools on the server at addr, its
// password from REDIS_PW_FOR_TEST.
func redisTools(addr string) string {
	return fmt.Sprintf(`
sources:
  cache:
    kind: redis
    address: [%s]
    password: ${REDIS_PW_FOR_TEST:}
    database: 2
tools:
  get:
    kind: redis
    source: cache
    description: Reads a key.
    commands: [[GET, $key]]
    parameters: [{name: key, type: string, description: the key}]
  put:
    kind: redis
    source: cache
    description: Sets a key and reads it back.
    readOnly: false
    commands:
      - [SET, $key, $value]
      - [GET, $key]
      - [EXISTS, canary]
    parameters:
      - {name: key, type: string, description: the key}
      - {name: value, type: string, description: the value}
  push:
    kind: redis
    source: cache
    description: Appends items to a list.
    readOnly: false
    commands: [[DEL, $key], [RPUSH, $key, $items], [LRANGE, $key, 0, -1]]
    parameters:
      - {name: key, type: string, description: the key}
      - {name: items, type: array, description: items, items: {name: i, type: string, description: an item}}
  hset:
    kind: redis
    source: cache
    description: Sets fields of a hash.
    readOnly: false
    commands: [[HSET, $key, $fields], [HGETALL, $key], [HINCRBY, $key, n, $by], [ZADD, z, 1.5, m], [ZSCORE, z, m], [GET, missing]]
    parameters:
      - {name: key, type: string, description: the key}
      - {name: fields, type: map, description: fields}
      - {name: by, type: integer, description: increment}
  range:
    kind: redis
    source: cache
    description: A list, cut.
    commands: [[LRANGE, $key, 0, -1]]
    parameters: [{name: key, type: string, description: the key}]
    maxRows: 5
  small:
    kind: redis
    source: cache
    description: Reads with a small cap.
    commands: [[GET, $key], [GET, $key]]
    parameters: [{name: key, type: string, description: the key}]
    maxBytes: 300
  incr:
    kind: redis
    source: cache
    description: Counts.
    readOnly: false
    commands: [[SET, other, 1], [INCR, $key]]
    parameters: [{name: key, type: string, description: the key}]
  xread:
    kind: redis
    source: cache
    description: Reads streams with options.
    commands: [[XREAD, $options]]
    parameters: [{name: options, type: array, description: options, items: {name: o, type: string, description: an option}}]
  slow:
    kind: redis
    source: cache
    description: Pings, with a short timeout.
    commands: [[PING]]
    timeout: 300ms
toolsets:
  reads: [get, range]
`, addr)
}

// redisServer starts a Redis and builds the redis tools on it; it returns
// the set and a client of the tools' database.
func redisServer(t *testing.T) (*Set, *goredis.Client, *redistest.Server) {
	t.Helper()
	srv := redistest.New(t)
	set := build(t, redisTools(srv.Addr), nil, nil)
	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr, DB: 2})
	t.Cleanup(func() { _ = rdb.Close() })
	require.NoError(t, rdb.Set(context.Background(), "canary", "alive", 0).Err())
	return set, rdb, srv
}

// results are the results of a redis tool's answer.
func results(t *testing.T, res *toolexec.CallToolResult) []any {
	t.Helper()
	require.NotNil(t, res)
	require.False(t, res.IsError, res.Text())
	r, ok := structured(t, res)["results"].([]any)
	require.True(t, ok, "%v", res.StructuredContent)
	return r
}

func TestRedis_ArgumentsAreWholeWords(t *testing.T) {
	set, rdb, _ := redisServer(t)
	x := executor(set, Options{})
	for _, c := range []struct{ key, value string }{
		{"user 1", "two words"},
		{"line\nbreak", "a\r\nb"},
		// A value that spells a second command in Redis's protocol, and
		// one that would end an inline command and start FLUSHALL.
		{"k", "x\r\n*1\r\n$8\r\nFLUSHALL\r\n"},
		{"k2\r\nFLUSHALL\r\n", "v"},
		{"$key", "$value"},
		{"{\"$gt\": \"\"}", "*"},
	} {
		res, err := call(t, x, "put", map[string]any{"key": c.key, "value": c.value})
		require.NoError(t, err)
		r := results(t, res)
		assert.Equal(t, []any{"OK", c.value, float64(1)}, r, "SET, GET, and the canary still there")
		got, err := rdb.Get(context.Background(), c.key).Result()
		require.NoError(t, err, "the key is the argument, byte for byte: %q", c.key)
		assert.Equal(t, c.value, got)
	}
	assert.Equal(t, "alive", rdb.Get(context.Background(), "canary").Val(), "nothing was flushed")

	// An array's items are one argument each, whatever they hold.
	res, err := call(t, x, "push", map[string]any{"key": "l", "items": []any{"a b", "FLUSHALL", "c\nd"}})
	require.NoError(t, err)
	assert.Equal(t, []any{float64(0), float64(3), []any{"a b", "FLUSHALL", "c\nd"}}, results(t, res))
	assert.Equal(t, "alive", rdb.Get(context.Background(), "canary").Val())
}

func TestRedis_RepliesAsJSON(t *testing.T) {
	set, rdb, _ := redisServer(t)
	x := executor(set, Options{})
	res, err := call(t, x, "hset", map[string]any{"key": "h", "fields": map[string]any{"b": "2", "a": "1"}, "by": 5})
	require.NoError(t, err)
	r := results(t, res)
	assert.Equal(t, []any{
		float64(2),                         // HSET: fields added (a map's keys and values, by key)
		map[string]any{"a": "1", "b": "2"}, // HGETALL: a RESP3 map, as an object
		float64(5),                         // HINCRBY
		float64(1),                         // ZADD
		1.5,                                // ZSCORE: a RESP3 double
		nil,                                // GET of a missing key
	}, r)
	assert.Equal(t, []string{`2`, `{"a":"1","b":"2"}`, `5`, `1`, `1.5`, `null`}, texts(t, res), "one text block per command, as toolbox answers")

	require.NoError(t, rdb.Set(context.Background(), "bin", "\xff\xfe", 0).Err())
	res, err = call(t, x, "get", map[string]any{"key": "bin"})
	require.NoError(t, err)
	assert.Equal(t, []any{"//4="}, results(t, res), "bytes that are not UTF-8 as base64")
}

func TestRedis_CapsCutTheResult(t *testing.T) {
	set, rdb, _ := redisServer(t)
	x := executor(set, Options{})
	ctx := context.Background()
	for i := range 20 {
		require.NoError(t, rdb.RPush(ctx, "long", fmt.Sprint(i)).Err())
	}
	res, err := call(t, x, "range", map[string]any{"key": "long"})
	require.NoError(t, err)
	sc := structured(t, res)
	assert.Equal(t, []any{[]any{"0", "1", "2", "3", "4"}}, sc["results"], "maxRows elements")
	assert.Equal(t, true, sc["truncated"])
	assert.Contains(t, sc["message"], "the reply to command 0 has 20 elements; only the first 5 are returned")
	assert.Contains(t, res.Text(), "[truncated: ")

	require.NoError(t, rdb.Set(ctx, "mid", strings.Repeat("x", 200), 0).Err())
	res, err = call(t, x, "small", map[string]any{"key": "mid"})
	require.NoError(t, err)
	sc = structured(t, res)
	assert.Len(t, sc["results"], 1, "the second reply does not fit in 300 bytes")
	assert.Contains(t, sc["message"], "only those of the first 1 commands are returned")

	// A reply past the source's reply cap (twice the largest maxBytes of
	// its tools, plus 64 KiB) is not read whole: the call fails, saying
	// so, and the source goes on serving.
	huge := strings.Repeat("y", 3<<20)
	require.NoError(t, rdb.Set(ctx, "huge", huge, 0).Err())
	res, err = call(t, x, "get", map[string]any{"key": "huge"})
	assert.Contains(t, errorText(t, res, err), "command 0 (GET): the reply is larger than 2162688 bytes")
	res, err = call(t, x, "get", map[string]any{"key": "canary"})
	require.NoError(t, err)
	assert.Equal(t, []any{"alive"}, results(t, res))
}

func TestRedis_ErrorsNameTheCommand(t *testing.T) {
	set, rdb, _ := redisServer(t)
	x := executor(set, Options{})
	require.NoError(t, rdb.Set(context.Background(), "word", "abc", 0).Err())
	res, err := call(t, x, "incr", map[string]any{"key": "word"})
	assert.Equal(t, "command 1 (INCR) failed: ERR value is not an integer or out of range (commands 0 to 0 ran)", errorText(t, res, err))

	// An option that would make XREAD block, from an array argument, is
	// refused before anything is sent.
	res, err = call(t, x, "xread", map[string]any{"options": []any{"BLOCK", "0", "STREAMS", "s", "$"}})
	assert.Contains(t, errorText(t, res, err), "command 0 (XREAD): BLOCK makes the command wait for data")
	res, err = call(t, x, "xread", map[string]any{"options": []any{"COUNT", "1", "STREAMS", "s", "0"}})
	require.NoError(t, err)
	assert.Equal(t, []any{nil}, results(t, res))
}

// A call past its timeout ends then, on a server that does not answer
// (its clients paused), and the source serves the next call.
func TestRedis_TimeoutEndsTheCall(t *testing.T) {
	set, rdb, _ := redisServer(t)
	x := executor(set, Options{})
	require.NoError(t, rdb.Do(context.Background(), "CLIENT", "PAUSE", "3000", "ALL").Err())
	start := time.Now()
	_, err := call(t, x, "slow", nil)
	took := time.Since(start)
	e, ok := toolexec.AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, toolexec.CodeTimeout, e.Code, "%v", err)
	assert.Less(t, took, 2500*time.Millisecond, "the call ended at its timeout, not when the server answered")
	require.NoError(t, rdb.Do(context.Background(), "CLIENT", "UNPAUSE").Err())
	res, err := call(t, x, "slow", nil)
	require.NoError(t, err)
	assert.Equal(t, []any{"PONG"}, results(t, res))
}

func TestRedis_UnreachableSourceNamesNoSecret(t *testing.T) {
	srv := redistest.New(t)
	addr := srv.Addr
	srv.Close()
	cfg := loadTools(t, redisTools(addr), map[string]string{"REDIS_PW_FOR_TEST": "pw-SECRET-9999"})
	_, err := Build(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `source "cache": cannot reach Redis at `+addr)
	assert.NotContains(t, err.Error(), "pw-SECRET-9999")
}

// The tools over every HTTP surface: REST, MCP and its HandsAI route,
// OXP, mcp-toolbox's native API, a toolset's routes.
func TestRedis_EverySurface(t *testing.T) {
	set, rdb, _ := redisServer(t)
	require.NoError(t, rdb.Set(context.Background(), "greeting", "hello", 0).Err())
	h, _ := Handler(NewProvider(set), Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	code, body := restCall(t, srv, "get", map[string]any{"key": "greeting"})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, map[string]any{"results": []any{"hello"}, "truncated": false}, body["structuredContent"])

	res := mcpCall(t, srv, "get", map[string]any{"key": "greeting"})
	assert.Equal(t, false, res["isError"])
	assert.Equal(t, `"hello"`, mcpText(res))
	res = mcpCall(t, srv, "put", map[string]any{"key": "k", "value": "v"})
	assert.Equal(t, []string{`"OK"`, `"v"`, `1`}, contentTexts(res), "one block per command")

	_, body = postJSON(t, srv.URL+"/mcp/tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"key":"greeting"}}}`)
	assert.Contains(t, fmt.Sprint(body["result"]), "hello")

	code, body = postJSON(t, srv.URL+"/oxp/tools/call", `{"tool_id":"Tools.get","input":{"key":"greeting"}}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, true, body["success"])
	assert.Equal(t, map[string]any{"results": []any{"hello"}, "truncated": false}, body["value"])

	code, body = postJSON(t, srv.URL+"/api/tool/put/invoke", `{"key": "k", "value": "v w"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, `["OK","v w",1]`, body["result"], "toolbox's native API answers the list of results")
	code, body = postJSON(t, srv.URL+"/api/tool/get/invoke", `{"key": "greeting"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, `["hello"]`, body["result"], "a one-command tool answers a one-element list, as toolbox does")

	code, body = postJSON(t, srv.URL+"/toolsets/reads/api/tools/get/call", `{"key": "greeting"}`)
	require.Equal(t, http.StatusOK, code, body)
	code, _ = postJSON(t, srv.URL+"/toolsets/reads/api/tools/put/call", `{"key": "k", "value": "v"}`)
	assert.Equal(t, http.StatusNotFound, code, "put is not in the toolset")

	// Announced as what they do.
	_, body = postJSON(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	hints := map[string]map[string]any{}
	for _, tl := range body["result"].(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		hints[m["name"].(string)], _ = m["annotations"].(map[string]any)
	}
	assert.Equal(t, true, hints["get"]["readOnlyHint"])
	assert.Equal(t, false, hints["put"]["readOnlyHint"])
	assert.Equal(t, true, hints["put"]["destructiveHint"])
	assert.Equal(t, false, hints["get"]["openWorldHint"])

	b, _ := json.Marshal(body)
	assert.NotContains(t, string(b), "REDIS_PW", "no source detail in the list")
}

// loadTools loads yaml (written to a temp dir) with env, without building
// it.
func loadTools(t *testing.T, yaml string, env map[string]string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(yaml), 0o600))
	cfg, err := config.Load(path, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	require.NoError(t, err)
	return cfg
}

// A clusterEnabled source sends each command to the node that holds its
// key.
func TestRedis_Cluster(t *testing.T) {
	c := redistest.NewCluster(t, redistest.ClusterConfig{Masters: 3})
	set := build(t, fmt.Sprintf(`
sources:
  c:
    kind: redis
    address: [%s]
    clusterEnabled: true
tools:
  put:
    kind: redis
    source: c
    description: Sets keys and reads them back.
    readOnly: false
    commands: [[SET, $a, "1"], [SET, $b, "2"], [GET, $a], [GET, $b]]
    parameters:
      - {name: a, type: string, description: a key}
      - {name: b, type: string, description: another key}
`, strings.Join(c.Addrs(), ", ")), nil, nil)
	x := executor(set, Options{})
	// Keys in different slots, on different nodes.
	res, err := call(t, x, "put", map[string]any{"a": "apple", "b": "banana"})
	require.NoError(t, err)
	assert.Equal(t, []any{"OK", "OK", "1", "2"}, results(t, res))
}
