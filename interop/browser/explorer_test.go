package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/testserver"
)

// findChromium returns the browser's path, or "" when there is none.
func findChromium() string {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startBrowser starts one headless Chromium for the whole test; each
// subtest opens its own tab in it.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	path := findChromium()
	if path == "" {
		testserver.Require(t, testserver.NotInstalled("chromium not found", "chromium"))
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancelBrowser()
		cancelAlloc()
	})
	// The first Run starts the browser; it must not carry a timeout.
	require.NoError(t, chromedp.Do(browserCtx), "starting chromium")
	return browserCtx
}

// tab is one browser tab on the test server, recording every request it
// makes, every script exception and every dialog.
type tab struct {
	ctx    context.Context
	origin string

	mu         sync.Mutex
	requests   []string
	exceptions []string
	dialogs    []string
}

func (tb *tab) record(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		tb.requests = append(tb.requests, e.Request.URL)
	case *runtime.EventExceptionThrown:
		msg := e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			msg += " " + e.ExceptionDetails.Exception.Description
		}
		tb.exceptions = append(tb.exceptions, msg)
	case *page.EventJavascriptDialogOpening:
		tb.dialogs = append(tb.dialogs, e.Message)
	}
}

// openTab opens path of the server in a new tab and waits for the tool list.
// When the subtest ends it checks that every request went to the server's
// own origin, that no script threw and that no dialog opened.
func openTab(t *testing.T, browser context.Context, srvURL, path string) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx, origin: srvURL}
	require.NoError(t, chromedp.Listen(ctx, tb.record))
	tctx, cancelT := context.WithTimeout(ctx, 20*time.Second)
	t.Cleanup(cancelT)
	tb.ctx = tctx
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		require.NotEmpty(t, tb.requests, "the tab's requests were recorded")
		for _, u := range tb.requests {
			if strings.HasPrefix(u, "data:") {
				continue // an image or audio result drawn from the page's own data
			}
			assert.True(t, strings.HasPrefix(u, tb.origin+"/"), "a request left for another origin: %s", u)
		}
		assert.Empty(t, tb.exceptions, "the page threw")
		assert.Empty(t, tb.dialogs, "a dialog opened")
	})
	tb.do(t, chromedp.Navigate(srvURL+path))
	tb.wait(t, `document.querySelectorAll('#tools button.tool').length > 0`)
	return tb
}

func (tb *tab) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	require.NoError(t, chromedp.Do(tb.ctx, steps...))
}

// wait polls a JavaScript predicate until it holds.
func (tb *tab) wait(t *testing.T, predicate string) {
	t.Helper()
	_, err := chromedp.Run(tb.ctx, chromedp.Poll[chromedp.Void](predicate, chromedp.WithPollingTimeout(10*time.Second)))
	require.NoError(t, err, "waiting for %s", predicate)
}

func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}

// selectTool clicks a tool in the list and waits for its form.
func (tb *tab) selectTool(t *testing.T, name string) {
	t.Helper()
	tb.do(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tools button.tool[data-name=%q]`, name))))
	tb.wait(t, fmt.Sprintf(`document.getElementById('tool-name').textContent === %q && !document.getElementById('detail').hidden`, name))
}

// setField sets a form control's value as a user would, firing input and
// change events.
func (tb *tab) setField(t *testing.T, selector, value string) {
	t.Helper()
	eval[chromedp.Void](t, tb, fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q;
		e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); })()`, selector, value))
}

func (tb *tab) rawArgs(t *testing.T) map[string]any {
	t.Helper()
	return eval[map[string]any](t, tb, `JSON.parse(document.getElementById('raw').value)`)
}

func control(pointer string) string {
	return fmt.Sprintf(`[data-pointer=%q] input, [data-pointer=%q] select, [data-pointer=%q] textarea`, pointer, pointer, pointer)
}

func TestExplorerInChromium(t *testing.T) {
	browser := startBrowser(t)
	srv := httptest.NewServer(fixture())
	t.Cleanup(srv.Close)
	const api = "/prefix/api/"

	t.Run("the list renders every tool", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, api)
		names := eval[[]string](t, tb, `Array.from(document.querySelectorAll('#tools .name')).map(e => e.textContent)`)
		assert.Equal(t, toolNames, names)
		echo := eval[string](t, tb, `document.querySelector('#tools button[data-name="echo"]').textContent`)
		assert.Contains(t, echo, "v1.0.0", "the version")
		assert.Contains(t, echo, "Echo", "the title")
		assert.Contains(t, echo, "Returns the text it is given.", "the description")
		assert.Contains(t, echo, "read-only", "the annotations")
		assert.Equal(t, "MCP Tool Explorer", eval[string](t, tb, `document.title`))
		assert.Equal(t, "https://github.com/toolexec/toolexec", eval[string](t, tb, `document.getElementById('project').href`))
		assert.Equal(t, srv.URL+api+"openapi.json", eval[string](t, tb, `document.getElementById('openapi').href`), "the OpenAPI document, under the mount")

		tb.setField(t, "#filter", "IMAGE")
		tb.wait(t, `document.querySelectorAll('#tools button.tool').length === 1`)
		assert.Equal(t, "image/dot", eval[string](t, tb, `document.querySelector('#tools .name').textContent`))
	})

	t.Run("a form is generated for a nested schema", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, api)
		tb.selectTool(t, "weather")
		for _, p := range []string{"/city", "/units", "/days", "/detailed", "/location", "/tags", "/when"} {
			assert.True(t, eval[bool](t, tb, fmt.Sprintf(`!!document.querySelector('#form [data-pointer=%q]')`, p)), "a field for %s", p)
		}
		assert.False(t, eval[bool](t, tb, `!!document.querySelector('#form [data-pointer="/location/lat"]')`), "an optional object waits to be added")
		assert.Equal(t, "SELECT", eval[string](t, tb, `document.querySelector('[data-pointer="/units"] select').tagName`), "an enum is a choice")
		assert.Equal(t, map[string]any{"type": "number", "min": "1", "max": "7", "value": "3"},
			eval[map[string]any](t, tb, `(() => { const e = document.querySelector('[data-pointer="/days"] input'); return {type: e.type, min: e.min, max: e.max, value: e.value}; })()`),
			"an integer with its bounds and default")
		assert.Contains(t, eval[string](t, tb, `document.querySelector('[data-pointer="/city"] .label').textContent`), "required")
		assert.NotContains(t, eval[string](t, tb, `document.querySelector('[data-pointer="/units"] .label').textContent`), "required")
		assert.Equal(t, []string{"(not set)", "a day", "a range"},
			eval[[]string](t, tb, `Array.from(document.querySelectorAll('[data-pointer="/when"] select.choice-select option')).map(o => o.textContent)`), "oneOf is a choice")
		assert.Equal(t, map[string]any{"units": "metric", "days": float64(3)}, tb.rawArgs(t), "defaults fill the JSON editor")

		// The form writes the JSON editor: typing, a nested field, an array item, a oneOf branch.
		tb.do(t, chromedp.SendKeys(chromedp.CSS(control("/city")), "Oslo"))
		tb.do(t, chromedp.Click(chromedp.CSS(`[data-pointer="/location"] button.add`)))
		tb.wait(t, `!!document.querySelector('#form [data-pointer="/location/lat"] input') && !!document.querySelector('#form [data-pointer="/location/lon"] input')`)
		assert.Equal(t, map[string]any{}, tb.rawArgs(t)["location"], "an added object is sent, empty at first")
		tb.setField(t, control("/location/lat"), "59.9")
		tb.do(t, chromedp.Click(chromedp.CSS(`[data-pointer="/tags"] button.small`)))
		tb.wait(t, `!!document.querySelector('[data-pointer="/tags/0"] input')`)
		assert.Equal(t, "email", eval[string](t, tb, `document.querySelector('[data-pointer="/tags/0"] input').type`), "a string format")
		tb.setField(t, `[data-pointer="/tags/0"] input`, "ops@example.com")
		tb.setField(t, `[data-pointer="/when"] select.choice-select`, "1")
		tb.wait(t, `!!document.querySelector('[data-pointer="/when/from"] input')`)
		tb.setField(t, `[data-pointer="/when/from"] input`, "2026-01-31")
		assert.Equal(t, map[string]any{
			"city": "Oslo", "units": "metric", "days": float64(3),
			"location": map[string]any{"lat": 59.9},
			"tags":     []any{"ops@example.com"},
			"when":     map[string]any{"from": "2026-01-31"},
		}, tb.rawArgs(t))

		// The JSON editor writes the form.
		tb.setField(t, "#raw", `{"city":"Bergen","days":5,"detailed":true,"when":"2026-02-01"}`)
		tb.wait(t, `document.querySelector('[data-pointer="/city"] input').value === 'Bergen'`)
		assert.Equal(t, "5", eval[string](t, tb, `document.querySelector('[data-pointer="/days"] input').value`))
		assert.Equal(t, "true", eval[string](t, tb, `document.querySelector('[data-pointer="/detailed"] select').value`))
		assert.Equal(t, "0", eval[string](t, tb, `document.querySelector('[data-pointer="/when"] select.choice-select').value`), "the oneOf branch that fits")
		assert.Equal(t, "2026-02-01", eval[string](t, tb, `document.querySelector('[data-pointer="/when"] .choice-body input').value`))
	})

	t.Run("Validate marks the failing field", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, api)
		tb.selectTool(t, "weather")
		tb.setField(t, control("/city"), "X")
		tb.setField(t, control("/days"), "10")
		tb.do(t, chromedp.Click(chromedp.ID("validate")))
		tb.wait(t, `!!document.querySelector('.field.invalid[data-pointer="/days"]')`)
		assert.True(t, eval[bool](t, tb, `!!document.querySelector('.field.invalid[data-pointer="/city"]')`), "minLength fails too")
		assert.NotEmpty(t, eval[string](t, tb, `document.querySelector('[data-pointer="/days"] > .field-error').textContent`))
		assert.Equal(t, "true", eval[string](t, tb, `document.querySelector('[data-pointer="/days"] input').getAttribute('aria-invalid')`))
		assert.False(t, eval[bool](t, tb, `!!document.querySelector('.field.invalid[data-pointer="/units"]')`), "a valid field is not marked")
		assert.Contains(t, eval[string](t, tb, `document.getElementById('validation').textContent`), "/days")

		tb.setField(t, control("/city"), "Oslo")
		tb.setField(t, control("/days"), "2")
		tb.do(t, chromedp.Click(chromedp.ID("validate")))
		tb.wait(t, `document.querySelector('#validation .good') !== null`)
		assert.Zero(t, eval[int](t, tb, `document.querySelectorAll('.field.invalid').length`))
	})

	t.Run("Call shows text, image, structured and isError results", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, api)
		require.True(t, eval[bool](t, tb, `!document.getElementById('auth').hidden`), "the token field shows for a server with an auth hook")

		tb.selectTool(t, "echo")
		tb.do(t, chromedp.SendKeys(chromedp.CSS(control("/text")), "hello, browser"))
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `/HTTP 401/.test(document.getElementById('result-meta').textContent)`)
		assert.Contains(t, eval[string](t, tb, `document.getElementById('result-body').textContent`), "Unauthorized")

		tb.do(t, chromedp.SendKeys(chromedp.ID("token"), demoToken))
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `/HTTP 200/.test(document.getElementById('result-meta').textContent)`)
		assert.Equal(t, "hello, browser", eval[string](t, tb, `document.querySelector('#result-body .content-text pre').textContent`))
		meta := eval[string](t, tb, `document.getElementById('result-meta').textContent`)
		assert.Contains(t, meta, "trace-echo-1", "the trace id")
		assert.Regexp(t, `\d+ ms`, meta, "the duration")
		assert.False(t, eval[bool](t, tb, `document.getElementById('result').classList.contains('is-error')`))
		assert.Empty(t, eval[string](t, tb, `sessionStorage.getItem('toolexec-explorer-token:/prefix/api/') || ''`), "the token stays in memory unless asked")

		tb.selectTool(t, "image/dot")
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `(() => { const i = document.querySelector('#result-body img'); return i && i.complete && i.naturalWidth === 16; })()`)

		tb.selectTool(t, "weather")
		tb.setField(t, control("/city"), "Oslo")
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `!!document.querySelector('#result-body .tree')`)
		keys := eval[[]string](t, tb, `Array.from(document.querySelectorAll('#result-body .tree .tree-key')).map(e => e.textContent)`)
		assert.Contains(t, keys, "forecast: ")
		assert.Contains(t, keys, "sky: ")
		assert.Equal(t, 3, eval[int](t, tb, `Array.from(document.querySelectorAll('#result-body .tree .tree-key')).filter(e => e.textContent === 'sky: ').length`), "the default: 3 days")

		tb.selectTool(t, "media")
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `(() => { const a = document.querySelector('#result-body audio'); return a && a.readyState > 0 && a.duration > 0; })()`)
		assert.Equal(t, "embedded notes", eval[string](t, tb, `document.querySelector('#result-body .content-resource pre').textContent`))
		assert.Equal(t, "https://example.com/report.pdf", eval[string](t, tb, `document.querySelector('#result-body .content-resource-link a').href`))
		assert.Equal(t, "report.pdf", eval[string](t, tb, `document.querySelector('#result-body .content-resource-link a').textContent`))

		tb.selectTool(t, "fail")
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `document.getElementById('result').classList.contains('is-error')`)
		body := eval[string](t, tb, `document.getElementById('result-body').textContent`)
		assert.Contains(t, body, "isError")
		assert.Contains(t, body, "the tool failed on purpose")
		assert.Contains(t, eval[string](t, tb, `document.getElementById('result-meta').textContent`), "HTTP 500")

		// Ticking the box keeps the token for the tab's session.
		tb.do(t, chromedp.Click(chromedp.ID("remember")))
		assert.Equal(t, demoToken, eval[string](t, tb, `sessionStorage.getItem('toolexec-explorer-token:/prefix/api/')`))
	})

	t.Run("execution off disables Call", func(t *testing.T) {
		for path, reason := range map[string]string{"/off/": "explorer.WithExecute", "/closed/": "execution gate is closed"} {
			tb := openTab(t, browser, srv.URL, path)
			tb.selectTool(t, "echo")
			assert.True(t, eval[bool](t, tb, `document.getElementById('call').disabled`), path)
			assert.Contains(t, eval[string](t, tb, `document.getElementById('call-reason').textContent`), reason, path)
			assert.True(t, eval[bool](t, tb, `!document.getElementById('call-reason').hidden`), path)
			assert.False(t, eval[bool](t, tb, `document.getElementById('validate').disabled`), "Validate still works")
			assert.True(t, eval[bool](t, tb, `document.getElementById('auth').hidden`) == (path == "/closed/"), "the token field follows the auth hook")
		}
	})

	t.Run("an XSS payload in a description and a result runs no script", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, api)
		tb.do(t, chromedp.SendKeys(chromedp.ID("token"), demoToken))
		assert.Contains(t, eval[string](t, tb, `document.querySelector('#tools button[data-name="xss"]').textContent`), xssPayload, "shown as text in the list")
		tb.selectTool(t, "xss")
		assert.Equal(t, "Hostile text: "+xssPayload, eval[string](t, tb, `document.getElementById('tool-desc').textContent`))
		assert.Contains(t, eval[string](t, tb, `document.querySelector('[data-pointer="/field"] .hint').textContent`), xssPayload)
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `/HTTP 200/.test(document.getElementById('result-meta').textContent)`)
		assert.Equal(t, xssPayload, eval[string](t, tb, `document.querySelector('#result-body .content-text pre').textContent`))
		assert.Contains(t, eval[string](t, tb, `document.getElementById('result-meta').textContent`), xssPayload, "the trace id, as text")
		assert.False(t, eval[bool](t, tb, `!!document.querySelector('#result-body .content-resource-link a')`), "a javascript: link is not made a link")

		tb.selectTool(t, "weather")
		tb.setField(t, control("/city"), xssPayload)
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `!!document.querySelector('#result-body .tree')`)
		assert.Contains(t, eval[string](t, tb, `document.querySelector('#result-body .tree').textContent`), `"`+strings.ReplaceAll(xssPayload, `"`, `\"`)+`"`, "structuredContent, as text (a JSON string)")

		time.Sleep(100 * time.Millisecond) // let a stray image error fire, if one were there
		assert.Equal(t, "undefined", eval[string](t, tb, `typeof window.__xss`), "no payload ran")
		assert.Zero(t, eval[int](t, tb, `document.querySelectorAll('#tools img, #tools svg, #detail img:not(#result-body img), #detail svg, main script').length`), "no element came from tool data")
		tb.mu.Lock()
		for _, u := range tb.requests {
			assert.NotEqual(t, "x", filepath.Base(mustURL(t, u).Path), "the payload's image was requested: %s", u)
		}
		tb.mu.Unlock()
	})

	t.Run("under chi, without a trailing slash", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, "/chi")
		assert.Len(t, eval[[]string](t, tb, `Array.from(document.querySelectorAll('#tools .name')).map(e => e.textContent)`), len(toolNames))
		tb.selectTool(t, "image/dot")
		tb.do(t, chromedp.Click(chromedp.ID("validate")))
		tb.wait(t, `document.querySelector('#validation .good') !== null`)
	})

	t.Run("narrow screen, dark scheme, keyboard only", func(t *testing.T) {
		tb := openTab(t, browser, srv.URL, api)
		tb.do(t, chromedp.EmulateViewport(390, 844), chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
			})
			return err
		}))
		tb.wait(t, `getComputedStyle(document.body).backgroundColor === 'rgb(21, 23, 26)'`)

		// Tab from the filter into the list, arrow down, Enter: the second tool.
		tb.do(t, chromedp.Focus(chromedp.ID("filter")), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.Enter))
		tb.wait(t, `document.getElementById('tool-name').textContent === 'image/dot'`)
		tb.selectTool(t, "weather")
		assert.True(t, eval[bool](t, tb, `document.documentElement.scrollWidth <= window.innerWidth`), "nothing overflows sideways")
		assert.Equal(t, 1, eval[int](t, tb, `getComputedStyle(document.querySelector('.editors')).gridTemplateColumns.split(' ').length`), "form and JSON editor stack")
	})

	if os.Getenv("TOOLEXEC_SCREENSHOT") != "" {
		t.Run("screenshot for docs/explorer.md", func(t *testing.T) {
			tb := openTab(t, browser, srv.URL, "/docs/api/")
			tb.do(t, chromedp.EmulateViewport(1280, 900))
			tb.do(t, chromedp.SendKeys(chromedp.ID("token"), demoToken))
			tb.selectTool(t, "weather")
			tb.setField(t, control("/city"), "Oslo")
			tb.setField(t, control("/days"), "2")
			tb.do(t, chromedp.Click(chromedp.CSS(`[data-pointer="/location"] button.add`)))
			tb.wait(t, `!!document.querySelector('[data-pointer="/location/lat"] input')`)
			tb.setField(t, control("/location/lat"), "59.91")
			tb.setField(t, control("/location/lon"), "10.75")
			tb.do(t, chromedp.Click(chromedp.ID("call")))
			tb.wait(t, `!!document.querySelector('#result-body .tree') && /matches/.test(document.getElementById('output-check').textContent)`)
			eval[chromedp.Void](t, tb, `document.activeElement && document.activeElement.blur()`)
			png, err := chromedp.Run(tb.ctx, chromedp.FullScreenshot(100))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join("..", "..", "docs", "explorer.png"), png, 0o644))
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	require.NoError(t, err)
	return u
}
