package mcp

// The MCP protocol versions the handler speaks, newest first.
const (
	// LatestProtocolVersion is the version an initialize request gets when
	// it asks for one the handler does not support.
	LatestProtocolVersion = "2025-11-25"
	version20250618       = "2025-06-18"
	version20250326       = "2025-03-26"
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
// negotiates, newest first. The slice is the caller's own.
func SupportedProtocolVersions() []string {
	return []string{LatestProtocolVersion, version20250618, version20250326}
}

func supported(v string) bool {
	switch v {
	case LatestProtocolVersion, version20250618, version20250326:
		return true
	}
	return false
}

// negotiate answers a client's requested version: the same when supported,
// else the newest supported, as MCP's lifecycle asks.
func negotiate(requested string) string {
	if supported(requested) {
		return requested
	}
	return LatestProtocolVersion
}

// batchesAllowed reports whether JSON-RPC batches may be sent under
// version: they were part of 2025-03-26 and removed in 2025-06-18.
func batchesAllowed(version string) bool {
	return version == version20250326
}
