package browser_test

import (
	"context"
	_ "embed"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

//go:embed testdata/axe/axe.min.js
var axeSource string

// axeOptions are the options of every axe run: axe's default rules (WCAG
// 2.0 and 2.1 A and AA, and best practices), with the two rules that
// found the page's last problems named, so that they keep running should
// a later axe take them out of its defaults: a control's accessible name
// contains its visible text (WCAG 2.5.3), and a block that scrolls takes
// keyboard focus (WCAG 2.1.1).
const axeOptions = `{resultTypes: ['violations'], rules: {
	'label-content-name-mismatch': {enabled: true},
	'scrollable-region-focusable': {enabled: true}}}`

// axeCheck runs axe-core on the page as it is and requires no violation.
// The engine is injected through DevTools, which the page's policy does
// not govern; the page itself loads nothing.
func (tb *tab) axeCheck(t *testing.T, state string) {
	t.Helper()
	if !eval[bool](t, tb, `typeof window.axe === 'object'`) {
		eval[chromedp.Void](t, tb, axeSource+"\n;void 0")
	}
	violations, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`axe.run(document, `+axeOptions+`).then(r =>
		r.violations.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.map(n => n.target.join(' ')).join(', ')))`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err, "running axe")
	assert.Empty(t, violations, "axe-core violations: %s", state)
}

// text is an element's textContent.
func (tb *tab) text(t *testing.T, selector string) string {
	t.Helper()
	return eval[string](t, tb, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ''`, selector))
}

// inert checks that no XSS payload ran or became an element: no
// window.__xss, no image, SVG or script in the tool's part of the page but
// result images, and no request for the payload's image "x".
func (tb *tab) inert(t *testing.T) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // let a stray image error fire, if one were there
	assert.Equal(t, "undefined", eval[string](t, tb, `typeof window.__xss`), "no payload ran")
	assert.Zero(t, eval[int](t, tb, `document.querySelectorAll('#detail img:not(#result-body img), #detail svg, #detail script, #tools img, #tools svg').length`),
		"no element came from tool data")
	tb.mu.Lock()
	defer tb.mu.Unlock()
	for _, u := range tb.requests {
		assert.False(t, strings.HasSuffix(u, "/x"), "the payload's image was requested: %s", u)
	}
}

// receive waits for one value from ch, failing the test when none comes.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("waiting for %s", what)
	}
	var zero T
	return zero
}

func TestExplorerRoundTwoInChromium(t *testing.T) {
	browserCtx := startBrowser(t)
	f := newRoundTwo()
	srv := httptest.NewServer(f.handler())
	t.Cleanup(srv.Close)
	const page = "/two/api/"

	withToken := func(t *testing.T, tb *tab) {
		t.Helper()
		tb.do(t, chromedp.SendKeys(chromedp.ID("token"), demoToken))
		tb.wait(t, `document.getElementById('token-state').textContent === 'token set'`)
		tb.wait(t, `!!document.querySelector('#tools button[data-name="secret"]')`)
	}
	callAndWait := func(t *testing.T, tb *tab) {
		t.Helper()
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `!document.getElementById('call').disabled && /HTTP|Cancelled/.test(document.getElementById('result').textContent)`)
	}

	t.Run("a recursive schema renders in bounded work, and grows on demand", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		tb.axeCheck(t, "the list")

		tb.selectTool(t, "tree")
		fields := func() int { return eval[int](t, tb, `document.querySelectorAll('#form .field').length`) }
		assert.Equal(t, 3, fields(), "the arguments, root and root's v: left and right wait")
		assert.Equal(t, 2, eval[int](t, tb, `document.querySelectorAll('#form .field-lazy button.add').length`))
		assert.Equal(t, map[string]any{"root": map[string]any{}}, tb.rawArgs(t))
		tb.do(t, chromedp.Click(chromedp.CSS(`[data-pointer="/root/left"] button.add`)))
		tb.wait(t, `!!document.querySelector('[data-pointer="/root/left/v"] input')`)
		assert.Equal(t, 5, fields(), "one more level: left and its v")
		assert.False(t, eval[bool](t, tb, `!!document.querySelector('[data-pointer="/root/left/left/v"]')`), "and no further")
		tb.setField(t, control("/root/left/v"), "7")
		assert.Equal(t, map[string]any{"root": map[string]any{"left": map[string]any{"v": float64(7)}}}, tb.rawArgs(t))
		tb.do(t, chromedp.Click(chromedp.CSS(`[data-lazy="/root/left"] > button.remove`)))
		tb.wait(t, `!!document.querySelector('[data-pointer="/root/left"] button.add')`)
		assert.Equal(t, map[string]any{"root": map[string]any{}}, tb.rawArgs(t), "removed again")
		tb.axeCheck(t, "a recursive form")

		tb.selectTool(t, "list")
		assert.Equal(t, 2, fields(), "the arguments and v; next waits")
		tb.setField(t, "#raw", `{"v":"a","next":{"v":"b","next":{"v":"c"}}}`)
		tb.wait(t, `document.querySelector('[data-pointer="/next/next/v"] input').value === 'c'`)
		assert.True(t, eval[bool](t, tb, `!!document.querySelector('[data-pointer="/next/next/next"] button.add')`), "the list ends where the value does")

		tb.selectTool(t, "mutual")
		n := fields()
		assert.LessOrEqual(t, n, 30, "required recursion stops at the depth bound")
		assert.True(t, eval[bool](t, tb, `!!document.querySelector('#form textarea.json')`), "and leaves the rest to a JSON field")

		tb.selectTool(t, "forest")
		n = fields()
		assert.LessOrEqual(t, n, 301, "two required branches without end: at most the field budget")
		assert.Greater(t, n, 20)
		assert.True(t, eval[bool](t, tb, `document.getElementById('raw').value.length > 0`), "the page still answers")
	})

	t.Run("null is sent, and exclusive bounds stay exclusive", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "nullable")
		options := func(p string) []string {
			return eval[[]string](t, tb, fmt.Sprintf(`Array.from(document.querySelectorAll('[data-pointer=%q] select.choice-select option')).map(o => o.textContent)`, p))
		}
		assert.Equal(t, []string{"integer", "null"}, options("/count"), "anyOf with null: a required choice")
		assert.Equal(t, []string{"(not set)", "string", "null"}, options("/note"), "a type list with null: an optional choice")
		tb.setField(t, `[data-pointer="/count"] select.choice-select`, "1")
		tb.setField(t, `[data-pointer="/note"] select.choice-select`, "1")
		assert.Equal(t, map[string]any{"count": nil, "note": nil}, tb.rawArgs(t))
		assert.Equal(t, "1", eval[string](t, tb, `document.querySelector('[data-pointer="/limit"] input').min`), "an integer greater than 0 is at least 1")
		assert.Equal(t, "", eval[string](t, tb, `document.querySelector('[data-pointer="/ratio"] input').min`), "a number greater than 0 has no inclusive minimum")
		assert.Contains(t, tb.text(t, `[data-pointer="/ratio"] .hint`), "greater than 0")
		for _, via := range []string{"mcp", "rest"} {
			tb.setField(t, "#via", via)
			callAndWait(t, tb)
			assert.Equal(t, `{"count":null,"note":null}`, eval[string](t, tb, `JSON.stringify(JSON.parse(document.querySelector('#result-body .content-text pre').textContent))`), via)
		}
	})

	t.Run("a new token lists the tools it may see", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		names := eval[[]string](t, tb, `Array.from(document.querySelectorAll('#tools .name')).map(e => e.textContent)`)
		assert.Equal(t, twoNames, names, "without the token, no secret")
		assert.Equal(t, "no token", tb.text(t, "#token-state"))
		withToken(t, tb) // typing the token lists again
		tb.setField(t, "#token", "")
		tb.wait(t, `!document.querySelector('#tools button[data-name="secret"]')`)
		// The Refresh button lists again too.
		eval[chromedp.Void](t, tb, `document.getElementById('token').value = '`+demoToken+`'`)
		tb.do(t, chromedp.Click(chromedp.ID("refresh")))
		tb.wait(t, `!!document.querySelector('#tools button[data-name="secret"]')`)
	})

	t.Run("the validation summary goes when its cause does", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "echo")
		tb.setField(t, "#raw", `{}`)
		tb.do(t, chromedp.Click(chromedp.ID("validate")))
		tb.wait(t, `/1 problem/.test(document.getElementById('validation').textContent)`)
		tb.axeCheck(t, "validation failures")
		tb.setField(t, "#raw", `{"text": "fixed"}`)
		assert.Empty(t, tb.text(t, "#validation"), "fixed in the JSON editor")
		assert.Zero(t, eval[int](t, tb, `document.querySelectorAll('.field.invalid').length`))

		tb.setField(t, "#via", "rest")
		tb.setField(t, "#raw", `{}`)
		callAndWait(t, tb)
		assert.Contains(t, tb.text(t, "#result-body"), "The arguments were refused", "a 422 is a refusal, not the tool's error")
		assert.NotContains(t, tb.text(t, "#result-body"), "isError: the tool reported an error")
		assert.Contains(t, tb.text(t, "#validation"), "1 problem")
		eval[chromedp.Void](t, tb, `document.getElementById('raw').value = '{"text":"ok"}'`)
		callAndWait(t, tb)
		assert.Equal(t, "ok", tb.text(t, "#result-body .content-text pre"))
		assert.Empty(t, tb.text(t, "#validation"), "a successful call clears it")

		tb.setField(t, "#via", "mcp")
		eval[chromedp.Void](t, tb, `document.getElementById('raw').value = '{}'`)
		callAndWait(t, tb)
		assert.Contains(t, tb.text(t, "#result-body"), "The arguments were refused", "over MCP too")
		assert.Contains(t, tb.text(t, "#validation"), "1 problem")
	})

	t.Run("a long title wraps at 375 px", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, "/long/")
		tb.do(t, chromedp.EmulateViewport(375, 812))
		tb.wait(t, `window.innerWidth === 375`)
		assert.Equal(t, longTitle, tb.text(t, "h1"))
		assert.LessOrEqual(t, eval[int](t, tb, `document.documentElement.scrollWidth`), 375, "the page title")
		tb.selectTool(t, longTitle)
		assert.LessOrEqual(t, eval[int](t, tb, `document.documentElement.scrollWidth`), 375, "a tool's name and title")
		assert.LessOrEqual(t, eval[int](t, tb, `Math.ceil(document.getElementById('tool-title').getBoundingClientRect().right)`), 375)
	})

	t.Run("choosing a tool by keyboard moves focus to its form", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		tb.do(t, chromedp.Focus(chromedp.CSS(`#tools button[data-name="echo"]`)), chromedp.KeyEvent(kb.Enter))
		tb.wait(t, `document.getElementById('tool-name').textContent === 'echo' && document.activeElement.closest('#form') !== null`)
		assert.Equal(t, "INPUT", eval[string](t, tb, `document.activeElement.tagName`))
	})

	t.Run("progress moves, log messages show, both as text", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "progress")
		assert.Equal(t, "mcp", eval[string](t, tb, `document.getElementById('via').value`), "MCP is the default when the host turned it on")
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		for i := 1; i <= 3; i++ {
			tb.wait(t, fmt.Sprintf(`document.getElementById('progress-bar').value === %d && document.getElementById('progress-bar').max === 3`, i))
			assert.Equal(t, fmt.Sprintf("%d of 3: step %d %s", i, i, xssPayload), tb.text(t, "#progress-text"))
			tb.wait(t, fmt.Sprintf(`document.querySelectorAll('#log-list li').length === %d`, i))
			assert.Equal(t, fmt.Sprintf("warning[progress] log line %d %s", i, xssPayload), tb.text(t, "#log-list li:last-child"))
			if i == 2 {
				tb.axeCheck(t, "a call in progress, with logs")
			}
			f.steps <- struct{}{}
		}
		tb.wait(t, `/HTTP 200/.test(document.getElementById('result-meta').textContent)`)
		assert.Equal(t, "done", tb.text(t, "#result-body .content-text pre"))
		assert.True(t, eval[bool](t, tb, `document.getElementById('progress').hidden`), "the bar goes when the call ends")
		assert.False(t, eval[bool](t, tb, `document.getElementById('logs').hidden`), "the logs stay beside the result")
		tb.inert(t)
	})

	t.Run("Cancel reaches the handler's context", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "hang")
		for _, via := range []string{"mcp", "rest"} {
			tb.setField(t, "#via", via)
			tb.do(t, chromedp.Click(chromedp.ID("call")))
			assert.Equal(t, via, receive(t, f.started, "the tool to start"), "the call went over %s", via)
			tb.wait(t, `!document.getElementById('cancel').hidden`)
			tb.do(t, chromedp.Click(chromedp.ID("cancel")))
			assert.ErrorIs(t, receive(t, f.cancelled, "the handler's context to end"), context.Canceled, via)
			tb.wait(t, `/Cancelled/.test(document.getElementById('result-body').textContent)`)
			assert.False(t, eval[bool](t, tb, `document.getElementById('call').disabled`), "Call works again")
		}
	})

	t.Run("a tool that asks for input gets a form, and the call resumes", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "ask")
		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `!document.getElementById('input').hidden && !!document.querySelector('#input-body [data-pointer="/name"] input')`)
		assert.Equal(t, "Who are you? "+xssPayload, tb.text(t, "#input-body .ask-message"))
		assert.Contains(t, tb.text(t, `#input-body [data-pointer="/name"] .label`), xssPayload, "the schema's title, as text")
		assert.Equal(t, xssPayload, tb.text(t, `#input-body [data-pointer="/name"] .hint`), "and its description")
		tb.axeCheck(t, "an input request")
		tb.inert(t)
		tb.do(t, chromedp.Click(chromedp.CSS(`#input-body button.primary`)))
		tb.wait(t, `/Required: name/.test(document.getElementById('input-body').textContent)`)
		tb.do(t, chromedp.SendKeys(chromedp.CSS(`#input-body [data-pointer="/name"] input`), "Ada"))
		tb.do(t, chromedp.Click(chromedp.CSS(`#input-body button.primary`)))
		tb.wait(t, `/HTTP 200/.test(document.getElementById('result-meta').textContent)`)
		assert.Equal(t, "Hello, Ada!", tb.text(t, "#result-body .content-text pre"))
		assert.Contains(t, tb.text(t, "#result-meta"), "2 rounds")

		tb.do(t, chromedp.Click(chromedp.ID("call")))
		tb.wait(t, `!document.getElementById('input').hidden`)
		tb.do(t, chromedp.Click(chromedp.CSS(`#input-body .ask .actions button:nth-child(2)`)))
		tb.wait(t, `/HTTP 200/.test(document.getElementById('result-meta').textContent)`)
		assert.Equal(t, "no answer: decline", tb.text(t, "#result-body .content-text pre"), "declined")
		tb.inert(t)
	})

	t.Run("structuredContent is checked against the output schema", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "badout")
		assert.Contains(t, tb.text(t, "#schema-out"), `"required"`, "the output schema is shown")
		assert.Contains(t, tb.text(t, "#schema-out"), `\"window.__xss=1\"`, "as JSON text")
		callAndWait(t, tb)
		tb.wait(t, `/does not match/.test(document.getElementById('output-check').textContent)`)
		assert.Contains(t, tb.text(t, "#output-check"), "/n")
		assert.Contains(t, tb.text(t, "#result-body .content-text"), "JSON, pretty-printed")
		assert.Equal(t, "{\n  \"n\": \"not a number\"\n}", tb.text(t, "#result-body .content-text pre"))
		tb.axeCheck(t, "an output mismatch")
		tb.inert(t)

		tb.selectTool(t, "sum")
		tb.setField(t, "#raw", `{"a": 2, "b": 3}`)
		callAndWait(t, tb)
		tb.wait(t, `/matches the output schema/.test(document.getElementById('output-check').textContent)`)
	})

	t.Run("x-mcp-header parameters travel in headers, Base64 when they must", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "region")
		tb.setField(t, "#raw", `{"region": " Zürich ", "n": 42}`)
		callAndWait(t, tb)
		assert.Contains(t, tb.text(t, "#result-meta"), "MCP")
		assert.Equal(t, "{\n  \"n\": 42,\n  \"region\": \" Zürich \"\n}", tb.text(t, "#result-body .content-text pre"), "the server's header check let it through")
		tb.do(t, chromedp.Click(chromedp.ID("curl-mcp")))
		tb.wait(t, `document.getElementById('curl-text').textContent !== ''`)
		cmd := tb.text(t, "#curl-text")
		assert.Contains(t, cmd, "'Mcp-Param-Region: =?base64?IFrDvHJpY2gg?='")
		assert.Contains(t, cmd, "'Mcp-Param-N: 42'")
	})

	t.Run("Copy as cURL gives commands that run", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		origin := srv.URL
		tb.do(t, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			for _, name := range []string{"clipboard-read", "clipboard-write"} {
				if _, err := cdp.Call(ctx, target, browser.SetPermission, browser.SetPermissionParams{
					Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: origin,
				}); err != nil {
					return err
				}
			}
			return nil
		}))
		tb.selectTool(t, "echo")
		tb.setField(t, control("/text"), "it's curl")
		for _, kind := range []string{"rest", "mcp"} {
			tb.do(t, chromedp.Click(chromedp.ID("curl-"+kind)))
			tb.wait(t, `/Copied/.test(document.getElementById('copy-status').textContent)`)
			cmd := tb.text(t, "#curl-text")
			clip, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
			require.NoError(t, err)
			assert.Equal(t, cmd, clip, "the clipboard holds the command shown")
			assert.Contains(t, cmd, `"Authorization: Bearer $TOKEN"`, kind)
			assert.NotContains(t, cmd, demoToken, "the token is never inlined")
			out, err := exec.Command("sh", "-c", cmd).CombinedOutput()
			require.NoError(t, err, "%s\n%s", cmd, out)
			assert.Contains(t, string(out), "Unauthorized", "without TOKEN the call is refused")
			run := exec.Command("sh", "-c", cmd)
			run.Env = append(os.Environ(), "TOKEN="+demoToken)
			out, err = run.CombinedOutput()
			require.NoError(t, err, "%s\n%s", cmd, out)
			assert.Contains(t, string(out), `"text":"it's curl"`, kind)
			assert.Contains(t, string(out), `"isError":false`, kind)
			eval[chromedp.Void](t, tb, `document.getElementById('copy-status').textContent = ''`)
		}

		callAndWait(t, tb)
		tb.do(t, chromedp.Click(chromedp.ID("copy-result")))
		tb.wait(t, `/Copied the result/.test(document.getElementById('copy-status').textContent)`)
		clip, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](`navigator.clipboard.readText()`, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		assert.Contains(t, clip, `"text": "it's curl"`, "the raw answer, pretty-printed")
	})

	t.Run("history re-runs a call", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "echo")
		tb.setField(t, control("/text"), "first")
		callAndWait(t, tb)
		tb.setField(t, "#via", "rest")
		tb.setField(t, control("/text"), "second")
		callAndWait(t, tb)
		items := func() []string {
			return eval[[]string](t, tb, `Array.from(document.querySelectorAll('#history-list li')).map(e => e.textContent)`)
		}
		require.Len(t, items(), 2)
		assert.Contains(t, items()[0], "REST")
		assert.Contains(t, items()[0], `{ "text": "second" }`)
		assert.Contains(t, items()[1], "MCP")
		assert.Regexp(t, `ok\d+ ms`, items()[1])

		tb.selectTool(t, "sum") // re-running goes back to the call's tool
		tb.do(t, chromedp.Click(chromedp.CSS(`#history-list li:nth-child(2) button:nth-of-type(2)`)))
		tb.wait(t, `document.querySelectorAll('#history-list li').length === 3 && !document.getElementById('call').disabled`)
		assert.Equal(t, "echo", tb.text(t, "#tool-name"))
		assert.Equal(t, "first", tb.text(t, "#result-body .content-text pre"))
		assert.Contains(t, items()[0], "MCP", "over the transport it first went")
		tb.axeCheck(t, "the history")

		assert.Empty(t, eval[string](t, tb, `sessionStorage.getItem('toolexec-explorer-history:/two/api/') || ''`), "in memory only")
		tb.do(t, chromedp.Click(chromedp.ID("remember")))
		assert.Contains(t, eval[string](t, tb, `sessionStorage.getItem('toolexec-explorer-history:/two/api/')`), `"name":"echo"`, "kept with the token")
		tb.do(t, chromedp.Reload())
		tb.wait(t, `document.querySelectorAll('#tools button.tool').length > 0`)
		tb.selectTool(t, "echo")
		assert.Len(t, items(), 3, "back after a reload")
		tb.do(t, chromedp.Click(chromedp.ID("remember")))
		assert.Empty(t, eval[string](t, tb, `sessionStorage.getItem('toolexec-explorer-history:/two/api/') || ''`), "unticked: gone")
		tb.do(t, chromedp.Click(chromedp.ID("history-clear")))
		assert.Empty(t, items())
	})

	t.Run("every block that scrolls takes keyboard focus and has a name", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		withToken(t, tb)
		tb.selectTool(t, "big")
		tb.setField(t, "#raw", `{"p01": "`+strings.Repeat("long text ", 400)+`"}`)
		tb.do(t, chromedp.Click(chromedp.CSS(`#schemas > summary`)))
		callAndWait(t, tb)
		tb.wait(t, `document.querySelectorAll('#log-list li').length === 60`)
		tb.do(t, chromedp.Click(chromedp.CSS(`#result-body details.raw-response > summary`)))
		tb.do(t, chromedp.Click(chromedp.ID("curl-mcp")))
		tb.wait(t, `document.getElementById('curl-text').textContent !== ''`)

		// The state is the one meant: each of these blocks overflows its box
		// (and the JSON editor, a text area, takes focus anyway).
		scrollers := eval[[]string](t, tb, `Array.from(document.querySelectorAll('#detail *:not(textarea)')).filter(e => {
			const s = getComputedStyle(e);
			return /auto|scroll/.test(s.overflowX + ' ' + s.overflowY) && e.getClientRects().length > 0 &&
				(e.scrollHeight > e.clientHeight || e.scrollWidth > e.clientWidth);
		}).map(e => e.id || e.parentElement.className + ' ' + e.tagName.toLowerCase())`)
		assert.ElementsMatch(t, []string{"schema-in", "schema-out", "curl-text", "log-list", "raw-response pre"}, scrollers)
		tb.axeCheck(t, "every block that scrolls")

		// From the schemas' summary, Tab reaches the input schema, and the
		// arrow keys scroll it.
		tb.do(t, chromedp.Focus(chromedp.CSS(`#schemas > summary`)), chromedp.KeyEvent(kb.Tab))
		assert.Equal(t, "schema-in", eval[string](t, tb, `document.activeElement.id`))
		tb.do(t, chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
		tb.wait(t, `document.getElementById('schema-in').scrollTop > 0`)
	})

	t.Run("the theme is remembered, and dark passes axe", func(t *testing.T) {
		tb := openTab(t, browserCtx, srv.URL, page)
		tb.do(t, chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
			_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}},
			})
			return err
		}))
		assert.Equal(t, "Theme: auto", tb.text(t, "#theme"))
		tb.do(t, chromedp.Click(chromedp.ID("theme")), chromedp.Click(chromedp.ID("theme")))
		tb.wait(t, `getComputedStyle(document.body).backgroundColor === 'rgb(21, 23, 26)'`)
		assert.Equal(t, "Theme: dark", tb.text(t, "#theme"))
		tb.do(t, chromedp.Reload())
		tb.wait(t, `document.querySelectorAll('#tools button.tool').length > 0`)
		assert.Equal(t, "dark", eval[string](t, tb, `document.documentElement.dataset.theme`), "remembered")
		withToken(t, tb)
		tb.selectTool(t, "nullable")
		tb.setField(t, `[data-pointer="/count"] select.choice-select`, "0")
		tb.setField(t, control("/count"), "1")
		callAndWait(t, tb)
		tb.axeCheck(t, "dark, with a result")
		tb.do(t, chromedp.Click(chromedp.ID("theme")))
		tb.wait(t, `getComputedStyle(document.body).backgroundColor === 'rgb(255, 255, 255)'`)
		tb.axeCheck(t, "light, with a result")
		eval[chromedp.Void](t, tb, `localStorage.removeItem('toolexec-explorer-theme')`)
	})
}

// axe also checks the first fixture's pages: the nested form and results.
func TestExplorerAccessibility(t *testing.T) {
	browserCtx := startBrowser(t)
	srv := httptest.NewServer(fixture())
	t.Cleanup(srv.Close)
	tb := openTab(t, browserCtx, srv.URL, "/prefix/api/")
	tb.do(t, chromedp.SendKeys(chromedp.ID("token"), demoToken))
	tb.selectTool(t, "weather")
	tb.do(t, chromedp.Click(chromedp.CSS(`[data-pointer="/location"] button.add`)))
	tb.do(t, chromedp.Click(chromedp.CSS(`[data-pointer="/tags"] button.small`)))
	tb.setField(t, `[data-pointer="/when"] select.choice-select`, "1")
	tb.axeCheck(t, "a nested form")
	tb.setField(t, control("/city"), "Oslo")
	tb.do(t, chromedp.Click(chromedp.ID("call")))
	tb.wait(t, `!!document.querySelector('#result-body .tree')`)
	tb.axeCheck(t, "a structured result")
	tb.selectTool(t, "media")
	tb.do(t, chromedp.Click(chromedp.ID("call")))
	tb.wait(t, `!!document.querySelector('#result-body audio')`)
	tb.axeCheck(t, "audio, resources")
	tb = openTab(t, browserCtx, srv.URL, "/off/")
	tb.selectTool(t, "echo")
	tb.axeCheck(t, "Call disabled")

	// The check is not vacuous: a control without a name, a button whose
	// name leaves out its visible text and a block that scrolls but takes
	// no focus are found.
	eval[chromedp.Void](t, tb, `(() => {
		const main = document.getElementById('tool');
		main.appendChild(document.createElement('input'));
		const b = document.createElement('button');
		b.textContent = 'Run again';
		b.setAttribute('aria-label', 'Repeat the call');
		main.appendChild(b);
		const box = document.createElement('div');
		box.style.cssText = 'height: 2em; overflow: auto';
		box.textContent = 'text that does not fit. '.repeat(200);
		main.appendChild(box);
	})()`)
	found, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]string](`axe.run(document, `+axeOptions+`).then(r => r.violations.map(v => v.id))`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Contains(t, found, "label", "axe reports an unlabelled input")
	assert.Contains(t, found, "label-content-name-mismatch", "axe reports a name without the visible text")
	assert.Contains(t, found, "scrollable-region-focusable", "axe reports a block keyboard users cannot scroll")
}
