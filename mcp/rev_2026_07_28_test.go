package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/observetest"
	"github.com/toolexec/toolexec/mcp"
)

const modern = "2026-07-28"

// validMeta is the _meta a 2026-07-28 client sends on every request.
const validMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"test","version":"1"}}`

// modernBody is a 2026-07-28 request of method with params (an object's
// members, without braces) and validMeta.
func modernBody(method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":{%s"_meta":%s}}`, method, params, validMeta)
}

// postModern sends body with the headers a 2026-07-28 client sends for
// method (and name, when not ""), overridden or removed by hdr.
func postModern(t *testing.T, h http.Handler, method, name, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	base := []string{"MCP-Protocol-Version", modern, "Mcp-Method", method}
	if name != "" {
		base = append(base, "Mcp-Name", name)
	}
	return post(t, h, body, append(base, hdr...)...)
}

// The test's Registry reports tool changes, so tools.listChanged is true.
func TestModernServerDiscoverDescribesTheServer(t *testing.T) {
	h := newHandler(t, nil, mcp.WithServerInfo("srv", "9.9"), mcp.WithInstructions("be nice"))
	rec := postModern(t, h, "server/discover", "", modernBody("server/discover", ""))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.JSONEq(t, `{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"],
		"capabilities":{"tools":{"listChanged":true},"logging":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"instructions":"be nice","ttlMs":0,"cacheScope":"private",
		"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"srv","version":"9.9"}}}`, string(decodeReply(t, rec).Result))
}

func TestModernToolsListCarriesCacheHintsInNameOrder(t *testing.T) {
	h := newHandler(t, nil, mcp.WithServerInfo("srv", "1"), mcp.WithCacheHints(90*time.Second, mcp.CachePublic))
	rec := postModern(t, h, "tools/list", "", modernBody("tools/list", ""))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var res struct {
		ResultType string `json:"resultType"`
		TTLMs      int64  `json:"ttlMs"`
		CacheScope string `json:"cacheScope"`
		Tools      []struct{ Name string }
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
	assert.Equal(t, "complete", res.ResultType)
	assert.Equal(t, int64(90000), res.TTLMs)
	assert.Equal(t, "public", res.CacheScope)
	assert.JSONEq(t, `{"name":"srv","version":"1"}`, string(res.Meta["io.modelcontextprotocol/serverInfo"]))
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	assert.Equal(t, []string{"database_query", "explode", "search_documents", "soft_fail", "weather_get", "whoami"}, names)
}

func TestModernToolsCallResultIsCompleteAndNamesTheServer(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "traced"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "trace-1", nil
	})
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)), mcp.WithServerInfo("srv", "1"))
	rec := postModern(t, h, "tools/call", "traced", modernBody("tools/call", `"name":"traced","arguments":{}`))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.JSONEq(t, `{"resultType":"complete","content":[{"type":"text","text":"ok"}],"isError":false,
		"_meta":{"_trace_id":"trace-1","io.modelcontextprotocol/serverInfo":{"name":"srv","version":"1"}}}`,
		string(decodeReply(t, rec).Result))

	// The 2025 versions answer exactly as before.
	rec = post(t, h, callBody("traced", `{}`), "MCP-Protocol-Version", "2025-11-25")
	assert.JSONEq(t, `{"content":[{"type":"text","text":"ok"}],"isError":false,"_meta":{"_trace_id":"trace-1"}}`,
		string(decodeReply(t, rec).Result))
}

func TestModernToolErrorsAreStillResults(t *testing.T) {
	h := newHandler(t, nil)
	rec := postModern(t, h, "tools/call", "database_query", modernBody("tools/call", `"name":"database_query"`))
	require.Equal(t, http.StatusOK, rec.Code)
	var res struct {
		ResultType string `json:"resultType"`
		IsError    bool   `json:"isError"`
	}
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
	assert.Equal(t, "complete", res.ResultType)
	assert.True(t, res.IsError)
}

func TestModernRequestsNeedValidMeta(t *testing.T) {
	h := newHandler(t, nil)
	for name, params := range map[string]string{
		"no params":                  ``,
		"no _meta":                   `,"params":{}`,
		"_meta not an object":        `,"params":{"_meta":[]}`,
		"no protocolVersion":         `,"params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`,
		"no clientCapabilities":      `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		"capabilities not an object": `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":true}}`,
		"clientInfo not an object":   `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"x"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			rec := postModern(t, h, "tools/list", "", `{"jsonrpc":"2.0","id":3,"method":"tools/list"`+params+`}`)
			assert.Equal(t, http.StatusBadRequest, rec.Code)
			r := decodeReply(t, rec)
			require.NotNil(t, r.Error)
			assert.Equal(t, mcp.CodeInvalidParams, r.Error.Code)
			assert.JSONEq(t, `3`, string(r.ID))
		})
	}
	// clientInfo is optional.
	body := `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	assert.Equal(t, http.StatusOK, postModern(t, h, "tools/list", "", body).Code)
}

func TestModernHeadersMustMatchTheBody(t *testing.T) {
	h := newHandler(t, nil)
	call := modernBody("tools/call", `"name":"weather_get","arguments":{"location":"Paris"}`)
	cases := []struct {
		name string
		hdr  []string
		want int
	}{
		{"all match", nil, http.StatusOK},
		{"white space around values", []string{"Mcp-Method", "  tools/call ", "Mcp-Name", " weather_get"}, http.StatusOK},
		{"Base64 name", []string{"Mcp-Name", "=?base64?d2VhdGhlcl9nZXQ=?="}, http.StatusOK},
		{"no Mcp-Method", []string{"Mcp-Method", ""}, http.StatusBadRequest},
		{"other method", []string{"Mcp-Method", "tools/list"}, http.StatusBadRequest},
		{"method case differs", []string{"Mcp-Method", "TOOLS/CALL"}, http.StatusBadRequest},
		{"no Mcp-Name", []string{"Mcp-Name", ""}, http.StatusBadRequest},
		{"other name", []string{"Mcp-Name", "explode"}, http.StatusBadRequest},
		{"bad Base64 name", []string{"Mcp-Name", "=?base64?d2VhdGhlcl9nZXQ?="}, http.StatusBadRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := postModern(t, h, "tools/call", "weather_get", call, c.hdr...)
			require.Equal(t, c.want, rec.Code, rec.Body.String())
			if c.want != http.StatusOK {
				r := decodeReply(t, rec)
				require.NotNil(t, r.Error)
				assert.Equal(t, mcp.CodeHeaderMismatch, r.Error.Code)
				assert.JSONEq(t, `7`, string(r.ID))
			}
		})
	}
	t.Run("_meta version differs from the header", func(t *testing.T) {
		body := strings.Replace(call, `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/protocolVersion":"v999"`, 1)
		rec := postModern(t, h, "tools/call", "weather_get", body)
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, mcp.CodeHeaderMismatch, decodeReply(t, rec).Error.Code)
	})
	t.Run("_meta declares 2026-07-28 without the header", func(t *testing.T) {
		rec := post(t, h, call)
		assert.Equal(t, http.StatusBadRequest, rec.Code)
		assert.Equal(t, mcp.CodeHeaderMismatch, decodeReply(t, rec).Error.Code)
	})
}

func TestModernUnsupportedVersionListsTheSupportedOnes(t *testing.T) {
	h := newHandler(t, nil)
	rec := postModern(t, h, "server/discover", "", modernBody("server/discover", ""), "MCP-Protocol-Version", "v999.0.0")
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	r := decodeReply(t, rec)
	assert.Equal(t, mcp.CodeUnsupportedProtocolVersion, r.Error.Code)
	assert.JSONEq(t, `7`, string(r.ID))
	assert.JSONEq(t, `{"supported":["2026-07-28","2025-11-25","2025-06-18","2025-03-26"],"requested":"v999.0.0"}`, string(r.Error.Data))
}

func TestModernRemovedAndUnknownMethodsAnswer404(t *testing.T) {
	h := newHandler(t, nil)
	for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
		"resources/list", "prompts/list", "completion/complete", "no/such"} {
		rec := postModern(t, h, method, "", modernBody(method, ""))
		assert.Equal(t, http.StatusNotFound, rec.Code, method)
		r := decodeReply(t, rec)
		assert.Equal(t, mcp.CodeMethodNotFound, r.Error.Code, method)
		assert.JSONEq(t, `7`, string(r.ID))
	}
	// The 2025 versions keep initialize and ping, and answer unknown
	// methods with 200.
	assert.Equal(t, http.StatusOK, post(t, h, pingBody, "MCP-Protocol-Version", "2025-11-25").Code)
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"no/such"}`, "MCP-Protocol-Version", "2025-11-25")
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, mcp.CodeMethodNotFound, decodeReply(t, rec).Error.Code)
}

func TestModernNotificationsAreAccepted(t *testing.T) {
	h := newHandler(t, nil)
	rec := postModern(t, h, "notifications/cancelled", "", `{"jsonrpc":"2.0","method":"notifications/cancelled"}`)
	assert.Equal(t, http.StatusAccepted, rec.Code)
	assert.Empty(t, rec.Body.String())
}

func TestModernBatchesAreRefused(t *testing.T) {
	h := newHandler(t, nil)
	rec := postModern(t, h, "tools/list", "", `[`+modernBody("tools/list", "")+`]`)
	assert.Equal(t, http.StatusBadRequest, rec.Code)
	assert.Equal(t, mcp.CodeInvalidRequest, decodeReply(t, rec).Error.Code)
}

// regionHandler serves a tool that mirrors its region (string), priority (integer) and
// verbose (boolean) parameters, and the nested where.zone, into headers.
func regionHandler(t *testing.T, ran *int) http.Handler {
	t.Helper()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "region", InputSchema: json.RawMessage(`{"type":"object","properties":{
		"region":{"type":["string","null"],"x-mcp-header":"Region"},
		"priority":{"type":"integer","x-mcp-header":"Priority"},
		"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
		"where":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
		"query":{"type":"string"}}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			*ran++
			return []toolexec.Content{toolexec.Text("ran")}, false, "", nil
		})
	return mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))
}

func TestModernParamHeadersMustMatchTheArguments(t *testing.T) {
	cases := []struct {
		name string
		args string
		hdr  []string
		ok   bool
	}{
		{"string", `{"region":"us-west1"}`, []string{"Mcp-Param-Region", "us-west1"}, true},
		{"header name case", `{"region":"us-west1"}`, []string{"mcp-param-region", "us-west1"}, true},
		{"Base64", `{"region":"Hello, 世界"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8sIOS4lueVjA==?="}, true},
		{"no sentinel suffix is literal", `{"region":"=?base64?SGVsbG8="}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8="}, true},
		{"integer compared as a number", `{"priority":42}`, []string{"Mcp-Param-Priority", "42.0"}, true},
		{"boolean", `{"verbose":true}`, []string{"Mcp-Param-Verbose", "true"}, true},
		{"nested", `{"where":{"zone":"a"}}`, []string{"Mcp-Param-Zone", "a"}, true},
		{"null needs no header", `{"region":null,"query":"q"}`, nil, true},
		{"absent needs no header", `{"query":"q"}`, nil, true},
		{"missing header", `{"region":"us-west1"}`, nil, false},
		{"other value", `{"region":"us-west1"}`, []string{"Mcp-Param-Region", "eu-west1"}, false},
		{"bad Base64 padding", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVsbG8?="}, false},
		{"bad Base64 characters", `{"region":"Hello"}`, []string{"Mcp-Param-Region", "=?base64?SGVs!!!bG8=?="}, false},
		{"other integer", `{"priority":42}`, []string{"Mcp-Param-Priority", "43"}, false},
		{"huge exponent", `{"priority":42}`, []string{"Mcp-Param-Priority", "1e999999999"}, false},
		{"boolean spelled otherwise", `{"verbose":true}`, []string{"Mcp-Param-Verbose", "True"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ran := 0
			h := regionHandler(t, &ran)
			rec := postModern(t, h, "tools/call", "region", modernBody("tools/call", `"name":"region","arguments":`+c.args), c.hdr...)
			if c.ok {
				assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
				assert.Equal(t, 1, ran)
				return
			}
			assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assert.Equal(t, mcp.CodeHeaderMismatch, decodeReply(t, rec).Error.Code)
			assert.Zero(t, ran, "the tool never runs")
		})
	}
}

func TestModernTraceContextInMetaReachesTheObserver(t *testing.T) {
	rec := &observetest.Recorder{}
	h := newHandler(t, []toolexec.Option{toolexec.WithObserver(rec)})
	meta := `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},
		"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01","tracestate":"vendor=1","baggage":"tenant=acme"}`
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Paris"},"_meta":` + meta + `}}`
	res := postModern(t, h, "tools/call", "weather_get", body)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	calls := rec.Calls()
	require.Len(t, calls, 1)
	assert.True(t, calls[0].HasTrace, "the call's context carries the trace context of _meta")
	assert.Equal(t, toolexec.TraceContext{
		Traceparent: "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
		Tracestate:  "vendor=1",
		Baggage:     "tenant=acme",
	}, calls[0].TraceContext)

	// Without trace context in _meta, the call carries none.
	rec2 := &observetest.Recorder{}
	h2 := newHandler(t, []toolexec.Option{toolexec.WithObserver(rec2)})
	plain := strings.Replace(body, `,
		"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01","tracestate":"vendor=1","baggage":"tenant=acme"`, "", 1)
	require.Equal(t, http.StatusOK, postModern(t, h2, "tools/call", "weather_get", plain).Code)
	require.Len(t, rec2.Calls(), 1)
	assert.False(t, rec2.Calls()[0].HasTrace)
}

// TestToolsListFollowsPerCallerListsAtEveryVersion: with a ToolFilter, the
// tool list of every protocol version shows a caller only what the filter
// lets it see.
func TestToolsListFollowsPerCallerListsAtEveryVersion(t *testing.T) {
	onlyWhoami := func(_ *http.Request, tools []toolexec.Tool) []toolexec.Tool {
		var out []toolexec.Tool
		for _, tool := range tools {
			if tool.Name == "whoami" {
				out = append(out, tool)
			}
		}
		return out
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithToolFilter(onlyWhoami)})
	names := func(rec *httptest.ResponseRecorder) []string {
		t.Helper()
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var res struct{ Tools []struct{ Name string } }
		require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	assert.Equal(t, []string{"whoami"}, names(postModern(t, h, "tools/list", "", modernBody("tools/list", ""))), modern)
	for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
		rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "MCP-Protocol-Version", v)
		assert.Equal(t, []string{"whoami"}, names(rec), v)
	}
}
