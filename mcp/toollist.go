package mcp

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/sametool"
	"github.com/toolexec/toolexec/internal/toolenc"
)

// Tool lists are assembled from encodings made once.
//
// Each tool's encoding in MCP's Tool shape is kept (newToolCache) and
// reused while the provider describes the tool exactly as before (see
// internal/toolenc), so the cache needs no change notification, and
// per-caller lists are assembled from the same per-tool encodings.
//
// When the provider reports its changes (toolexec.ToolsChangedNotifier, as
// toolexec.Registry does), the lists themselves are kept too, per
// generation of the tool set (toolenc.Lists): the latest tools are listed
// once after each reported change, and each view of them (listView) is
// encoded once, as a toolenc.Joined that every page is a slice of, so a
// tools/list request neither lists the provider's tools nor encodes
// anything, and its answer is written around bytes shared by every
// request. With per-caller lists (toolexec.WithToolFilter) the filter gets
// its own copy of the tools on every request, and the list it keeps is
// encoded once per exact list of unchanged tools (toolenc.Subsets); a list
// in which the filter changed a tool is encoded from the per-tool
// encodings. A provider that does not report its changes is asked for its
// tools on every request, and only the per-tool encodings are reused.

// listView is one way the tools are listed: which encoding of each tool,
// in which order.
type listView uint8

const (
	viewListed listView = iota // provider order, h.tools: tools/list at 2025-03-26 and 2025-06-18, HandsAI's list
	viewExec                   // provider order, h.execTools: tools/list at 2025-11-25 (execution.taskSupport)
	viewSorted                 // name (then version) order, h.tools: tools/list at 2026-07-28, listen's digests
	numViews
)

// newToolCache returns the cache of each tool's encoding in MCP's Tool
// shape, which tools/list (both revisions) and the HandsAI list assemble
// their answers from. An encoding is reused while the provider describes
// the tool exactly as before (see internal/toolenc). Encodings are valid
// UTF-8 (see httpjson.ValidUTF8), so that lists can be written as they are
// kept.
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
			data, err := json.Marshal(&c)
			return httpjson.ValidUTF8(data), err
		},
		Clone: sametool.Clone,
	}
}

// cacheOf is the per-tool cache view v encodes tools with.
func (h *handler) cacheOf(v listView) *toolenc.Cache[toolexec.Tool] {
	if v == viewExec {
		return h.execTools
	}
	return h.tools
}

// listGen is what is kept of one generation of a provider that reports
// its changes: its tools (snap.Items, provider order) and, made on first
// use, each view's encoding and the per-caller lists.
type listGen struct {
	snap *toolenc.Snapshot[toolexec.Tool, string]

	sortOnce sync.Once
	sorted   []int32 // positions in name order; nil when Items are in it

	full [numViews]struct {
		once sync.Once
		j    *toolenc.Joined
	}
	kept toolenc.Subsets[*toolenc.Joined]
}

// listed returns the tools the caller of r is shown in view v, encoded.
func (h *handler) listed(r *http.Request, v listView) *toolenc.Joined {
	s := h.lists.Snapshot(h.latestTools)
	if s == nil {
		return h.join(r, v, h.x.SurfaceKit().VisibleTools(r, h.latestTools()), nil)
	}
	g := h.generation(s)
	if !h.x.SurfaceKit().FiltersTools() {
		return g.fullList(h, r, v)
	}
	// The filter gets its own copy of the tools: it may keep, drop,
	// reorder or change what it returns.
	items := g.snap.Items
	kept := h.x.SurfaceKit().VisibleTools(r, slices.Clone(items))
	same := h.cacheOf(v).Same
	pos := make([]int32, len(kept))
	for i := range kept {
		p, ok := g.snap.Position(kept[i].Name)
		if !ok || !same(&items[p], &kept[i]) {
			return h.join(r, v, kept, nil) // a tool the snapshot does not hold as it is: encoded for this request
		}
		pos[i] = p
	}
	if v == viewSorted {
		slices.SortStableFunc(pos, func(a, b int32) int { return compareTools(items[a], items[b]) })
	}
	return g.kept.Get(uint8(v), pos, func() *toolenc.Joined { return h.join(r, v, items, pos) })
}

// generation returns the kept lists of snapshot s, made on first use.
func (h *handler) generation(s *toolenc.Snapshot[toolexec.Tool, string]) *listGen {
	cur := h.gen.Load()
	if cur != nil && cur.snap == s {
		return cur
	}
	g := &listGen{snap: s}
	if h.gen.CompareAndSwap(cur, g) {
		return g
	}
	if cur = h.gen.Load(); cur != nil && cur.snap == s {
		return cur
	}
	return g // another generation is current: this request's lists are its own
}

// fullList is view v of every tool of the generation, encoded once.
func (g *listGen) fullList(h *handler, r *http.Request, v listView) *toolenc.Joined {
	f := &g.full[v]
	order := func() []int32 {
		if v == viewSorted {
			return g.sortedOrder()
		}
		return nil
	}
	f.once.Do(func() { f.j = h.join(r, v, g.snap.Items, order()) })
	if f.j == nil { // the encoding panicked once: every request tries again
		return h.join(r, v, g.snap.Items, order())
	}
	return f.j
}

// sortedOrder is the generation's tools' positions in name order, nil
// when they are in it already.
func (g *listGen) sortedOrder() []int32 {
	g.sortOnce.Do(func() { g.sorted = sortedPositions(g.snap.Items) })
	return g.sorted
}

// sortedPositions is the positions of tools in name (then version) order,
// equal tools in their order; nil when tools are sorted already.
func sortedPositions(tools []toolexec.Tool) []int32 {
	if slices.IsSortedFunc(tools, compareTools) {
		return nil
	}
	pos := make([]int32, len(tools))
	for i := range pos {
		pos[i] = int32(i)
	}
	slices.SortStableFunc(pos, func(a, b int32) int { return compareTools(tools[a], tools[b]) })
	return pos
}

// join encodes the tools at positions order (nil: all, in their order;
// for viewSorted, in name order) as view v lists them. A tool that cannot
// be encoded (a schema that is not JSON) is left out and logged, so that
// one broken tool does not hide all the others.
func (h *handler) join(r *http.Request, v listView, tools []toolexec.Tool, order []int32) *toolenc.Joined {
	if v == viewSorted && order == nil {
		order = sortedPositions(tools)
	}
	return h.cacheOf(v).Join(tools, order, func(t *toolexec.Tool, err error) {
		h.x.SurfaceKit().Logger().ErrorContext(r.Context(), "mcp: tool left out of the list: it cannot be encoded",
			"tool", t.Name, "error", err)
	})
}

// latestTools is the tool list every list answer starts from, also bounding
// the encoding caches by its size.
func (h *handler) latestTools() []toolexec.Tool {
	tools := h.x.SurfaceKit().LatestTools()
	h.tools.Trim(len(tools))
	h.execTools.Trim(len(tools))
	return tools
}

// listPage reads tools/list's cursor and returns the page it asks for of
// view v, as the inside of the tools array (bytes shared between requests:
// see outcome.shared), and the page's end among total tools.
func (h *handler) listPage(r *http.Request, params json.RawMessage, v listView) (page []byte, end, total int, _ *wireError) {
	cursor, werr := paramString(params, "cursor")
	if werr != nil {
		return nil, 0, 0, werr
	}
	offset, ok := decodeCursor(cursor)
	if !ok {
		return nil, 0, 0, newError(CodeInvalidParams, "Invalid params: invalid cursor")
	}
	j := h.listed(r, v)
	total = j.Len()
	start := min(offset, total)
	end = total
	if h.pageSize > 0 && end-start > h.pageSize {
		end = start + h.pageSize
	}
	return j.Slice(start, end), end, total, nil
}

// appendNextCursor appends the nextCursor member when a page follows.
func appendNextCursor(dst []byte, end, total int) []byte {
	if end >= total {
		return dst
	}
	dst = append(dst, `,"nextCursor":`...)
	return strconv.AppendQuote(dst, encodeCursor(end)) // base64url: nothing to escape
}
