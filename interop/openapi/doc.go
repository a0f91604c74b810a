// Package openapi holds the tests that check the REST surface's OpenAPI
// documents with OpenAPI tools nobody here wrote, run from npm: Redocly's
// linter and @apidevtools/swagger-parser on the documents of
// examples/server, of a tool with recursive $defs, of 1,000 tools and of
// `toolexec serve`'s example; Stoplight Prism as a validating proxy in front
// of live servers, so every response of a scripted run is checked against
// the document; and a client generated from examples/server's document
// (openapi-typescript, openapi-fetch, checked by tsc) that calls every
// tool. The package itself has no code.
//
// The tools are pinned by package.json and package-lock.json here and
// installed once per machine under the repository's .cache/openapi (or
// $CONFORMANCE_CACHE/openapi), with Node 22 under .cache/node22, as make
// conformance installs it. Without npm the tests skip, saying so, unless
// CI is set: on CI they fail instead.
package openapi
