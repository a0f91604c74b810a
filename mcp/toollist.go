package mcp

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/sametool"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// newToolCache returns the cache of each tool's encoding in MCP's Tool
// shape, which tools/list (both revisions) and the HandsAI list assemble
// their answers from. An encoding is reused while the provider describes
// the tool exactly as before (see internal/toolenc), so the cache needs no
// change notification, and per-caller lists are assembled from the same
// per-tool encodings.
func newToolCache(kit toolexec.SurfaceKit) *toolenc.Cache[toolexec.Tool] {
	return &toolenc.Cache[toolexec.Tool]{
		Key:  func(t *toolexec.Tool) string { return t.Name },
		Same: sametool.Same,
		// A tool in MCP's Tool shape always has an inputSchema
		// (SurfaceKit.InputSchema: {"type":"object"} for a tool that has
		// none).
		Encode: func(t *toolexec.Tool) ([]byte, error) {
			c := *t
			c.InputSchema = kit.InputSchema(t)
			return json.Marshal(&c)
		},
		Clone: sametool.Clone,
	}
}

// appendTools appends the tools as a JSON array in MCP's Tool shape, with
// room bytes more left for what the caller appends after it. A tool
// that cannot be encoded (a schema that is not JSON) is left out and
// logged, so that one broken tool does not hide all the others.
func (h *handler) appendTools(dst []byte, r *http.Request, tools []toolexec.Tool, room int) []byte {
	return h.appendToolsWith(h.tools, dst, r, tools, room)
}

// appendToolsWith is appendTools with the encodings of cache.
func (h *handler) appendToolsWith(cache *toolenc.Cache[toolexec.Tool], dst []byte, r *http.Request, tools []toolexec.Tool, room int) []byte {
	dst = append(dst, '[')
	dst = cache.AppendList(dst, tools, room+1, func(t *toolexec.Tool, err error) {
		h.x.SurfaceKit().Logger().ErrorContext(r.Context(), "mcp: tool left out of the list: it cannot be encoded",
			"tool", t.Name, "error", err)
	})
	return append(dst, ']')
}

// latestTools is the tool list every list answer starts from, also bounding
// the encoding cache by its size.
func (h *handler) latestTools() []toolexec.Tool {
	tools := h.x.LatestTools()
	h.tools.Trim(len(tools))
	h.execTools.Trim(len(tools))
	return tools
}

// appendNextCursor appends the nextCursor member when a page follows.
func appendNextCursor(dst []byte, end, total int) []byte {
	if end >= total {
		return dst
	}
	dst = append(dst, `,"nextCursor":`...)
	return strconv.AppendQuote(dst, encodeCursor(end)) // base64url: nothing to escape
}
