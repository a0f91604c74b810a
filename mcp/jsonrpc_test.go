package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

func TestABodyThatIsNotJSONIsAParseError(t *testing.T) {
	h := newHandler(t, nil)
	for name, body := range map[string]string{
		"garbage":    `{"jsonrpc":"2.0",`,
		"empty":      ``,
		"blank":      "  \n ",
		"two values": `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := post(t, h, body)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			r := decodeReply(t, rec)
			assert.JSONEq(t, "null", string(r.ID))
			require.NotNil(t, r.Error)
			assert.Equal(t, mcp.CodeParseError, r.Error.Code)
		})
	}
}

func TestMalformedEnvelopesAreInvalidRequests(t *testing.T) {
	h := newHandler(t, nil)
	cases := []struct {
		name, body, wantID string
	}{
		{"not an object", `"ping"`, "null"},
		{"a number", `42`, "null"},
		{"null", `null`, "null"},
		{"jsonrpc missing", `{"id":1,"method":"ping"}`, "1"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, "1"},
		{"jsonrpc a number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, "1"},
		{"method missing", `{"jsonrpc":"2.0","id":"a"}`, `"a"`},
		{"method a number", `{"jsonrpc":"2.0","id":1,"method":7}`, "1"},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, "1"},
		{"params a string", `{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, "1"},
		{"params a number", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":3}`, "1"},
		{"id an object", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, "null"},
		{"id an array", `{"jsonrpc":"2.0","id":[1],"method":"ping"}`, "null"},
		{"id true", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, "null"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "null"},
		{"method and result", `{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, "1"},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, "1"},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, "null"},
		{"keys are case-sensitive", `{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, "null"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, h, c.body)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			r := decodeReply(t, rec)
			assert.JSONEq(t, c.wantID, string(r.ID))
			require.NotNil(t, r.Error, rec.Body.String())
			assert.Equal(t, mcp.CodeInvalidRequest, r.Error.Code)
			assert.Contains(t, r.Error.Message, "Invalid Request")
		})
	}
}

func TestIdsAreEchoedExactlyAsSent(t *testing.T) {
	h := newHandler(t, nil)
	for _, id := range []string{`1`, `0`, `-7`, `"abc"`, `""`, `"ünïcødé \"quoted\""`, `12345678901234567890123`, `1.5`, `1e3`} {
		t.Run(id, func(t *testing.T) {
			rec := post(t, h, `{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`)
			require.Equal(t, http.StatusOK, rec.Code)
			r := decodeReply(t, rec)
			assert.Equal(t, id, string(r.ID), "the id's bytes are kept")
		})
	}
}

func TestAnUnknownMethodIsMethodNotFound(t *testing.T) {
	h := newHandler(t, nil)
	for _, method := range []string{"resources/list", "prompts/list", "server/discover", "", "notifications/initialized"} {
		rec := post(t, h, `{"jsonrpc":"2.0","id":"x","method":"`+method+`"}`)
		require.Equal(t, http.StatusOK, rec.Code)
		r := decodeReply(t, rec)
		assert.JSONEq(t, `"x"`, string(r.ID))
		require.NotNil(t, r.Error)
		assert.Equal(t, mcp.CodeMethodNotFound, r.Error.Code, method)
		assert.Equal(t, "Method not found: "+method, r.Error.Message)
	}
}

func TestBatchesAreAnsweredUnderProtocol20250326(t *testing.T) {
	h := newHandler(t, nil)
	batch := `[
		{"jsonrpc":"2.0","id":1,"method":"ping"},
		{"jsonrpc":"2.0","method":"notifications/initialized"},
		{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Rome"}}},
		{"jsonrpc":"2.0","id":3,"method":"nope"},
		{"jsonrpc":"1.0","id":4,"method":"ping"},
		5,
		{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}
	]`
	// No header means 2025-03-26, as the transport spec says to assume.
	for _, hdr := range [][]string{{"MCP-Protocol-Version", "2025-03-26"}, {}} {
		rec := post(t, h, batch, hdr...)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var replies []rpcReply
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &replies), rec.Body.String())
		require.Len(t, replies, 6, "one answer per request, none for the notification")

		assert.Equal(t, "1", string(replies[0].ID))
		assert.JSONEq(t, `{}`, string(replies[0].Result))

		assert.Equal(t, `"call"`, string(replies[1].ID))
		assert.JSONEq(t, `{"content":[{"type":"text","text":"{\"temperature\": 18, \"condition\": \"Partly cloudy\", \"humidity\": 65}"}],"isError":false}`, string(replies[1].Result))

		assert.Equal(t, mcp.CodeMethodNotFound, replies[2].Error.Code)
		assert.Equal(t, "3", string(replies[2].ID))
		assert.Equal(t, mcp.CodeInvalidRequest, replies[3].Error.Code)
		assert.Equal(t, "4", string(replies[3].ID))
		assert.Equal(t, mcp.CodeInvalidRequest, replies[4].Error.Code)
		assert.Equal(t, "null", string(replies[4].ID))
		assert.Equal(t, mcp.CodeInvalidRequest, replies[5].Error.Code, "initialize must not be batched")
		assert.Equal(t, "6", string(replies[5].ID))
	}
}

func TestABatchOfNotificationsOnlyAnswers202(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":9,"result":{}}]`)
	assert.Equal(t, http.StatusAccepted, rec.Code)
	assert.Empty(t, rec.Body.String())
}

func TestAnEmptyBatchIsAnInvalidRequest(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `[]`)
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	r := decodeReply(t, rec)
	assert.Equal(t, "null", string(r.ID))
	assert.Equal(t, mcp.CodeInvalidRequest, r.Error.Code)
}

func TestBatchesAreRefusedFromProtocol20250618On(t *testing.T) {
	h := newHandler(t, nil)
	for _, v := range []string{"2025-06-18", "2025-11-25"} {
		rec := post(t, h, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "MCP-Protocol-Version", v)
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		r := decodeReply(t, rec)
		assert.Equal(t, "null", string(r.ID))
		require.NotNil(t, r.Error)
		assert.Equal(t, mcp.CodeInvalidRequest, r.Error.Code)
		assert.Contains(t, r.Error.Message, "batches are not supported in protocol version "+v)
	}
}

func TestABatchWhoseCallsWereAllRefusedAnswers401AsAWhole(t *testing.T) {
	h := newHandler(t, xoptsDenyAll())
	for name, batch := range map[string]string{
		"one refused call beside discovery": `[{"jsonrpc":"2.0","id":1,"method":"ping"},` + batchCall(2, "weather_get", `{"location":"x"}`) + `]`,
		"every call refused":                `[` + batchCall(1, "weather_get", `{"location":"x"}`) + `,` + batchCall(2, "whoami", `{}`) + `]`,
		// The unknown tool failed before the hook: no call got past it,
		// so the 401 hides nothing that ran.
		"a call that failed before the hook": `[` + batchCall(1, "no_such_tool", `{}`) + `,` + batchCall(2, "whoami", `{}`) + `]`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := post(t, h, batch)
			assert.Equal(t, http.StatusUnauthorized, rec.Code)
			assert.JSONEq(t, `{"error":"Unauthorized"}`, rec.Body.String())
			assert.Equal(t, "Bearer", rec.Header().Get("WWW-Authenticate"))
		})
	}
}

// firstCallOnly is an auth hook that lets one call through and refuses
// every later one, as a hook spending a one-time token or a quota does.
func firstCallOnly() func(http.Handler) http.Handler {
	var used atomic.Bool
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if used.Swap(true) {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestABatchAnswersEachRefusedCallInItsSlotOnceACallHasRun(t *testing.T) {
	var runs atomic.Int64
	count := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			runs.Add(1)
			return next(ctx, c)
		}
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithAuthHook(firstCallOnly()), toolexec.WithInterceptors(count)})
	rec := post(t, h, `[`+batchCall(1, "weather_get", `{"location":"Rome"}`)+`,
		{"jsonrpc":"2.0","id":2,"method":"ping"},
		`+batchCall(3, "whoami", `{}`)+`]`)
	require.Equal(t, http.StatusOK, rec.Code, "the result of the call that ran must reach the client")
	assert.JSONEq(t, `[
		{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"temperature\": 18, \"condition\": \"Partly cloudy\", \"humidity\": 65}"}],"isError":false}},
		{"jsonrpc":"2.0","id":2,"result":{}},
		{"jsonrpc":"2.0","id":3,"error":{"code":-32011,"message":"Unauthorized"}}]`, rec.Body.String())
	assert.Equal(t, "Bearer", rec.Header().Get("WWW-Authenticate"), "new credentials would change the answer")
	assert.EqualValues(t, 1, runs.Load(), "the refused call never ran")
	assert.Equal(t, -32011, mcp.CodeUnauthorized)
}

func TestABatchKeepsTheAnswerOfACallThatFailedAfterTheHook(t *testing.T) {
	h := newHandler(t, []toolexec.Option{toolexec.WithAuthHook(firstCallOnly())})
	rec := post(t, h, `[`+batchCall("a", "database_query", `{}`)+`,`+batchCall("b", "weather_get", `{"location":"x"}`)+`]`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.JSONEq(t, `[
		{"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"Connection timeout"}],"isError":true}},
		{"jsonrpc":"2.0","id":"b","error":{"code":-32011,"message":"Unauthorized"}}]`, rec.Body.String())
}

// batchCall is one tools/call element of a batch.
func batchCall(id any, name, args string) string {
	rawID, _ := json.Marshal(id)
	return `{"jsonrpc":"2.0","id":` + string(rawID) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}
