package mcp

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHeaderReadsAsGet: header answers what Header.Get answers for every
// canonical key the handler reads, present, repeated or absent.
func TestHeaderReadsAsGet(t *testing.T) {
	h := http.Header{}
	h.Add("Origin", "http://localhost")
	h.Add("mcp-protocol-version", "2025-11-25")
	h.Add("Mcp-Session-Id", "a")
	h.Add("Mcp-Session-Id", "b")
	h.Add("content-type", "application/json")
	for _, key := range []string{"Origin", protocolVersionKey, sessionHeaderKey, "Content-Type", "Accept", "Authorization"} {
		assert.Equal(t, http.CanonicalHeaderKey(key), key, "keys are canonical")
		assert.Equal(t, h.Get(key), header(h, key), key)
	}
	assert.Equal(t, h.Values("Accept"), h["Accept"])
}
