// Package mcp serves the tools of a toolexec.Executor over the Model Context
// Protocol: JSON-RPC 2.0 on the Streamable HTTP transport in its stateless
// form, plus the two HTTP routes of HandsAI's MCP controller so existing
// HandsAI clients work unchanged.
//
// NewHandler returns one http.Handler. Mounted at /mcp it answers:
//
//	POST /mcp             MCP JSON-RPC: tools/list, tools/call, and server/discover
//	                      and subscriptions/listen (2026-07-28) or initialize,
//	                      ping and logging/setLevel (2025 versions)
//	GET  /mcp/tools/list  HandsAI: the tool list in a JSON-RPC envelope
//	POST /mcp/tools/call  HandsAI: one tool call in a JSON-RPC envelope
//
// One handler speaks MCP 2026-07-28 and 2025-11-25, 2025-06-18 and
// 2025-03-26, chosen per request by the MCP-Protocol-Version header. At
// 2026-07-28 every request carries its version and the client's
// capabilities in _meta, its method and tool name in the Mcp-Method and
// Mcp-Name headers (and the parameters a tool marks with x-mcp-header in
// Mcp-Param-* headers), all checked against the body before anything runs;
// results carry resultType and the server's identity. It is protected
// against DNS rebinding by default (see WithAllowedHosts).
//
// The handler keeps no state between requests: GET and DELETE on the MCP
// endpoint answer 405, and each request is answered with one
// application/json body, even to clients that also accept
// text/event-stream, unless the call streams: a tool that reports progress
// (toolexec.ReportProgress), logs (toolexec.Log) or asks for input
// (toolexec.Elicit, Sample, ListRoots) answers a client that accepts
// text/event-stream with an SSE stream carrying those messages before the
// response. On protocol 2026-07-28 input requests become an input-required
// result whose signed requestState lets any replica resume the call
// (WithInputStateKey), and subscriptions/listen streams
// notifications/tools/list_changed. A host scales the handler by running
// more replicas behind any load balancer; on 2025 versions the answer to an
// input request must reach the replica running the call.
//
// Every tools/call, on either route, runs through (*toolexec.Executor).Call,
// so the execution gate, the auth hook, validation, interceptors and panic
// recovery behave exactly as they do on the other surfaces. docs/mcp.md shows
// what every outcome looks like on the wire.
package mcp
