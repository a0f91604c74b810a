//lint:file-ignore SA1019 log messages, sampling and roots are tested as long as MCP carries them

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/ssetest"
	"github.com/toolexec/toolexec/mcp"
)

// streamRegistry holds tools that use the streaming and input API.
func streamRegistry(t *testing.T) *toolexec.Registry {
	t.Helper()
	reg := toolexec.NewRegistry()
	add := func(name string, h func(ctx context.Context, args map[string]any) (string, error)) {
		reg.MustAdd(toolexec.Tool{Name: name, Description: name},
			func(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
				text, err := h(ctx, args)
				if err != nil {
					return nil, false, "", err
				}
				return []toolexec.Content{toolexec.Text(text)}, false, "", nil
			})
	}
	add("quiet", func(context.Context, map[string]any) (string, error) { return "quiet", nil })
	add("progress", func(ctx context.Context, _ map[string]any) (string, error) {
		for _, p := range []float64{0, 50, 100} {
			require.NoError(t, toolexec.ReportProgress(ctx, toolexec.Progress{Progress: p, Total: 100, Message: fmt.Sprint("at ", p)}))
		}
		return "done", nil
	})
	add("logs", func(ctx context.Context, _ map[string]any) (string, error) {
		for _, l := range []toolexec.LogLevel{toolexec.LogDebug, toolexec.LogInfo, toolexec.LogWarning, toolexec.LogError} {
			require.NoError(t, toolexec.Log(ctx, toolexec.LogMessage{Level: l, Logger: "test", Data: string(l) + " message"}))
		}
		return "logged", nil
	})
	add("hello", func(ctx context.Context, _ map[string]any) (string, error) {
		res, err := toolexec.Elicit(ctx, "user_name", toolexec.ElicitRequest{Message: "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Hello, %v!", res.Content["name"]), nil
	})
	add("two_rounds", func(ctx context.Context, _ map[string]any) (string, error) {
		roots, err := toolexec.ListRoots(ctx, "roots")
		if err != nil {
			return "", err
		}
		answer, err := toolexec.Sample(ctx, "question", toolexec.CreateMessageRequest{
			Messages: []toolexec.SamplingMessage{{Role: "user", Content: toolexec.Text("Capital of France?")}}, MaxTokens: 10})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s %s", roots[0].URI, answer.Text()), nil
	})
	return reg
}

// streamServer serves the streaming tools over a real HTTP server.
func streamServer(t *testing.T, opts ...mcp.Option) (*httptest.Server, *toolexec.Registry) {
	t.Helper()
	reg := streamRegistry(t)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	srv := httptest.NewServer(mcp.NewHandler(x, opts...))
	t.Cleanup(srv.Close)
	return srv, reg
}

// rpc posts body to the server's endpoint.
func rpc(t *testing.T, ctx context.Context, url, body string, hdr ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return resp
}

// events reads the JSON-RPC messages of an SSE body, one at a time.
type events struct{ rd *ssetest.Reader }

func newEvents(t *testing.T, body io.Reader) *events { return &events{ssetest.NewReader(t, body)} }

// next returns the next event's message, or nil at the end of the stream.
func (e *events) next() map[string]any { return e.rd.Next().Msg }

// all reads every message of a finished SSE body.
func sseMessages(t *testing.T, body string) []map[string]any {
	t.Helper()
	e := newEvents(t, strings.NewReader(body))
	var out []map[string]any
	for m := e.next(); m != nil; m = e.next() {
		out = append(out, m)
	}
	return out
}

// versionCall is a tools/call of tool at version v with _meta members meta
// (without braces), and the headers v needs.
func versionCall(v, tool, meta string) (string, []string) {
	if v == "2026-07-28" {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}%s}}}`,
			tool, prefixComma(meta))
		return body, []string{"MCP-Protocol-Version", v, "Mcp-Method", "tools/call", "Mcp-Name", tool}
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{%s}}}`, tool, meta)
	return body, []string{"MCP-Protocol-Version", v}
}

func prefixComma(s string) string {
	if s == "" {
		return ""
	}
	return "," + s
}

func callWithMeta(name, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":%s}}`, name, meta)
}

func streamHandler(t *testing.T, opts ...mcp.Option) http.Handler {
	reg := streamRegistry(t)
	return mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())), opts...)
}

func TestACallThatSendsNothingStaysPlainJSON(t *testing.T) {
	h := streamHandler(t)
	for _, name := range []string{"quiet", "progress"} { // progress without a token sends nothing
		rec := post(t, h, callBody(name, `{}`))
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"), name)
		assert.False(t, callResult(t, rec).IsError, name)
	}
}

func TestProgressIsStreamedInOrderBeforeTheResult(t *testing.T) {
	h := streamHandler(t)
	rec := post(t, h, callWithMeta("progress", `{"progressToken":"tok-1"}`))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/event-stream", rec.Header().Get("Content-Type"))
	assert.Equal(t, "no", rec.Header().Get("X-Accel-Buffering"))
	assert.Regexp(t, `^id: s-[0-9a-f]{16}-[0-9a-f]{32}_\d+\nevent: message\ndata: \{`, rec.Body.String())
	msgs := sseMessages(t, rec.Body.String())
	require.Len(t, msgs, 4)
	for i, want := range []float64{0, 50, 100} {
		assert.Equal(t, "notifications/progress", msgs[i]["method"])
		params := msgs[i]["params"].(map[string]any)
		assert.Equal(t, "tok-1", params["progressToken"])
		assert.Equal(t, want, params["progress"])
		assert.Equal(t, float64(100), params["total"])
		assert.Equal(t, fmt.Sprint("at ", want), params["message"])
	}
	assert.Equal(t, float64(7), msgs[3]["id"])
	assert.Contains(t, fmt.Sprint(msgs[3]["result"]), "done")
}

func TestProgressNeedsAClientThatAcceptsEventStreams(t *testing.T) {
	rec := post(t, streamHandler(t), callWithMeta("progress", `{"progressToken":1}`), "Accept", "application/json")
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	assert.False(t, callResult(t, rec).IsError)
}

func TestLogMessagesAreFilteredByLevel(t *testing.T) {
	levels := func(msgs []map[string]any) []string {
		var out []string
		for _, m := range msgs {
			if m["method"] == "notifications/message" {
				p := m["params"].(map[string]any)
				assert.Equal(t, "test", p["logger"])
				assert.Equal(t, p["level"].(string)+" message", p["data"])
				out = append(out, p["level"].(string))
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		opts []mcp.Option
		meta string
		want []string // nil: plain JSON
	}{
		{"default level is info", nil, `{}`, []string{"info", "warning", "error"}},
		{"the request's level wins", nil, `{"io.modelcontextprotocol/logLevel":"warning"}`, []string{"warning", "error"}},
		{"debug asks for everything", nil, `{"io.modelcontextprotocol/logLevel":"debug"}`, []string{"debug", "info", "warning", "error"}},
		{"handler default", []mcp.Option{mcp.WithLogLevel(toolexec.LogError)}, `{}`, []string{"error"}},
		{"off", []mcp.Option{mcp.WithLogLevel("off")}, `{}`, nil},
		{"2026 without a level sends none", nil, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`, nil},
		{"2026 with a level", nil, `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"error"}`, []string{"error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hdr []string
			if strings.Contains(tc.meta, "2026-07-28") {
				hdr = headers2026("tools/call", "logs")
			}
			rec := post(t, streamHandler(t, tc.opts...), callWithMeta("logs", tc.meta), hdr...)
			require.Equal(t, http.StatusOK, rec.Code)
			if tc.want == nil {
				assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
				return
			}
			msgs := sseMessages(t, rec.Body.String())
			assert.Equal(t, tc.want, levels(msgs))
			assert.Equal(t, float64(7), msgs[len(msgs)-1]["id"], "the response comes last")
		})
	}
}

func TestAnInvalidLogLevelIsInvalidParams(t *testing.T) {
	h := streamHandler(t)
	rec := post(t, h, callWithMeta("logs", `{"io.modelcontextprotocol/logLevel":"loud"}`))
	assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))

	rec = post(t, h, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"loud"}}`)
	assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))
	rec = post(t, h, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, rec.Body.String())
}

func TestEachVersionHasItsOwnMethods(t *testing.T) {
	h := streamHandler(t)
	// 2026-07-28 removed logging/setLevel: 404 with method not found.
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug","_meta":`+meta2026+`}}`,
		headers2026("logging/setLevel", "")...)
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assertCode(t, mcp.CodeMethodNotFound, decodeReply(t, rec))
	// subscriptions/listen is 2026-07-28's only.
	for _, v := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		rec = post(t, h, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true}}}`,
			"MCP-Protocol-Version", v)
		assertCode(t, mcp.CodeMethodNotFound, decodeReply(t, rec))
	}
	// The version is the header's: a 2025 request whose _meta says
	// 2026-07-28 is still a 2025 request, without 2026-07-28's methods.
	rec = post(t, h, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":`+meta2026+`,"notifications":{"toolsListChanged":true}}}`,
		"MCP-Protocol-Version", "2025-11-25")
	assertCode(t, mcp.CodeMethodNotFound, decodeReply(t, rec))
}

// initialize declares caps and returns the capability token the handler
// issued ("" when none).
func initialize(t *testing.T, url, caps string) string {
	t.Helper()
	resp := rpc(t, context.Background(), url, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":`+caps+`,"clientInfo":{"name":"t","version":"1"}}}`)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	return resp.Header.Get("Mcp-Session-Id")
}

func TestInputRequestRoundTripOn2025(t *testing.T) {
	srv, _ := streamServer(t)
	token := initialize(t, srv.URL, `{"elicitation":{},"sampling":{},"roots":{}}`)
	require.NotEmpty(t, token)

	for _, tc := range []struct {
		tool    string
		answers map[string]string // method -> result
		want    string
	}{
		{"hello", map[string]string{"elicitation/create": `{"action":"accept","content":{"name":"Alice"}}`}, "Hello, Alice!"},
		{"two_rounds", map[string]string{
			"roots/list":             `{"roots":[{"uri":"file:///work","name":"work"}]}`,
			"sampling/createMessage": `{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}`,
		}, "file:///work Paris"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			resp := rpc(t, context.Background(), srv.URL, callBody(tc.tool, `{}`), "Mcp-Session-Id", token, "MCP-Protocol-Version", "2025-11-25")
			defer resp.Body.Close()
			require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
			ev := newEvents(t, resp.Body)
			for {
				m := ev.next()
				require.NotNil(t, m, "the stream ended without a response")
				method, _ := m["method"].(string)
				if method == "" { // the call's response
					assert.Equal(t, float64(1), m["id"])
					assert.Contains(t, fmt.Sprint(m["result"]), tc.want)
					assert.NotContains(t, fmt.Sprint(m["result"]), "isError:true")
					return
				}
				answer, ok := tc.answers[method]
				require.True(t, ok, "unexpected request %s", method)
				if method == "elicitation/create" {
					assert.Equal(t, "What is your name?", m["params"].(map[string]any)["message"])
					assert.NotContains(t, m["params"], "mode", "form mode is sent without mode")
				}
				id, _ := json.Marshal(m["id"])
				reply := rpc(t, context.Background(), srv.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, id, answer), "Mcp-Session-Id", token)
				assert.Equal(t, http.StatusAccepted, reply.StatusCode)
				reply.Body.Close()
			}
		})
	}
}

func TestAClientRefusalReachesTheTool(t *testing.T) {
	srv, _ := streamServer(t)
	token := initialize(t, srv.URL, `{"elicitation":{}}`)
	resp := rpc(t, context.Background(), srv.URL, callBody("hello", `{}`), "Mcp-Session-Id", token)
	defer resp.Body.Close()
	ev := newEvents(t, resp.Body)
	req := ev.next()
	require.Equal(t, "elicitation/create", req["method"])
	id, _ := json.Marshal(req["id"])
	rpc(t, context.Background(), srv.URL, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no elicitation here"}}`, id)).Body.Close()
	res := ev.next()
	assert.Contains(t, fmt.Sprint(res["result"]), "no elicitation here (code -32601)")
	assert.Contains(t, fmt.Sprint(res["result"]), "isError:true")
}

func TestAClientIsNotAskedWhatItDidNotDeclare(t *testing.T) {
	srv, _ := streamServer(t)
	for _, tc := range []struct{ name, caps string }{
		{"no capabilities, no token", `{}`},
		{"roots alone, no token", `{"roots":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			token := initialize(t, srv.URL, tc.caps)
			assert.Empty(t, token)
			resp := rpc(t, context.Background(), srv.URL, callBody("hello", `{}`))
			defer resp.Body.Close()
			assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "nothing was sent on a stream")
			body, _ := io.ReadAll(resp.Body)
			assert.Contains(t, string(body), toolexec.ErrInputUnsupported.Error())
			assert.Contains(t, string(body), `"isError":true`)
		})
	}
	// A token that declares sampling only does not admit elicitation.
	token := initialize(t, srv.URL, `{"sampling":{}}`)
	require.NotEmpty(t, token)
	resp := rpc(t, context.Background(), srv.URL, callBody("hello", `{}`), "Mcp-Session-Id", token)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(body), toolexec.ErrInputUnsupported.Error())
}

const meta2026 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`

// headers2026 are the headers a 2026-07-28 client sends with a request for
// method (and, when not "", the tool name).
func headers2026(method, name string) []string {
	hdr := []string{"MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
	if name != "" {
		hdr = append(hdr, "Mcp-Name", name)
	}
	return hdr
}

// post2026 posts a 2026-07-28 tools/call of tool with its headers, and hdr.
func post2026(t *testing.T, h http.Handler, tool, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	return post(t, h, body, append(headers2026("tools/call", tool), hdr...)...)
}

func call2026(tool, extra string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":%q,"arguments":{"x":1},"_meta":%s%s}}`, tool, meta2026, extra)
}

type inputRequired struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string         `json:"method"`
		Params map[string]any `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
}

func readInputRequired(t *testing.T, rec *httptest.ResponseRecorder) inputRequired {
	t.Helper()
	var resp struct {
		Result inputRequired `json:"result"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &resp), rec.Body.String())
	return resp.Result
}

func TestInputRequiredResultOn2026WithSignedState(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	h := streamHandler(t, mcp.WithInputStateKey(key))
	rec := post2026(t, h, "hello", call2026("hello", ""))
	require.Equal(t, http.StatusOK, rec.Code)
	first := readInputRequired(t, rec)
	assert.Equal(t, "input_required", first.ResultType)
	require.Contains(t, first.InputRequests, "user_name")
	assert.Equal(t, "elicitation/create", first.InputRequests["user_name"].Method)
	assert.Equal(t, "What is your name?", first.InputRequests["user_name"].Params["message"])
	require.NotEmpty(t, first.RequestState)

	answers := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`
	retry := func(h http.Handler, state string) *httptest.ResponseRecorder {
		return post2026(t, h, "hello", call2026("hello", answers+fmt.Sprintf(`,"requestState":%q`, state)))
	}

	t.Run("any replica with the key resumes the call", func(t *testing.T) {
		replica := streamHandler(t, mcp.WithInputStateKey(key))
		res := callResult(t, retry(replica, first.RequestState))
		assert.False(t, res.IsError)
		assert.Equal(t, "Hello, Alice!", res.Content[0].(*toolexec.TextContent).Text)
	})
	t.Run("a tampered state is refused", func(t *testing.T) {
		tampered := []byte(first.RequestState)
		tampered[len(tampered)/3] ^= 1
		rec := retry(h, string(tampered))
		assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))
	})
	t.Run("another key refuses the state", func(t *testing.T) {
		rec := retry(streamHandler(t), first.RequestState)
		assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))
	})
	t.Run("the state is bound to its arguments", func(t *testing.T) {
		body := strings.Replace(call2026("hello", answers+fmt.Sprintf(`,"requestState":%q`, first.RequestState)), `{"x":1}`, `{"x":2}`, 1)
		assertCode(t, mcp.CodeInvalidParams, decodeReply(t, post2026(t, h, "hello", body)))
	})
	t.Run("the state is bound to the caller's credentials", func(t *testing.T) {
		rec := post2026(t, h, "hello", call2026("hello", answers+fmt.Sprintf(`,"requestState":%q`, first.RequestState)), "Authorization", "Bearer other")
		assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))
	})
	t.Run("a missing answer is asked again", func(t *testing.T) {
		rec := post2026(t, h, "hello", call2026("hello", `,"inputResponses":{"other":{"action":"accept"}}`))
		again := readInputRequired(t, rec)
		assert.Equal(t, "input_required", again.ResultType)
		assert.Contains(t, again.InputRequests, "user_name")
	})
	t.Run("inputResponses that are not results are invalid params", func(t *testing.T) {
		rec := post2026(t, h, "hello", call2026("hello", `,"inputResponses":["nope"]`))
		assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))
	})
}

func TestMultiRoundStateCarriesEarlierAnswers(t *testing.T) {
	h := streamHandler(t)
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{}}}`
	call := func(extra string) *httptest.ResponseRecorder {
		return post2026(t, h, "two_rounds", fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"two_rounds","_meta":%s%s}}`, meta, extra))
	}
	r1 := readInputRequired(t, call(""))
	require.Contains(t, r1.InputRequests, "roots")
	assert.Equal(t, "roots/list", r1.InputRequests["roots"].Method)
	r2 := readInputRequired(t, call(fmt.Sprintf(`,"inputResponses":{"roots":{"roots":[{"uri":"file:///a"}]}},"requestState":%q`, r1.RequestState)))
	require.Contains(t, r2.InputRequests, "question")
	assert.NotContains(t, r2.InputRequests, "roots")
	res := callResult(t, call(fmt.Sprintf(`,"inputResponses":{"question":{"role":"assistant","content":{"type":"text","text":"Paris"},"model":"m"}},"requestState":%q`, r2.RequestState)))
	assert.Equal(t, "file:///a Paris", res.Content[0].(*toolexec.TextContent).Text)
}

func TestA2026ClientIsNotAskedWhatItDidNotDeclare(t *testing.T) {
	h := streamHandler(t)
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"hello","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}}}}}`
	rec := post2026(t, h, "hello", body)
	assert.NotContains(t, rec.Body.String(), "input_required")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32021,`+
		`"message":"Missing required client capability: the tool needs input the client did not declare it can give",`+
		`"data":{"requiredCapabilities":{"elicitation":{}}}}}`, rec.Body.String())
}

func TestA2026ToolThatDoesWithoutTheInputIsNotRefused(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "maybe", Description: "asks only when it can"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			if !toolexec.InputSupported(ctx, toolexec.InputKindSampling) {
				return []toolexec.Content{toolexec.Text("did without")}, false, "", nil
			}
			return nil, false, "", errors.New("not reached")
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())))
	res := callResult(t, post2026(t, h, "maybe", call2026("maybe", "")))
	assert.False(t, res.IsError)
	assert.Equal(t, "did without", res.Content[0].(*toolexec.TextContent).Text)
}

func TestListenAcknowledgesThenSendsListChanged(t *testing.T) {
	srv, reg := streamServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := rpc(t, ctx, srv.URL, `{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"_meta":`+meta2026+`,"notifications":{"toolsListChanged":true,"promptsListChanged":true}}}`,
		headers2026("subscriptions/listen", "")...)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	ev := newEvents(t, resp.Body)
	ack := ev.next()
	require.Equal(t, "notifications/subscriptions/acknowledged", ack["method"])
	params := ack["params"].(map[string]any)
	assert.Equal(t, map[string]any{"io.modelcontextprotocol/subscriptionId": "sub-1"}, params["_meta"])
	assert.Equal(t, map[string]any{"toolsListChanged": true}, params["notifications"], "prompts are not served, so not acknowledged")

	reg.MustAdd(toolexec.Tool{Name: "late", Description: "added while listening"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	changed := ev.next()
	require.Equal(t, "notifications/tools/list_changed", changed["method"])
	assert.Equal(t, map[string]any{"io.modelcontextprotocol/subscriptionId": "sub-1"}, changed["params"].(map[string]any)["_meta"])
}

func TestListenWithoutToolsListChangedAcknowledgesNothing(t *testing.T) {
	srv, _ := streamServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := rpc(t, ctx, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":`+meta2026+`,"notifications":{}}}`, headers2026("subscriptions/listen", "")...)
	defer resp.Body.Close()
	ack := newEvents(t, resp.Body).next()
	assert.Equal(t, map[string]any{}, ack["params"].(map[string]any)["notifications"])
}

func TestAClientDisconnectEndsTheStreamAndCancelsTheTool(t *testing.T) {
	for _, tt := range []struct {
		name   string
		window time.Duration
	}{
		{"at once without resumption", -1},
		{"once the resume window passes without a client", 100 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			canceled := make(chan error, 1)
			reg := toolexec.NewRegistry()
			reg.MustAdd(toolexec.Tool{Name: "long", Description: "waits for its caller to leave"},
				func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
					_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1})
					<-ctx.Done()
					canceled <- ctx.Err()
					return nil, false, "", ctx.Err()
				})
			srv := httptest.NewServer(mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())),
				mcp.WithResumeWindow(tt.window)))
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			resp := rpc(t, ctx, srv.URL, callWithMeta("long", `{"progressToken":"p"}`))
			first := newEvents(t, resp.Body).next()
			require.Equal(t, "notifications/progress", first["method"])
			cancel()
			resp.Body.Close()
			select {
			case err := <-canceled:
				assert.True(t, errors.Is(err, context.Canceled))
			case <-time.After(10 * time.Second):
				t.Fatal("the tool's context did not end when the client went away")
			}
		})
	}
}

func TestAnUnknownResponseIsAccepted(t *testing.T) {
	rec := post(t, streamHandler(t), `{"jsonrpc":"2.0","id":"toolexec-unknown","result":{}}`)
	assert.Equal(t, http.StatusAccepted, rec.Code)
}

func assertCode(t *testing.T, code int, reply rpcReply) {
	t.Helper()
	require.NotNil(t, reply.Error, "an error response")
	assert.Equal(t, code, reply.Error.Code)
}

func TestNotificationsCancelledCancelsTheCallOfTheClientThatSentIt(t *testing.T) {
	canceled := make(chan error, 1)
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "long", Description: "waits to be cancelled"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1})
			<-ctx.Done()
			canceled <- ctx.Err()
			return nil, false, "", ctx.Err()
		})
	srv := httptest.NewServer(mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))))
	defer srv.Close()
	token := initialize(t, srv.URL, `{"sampling":{}}`)
	other := initialize(t, srv.URL, `{"sampling":{}}`)
	require.NotEqual(t, token, other)

	resp := rpc(t, context.Background(), srv.URL, callWithMeta("long", `{"progressToken":"p"}`), "Mcp-Session-Id", token)
	defer resp.Body.Close()
	ev := newEvents(t, resp.Body)
	require.Equal(t, "notifications/progress", ev.next()["method"])

	cancelBody := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`
	// Another client's cancellation of its own id 7 does not reach this call.
	r := rpc(t, context.Background(), srv.URL, cancelBody, "Mcp-Session-Id", other)
	assert.Equal(t, http.StatusAccepted, r.StatusCode)
	r.Body.Close()
	select {
	case <-canceled:
		t.Fatal("another client's cancellation cancelled the call")
	default:
	}
	r = rpc(t, context.Background(), srv.URL, cancelBody, "Mcp-Session-Id", token)
	r.Body.Close()
	select {
	case err := <-canceled:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the call")
	}
	last := ev.next()
	assert.Equal(t, float64(7), last["id"], "the stream still ends with the call's response")
}

func TestAnUnansweredInputRequestTimesOut(t *testing.T) {
	srv, _ := streamServer(t, mcp.WithInputTimeout(time.Millisecond))
	token := initialize(t, srv.URL, `{"elicitation":{}}`)
	resp := rpc(t, context.Background(), srv.URL, callBody("hello", `{}`), "Mcp-Session-Id", token)
	defer resp.Body.Close()
	ev := newEvents(t, resp.Body)
	require.Equal(t, "elicitation/create", ev.next()["method"])
	res := fmt.Sprint(ev.next()["result"])
	assert.Contains(t, res, "the client did not answer in time")
	assert.Contains(t, res, "isError:true")
}

func TestURLElicitationNeedsTheURLCapability(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "login", Description: "sends the user to a page"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			res, err := toolexec.Elicit(ctx, "login", toolexec.ElicitRequest{Mode: toolexec.ElicitModeURL,
				Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e-1"})
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text(res.Action)}, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())))
	body := func(caps string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}}}`
	}
	rec := post2026(t, h, "login", body(`{"elicitation":{}}`))
	assert.Equal(t, http.StatusBadRequest, rec.Code, "form-only elicitation does not admit URL mode")
	assertCode(t, mcp.CodeMissingClientCapability, decodeReply(t, rec))
	assert.Contains(t, rec.Body.String(), `"requiredCapabilities":{"elicitation":{"url":{}}}`)

	asked := readInputRequired(t, post2026(t, h, "login", body(`{"elicitation":{"url":{}}}`)))
	require.Contains(t, asked.InputRequests, "login")
	assert.Equal(t, map[string]any{"mode": "url", "message": "Sign in", "url": "https://example.com/login", "elicitationId": "e-1"},
		asked.InputRequests["login"].Params)
}

func TestProgressThatDoesNotIncreaseIsDropped(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "wobbly", Description: "reports progress out of order"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			for _, p := range []float64{1, 3, 2, 3, 4} {
				_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: p})
			}
			return nil, false, "", nil
		})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())))
	var got []float64
	for _, m := range sseMessages(t, post(t, h, callWithMeta("wobbly", `{"progressToken":"w"}`)).Body.String()) {
		if m["method"] == "notifications/progress" {
			got = append(got, m["params"].(map[string]any)["progress"].(float64))
		}
	}
	assert.Equal(t, []float64{1, 3, 4}, got)
}

// The version is the MCP-Protocol-Version header's: a 2025 tools/call whose
// _meta declares 2026-07-28 and its capabilities is still a 2025 call,
// whose client declared nothing in initialize, so it is not asked.
func TestA2025CallIsNotServedAs2026ByItsMeta(t *testing.T) {
	rec := post(t, streamHandler(t), call2026("hello", ""), "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.NotContains(t, rec.Body.String(), "input_required")
	res := callResult(t, rec)
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*toolexec.TextContent).Text, toolexec.ErrInputUnsupported.Error())
}
