// Package browser holds the explorer page's browser tests: they drive the
// page in a real headless Chromium with chromedp (see explorer_test.go and
// docs/explorer.md). The package itself has no code.
//
// The tests need the chromium binary (Debian's package "chromium"; .ci/run
// installs it). Without it they skip, unless CI is set: on CI a missing
// browser is a failure. TOOLEXEC_SCREENSHOT=1 also writes
// docs/explorer.png.
//
// axe-core (testdata/axe, vendored from the npm package, MPL-2.0) checks
// the page's accessibility in every state the tests reach; it is injected
// through DevTools, never served by the page.
package browser
