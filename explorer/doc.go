// Package explorer serves a tool explorer page beside toolexec's REST
// surface: a browser page, mounted at the REST handler's own root, that
// lists the tools, builds a form from each tool's input schema, validates
// arguments and, when the host allows it, runs the tool and shows its
// result.
//
// Wrap puts the page in front of the REST handler:
//
//	rest := toolexec.NewHandler(x)
//	mux.Handle("/api/", http.StripPrefix("/api", explorer.Wrap(x, rest, explorer.WithExecute(true))))
//
// GET /api/ then answers the page; every other path goes to the REST
// handler unchanged. The page speaks only to the REST endpoints relative to
// where it is mounted (tools, tools/{name}, tools/{name}/validate,
// tools/{name}/call) and to its own two endpoints below _explorer/, so it
// works under any prefix. With WithMCP it runs calls through the MCP
// endpoint instead, as an MCP client does: progress, log messages,
// cancellation, and forms for the input a tool asks for.
//
// The page never freezes on a schema: optional objects are built when the
// user adds them, and one render builds a bounded number of fields.
//
// The page is one HTML document with its script and style inline, all
// embedded in the binary. It loads nothing from another host, runs under a
// strict Content-Security-Policy (script and style allowed by hash only, no
// inline handlers, connections to its own origin only) and renders tool
// descriptions and results as text, never as HTML.
//
// Calls from the page are off by default (WithExecute) and are refused
// anyway while the Executor's own gate is closed; the page then shows why
// its Call button is disabled. The execute switch only shapes the page: it
// is not an access control, since the REST endpoints answer whoever calls
// them. Access is the Executor's to decide, through its execution gate and
// its auth hook. When the Executor has an auth hook the page shows a token
// field and sends its value as "Authorization: Bearer".
package explorer
