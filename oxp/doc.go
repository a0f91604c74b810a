// Package oxp serves a toolexec Executor's tools over the Open eXecution
// Protocol (OXP) 1.0: GET /health, GET /tools and POST /tools/call, with the
// OXP-Version header on every response.
//
// Mount the handler NewHandler returns anywhere: chi's r.Mount("/oxp", h),
// or mux.Handle("/oxp/", http.StripPrefix("/oxp", h)). Every call runs
// through the Executor's one pipeline (toolexec.Executor.Call), so the
// execution gate, the auth hook, validation, interceptors and panic
// recovery behave exactly as on the other surfaces; this package only
// translates OXP's wire format to that call and its outcome back.
//
// Tool ids are "Toolkit.Tool@x.y.z". A toolexec tool name maps to them by
// its namespace: "Calculator.Add" and "calculator/add" keep their own
// toolkit, a name without a separator gets the handler's toolkit (see
// WithToolkit), and a name that cannot be expressed in OXP's alphabet is
// not served here. docs/oxp.md describes the mapping, every status code and
// every body.
//
// A tool's requirements (toolexec.Requirements: secrets, authorization
// providers with scopes, a user id) appear on its definition; a call must
// supply them in its context, and the handler reads them with FromContext.
// They are checked once the auth hook has let the call through, so a caller
// it refuses learns nothing of them.
package oxp
