package mcp_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MCP 2025-03-26 introduced Mcp-Session-Id, and clients of that revision
// may refuse to go on without one (mcp-toolbox's SDKs do): every
// initialize that negotiates it gets one, though the handler keeps no
// session.
func TestSessionID_IssuedAt20250326(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, initializeBody("2025-03-26"))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var res struct{ ProtocolVersion string }
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
	assert.Equal(t, "2025-03-26", res.ProtocolVersion)
	id := rec.Header().Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	for _, c := range []byte(id) {
		assert.True(t, c >= 0x21 && c <= 0x7e, "a session id holds visible ASCII only: %q", id)
	}
	other := post(t, h, initializeBody("2025-03-26")).Header().Get("Mcp-Session-Id")
	assert.NotEqual(t, id, other, "every session id is its own")

	// The client repeats it on every later request, which is served.
	rec = post(t, h, callBody("weather_get", `{"location":"Paris"}`), "Mcp-Session-Id", id)
	assert.False(t, callResult(t, rec).IsError)
	rec = post(t, h, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, "Mcp-Session-Id", id)
	assert.Equal(t, http.StatusOK, rec.Code)

	// The server does not let clients end sessions (405, as the
	// specification allows), and never ends one itself: a request with the
	// id after the DELETE is served, never 404.
	rec = send(t, h, http.MethodDelete, "/", "", "Mcp-Session-Id", id)
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, http.MethodPost, rec.Header().Get("Allow"))
	rec = post(t, h, callBody("weather_get", `{"location":"Paris"}`), "Mcp-Session-Id", id)
	assert.False(t, callResult(t, rec).IsError)

	// Nor does it require one: a request without it is served too.
	rec = post(t, h, callBody("weather_get", `{"location":"Paris"}`))
	assert.False(t, callResult(t, rec).IsError)
}

// Later revisions keep the previous rule: a session id only for a client
// that declared capabilities the server may use mid-call.
func TestSessionID_NotIssuedAtLaterVersionsWithoutCapabilities(t *testing.T) {
	h := newHandler(t, nil)
	for _, v := range []string{"2025-06-18", "2025-11-25", "2024-11-05"} {
		rec := post(t, h, initializeBody(v))
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Empty(t, rec.Header().Get("Mcp-Session-Id"), v)
	}
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	assert.NotEmpty(t, rec.Header().Get("Mcp-Session-Id"), "elicitation still earns one")
}
