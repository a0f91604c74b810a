package mcp

// The MCP protocol versions the handler speaks, newest first.
const (
	// NewestProtocolVersion is the newest MCP protocol version the handler
	// serves: the stateless revision, which has no initialize (a client
	// states its version on every request, in _meta and in
	// MCP-Protocol-Version).
	NewestProtocolVersion = "2026-07-28"
	// NewestInitializeVersion is the newest version negotiated through
	// initialize, and the one an initialize request gets when it asks for
	// one the handler does not support.
	NewestInitializeVersion = "2025-11-25"

	// LatestProtocolVersion is NewestInitializeVersion.
	//
	// Deprecated: its name reads as the newest version the handler serves,
	// which is NewestProtocolVersion; use NewestInitializeVersion for what it
	// holds.
	LatestProtocolVersion = NewestInitializeVersion

	version20260728 = NewestProtocolVersion
	version20250618 = "2025-06-18"
	version20250326 = "2025-03-26"
)

// protocolVersionHeader is the header a client repeats the negotiated
// version in on every request after initialize.
// It is written as the specification writes it, and looked up by its
// canonical form, which net/http then need not compute on every request.
const (
	protocolVersionHeader = "MCP-Protocol-Version"
	protocolVersionKey    = "Mcp-Protocol-Version" // http.CanonicalHeaderKey(protocolVersionHeader)
)

// SupportedProtocolVersions returns the MCP protocol versions the handler
// speaks, newest first: 2026-07-28, then the three that initialize
// negotiates. The slice is the caller's own.
func SupportedProtocolVersions() []string {
	return []string{NewestProtocolVersion, NewestInitializeVersion, version20250618, version20250326}
}

func supported(v string) bool {
	return v == version20260728 || legacy(v)
}

// legacy reports whether v is a version negotiated through initialize.
func legacy(v string) bool {
	switch v {
	case NewestInitializeVersion, version20250618, version20250326:
		return true
	}
	return false
}

// negotiate answers a client's requested version: the same when initialize
// can negotiate it, else the newest that initialize can, as MCP's lifecycle
// asks.
func negotiate(requested string) string {
	if legacy(requested) {
		return requested
	}
	return NewestInitializeVersion
}

// batchesAllowed reports whether JSON-RPC batches may be sent under
// version: they were part of 2025-03-26 and removed in 2025-06-18.
func batchesAllowed(version string) bool {
	return version == version20250326
}
