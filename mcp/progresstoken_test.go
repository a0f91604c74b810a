package mcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/mcp"
)

// tokenOfSize is a JSON string progress token n bytes long, quotes
// included.
func tokenOfSize(n int) string { return `"` + strings.Repeat("t", n-2) + `"` }

// TestAProgressTokenOver256BytesIsInvalidParams: the token is repeated in
// every progress notification, so a large one would multiply what the
// client sent; it is refused on every version, whether or not the call
// could stream, and inside a batch.
func TestAProgressTokenOver256BytesIsInvalidParams(t *testing.T) {
	h := streamHandler(t)
	for _, v := range mcp.SupportedProtocolVersions() {
		for _, accept := range []string{"application/json, text/event-stream", "application/json"} {
			t.Run(v+"/"+accept, func(t *testing.T) {
				body, hdr := versionCall(v, "progress", `"progressToken":`+tokenOfSize(257))
				rec := post(t, h, body, append(hdr, "Accept", accept)...)
				if v == "2026-07-28" {
					assert.Equal(t, http.StatusBadRequest, rec.Code)
				} else {
					assert.Equal(t, http.StatusOK, rec.Code)
				}
				reply := decodeReply(t, rec)
				assertCode(t, mcp.CodeInvalidParams, reply)
				assert.Contains(t, reply.Error.Message, "256 bytes")
				assert.LessOrEqual(t, rec.Body.Len(), 512, "the token is not echoed")

				body, hdr = versionCall(v, "progress", `"progressToken":`+tokenOfSize(256))
				rec = post(t, h, body, append(hdr, "Accept", accept)...)
				require.Equal(t, http.StatusOK, rec.Code)
				assert.NotContains(t, rec.Body.String(), `"error"`, "256 bytes is within the bound")
			})
		}
	}
	t.Run("batch", func(t *testing.T) {
		body, _ := versionCall("2025-03-26", "progress", `"progressToken":`+tokenOfSize(257))
		rec := post(t, h, "["+body+"]", "MCP-Protocol-Version", "2025-03-26")
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Contains(t, rec.Body.String(), `"code":-32602`)
		assert.NotContains(t, rec.Body.String(), `"result"`)
	})
	t.Run("number", func(t *testing.T) {
		body, hdr := versionCall("2025-11-25", "progress", `"progressToken":1`+strings.Repeat("0", 300))
		assertCode(t, mcp.CodeInvalidParams, decodeReply(t, post(t, h, body, hdr...)))
	})
}
