package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

func initializeBody(version string) string {
	return `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version +
		`","capabilities":{},"clientInfo":{"name":"test","version":"1.0"}}}`
}

func TestInitializeNegotiatesTheProtocolVersion(t *testing.T) {
	h := newHandler(t, nil)
	cases := map[string]string{
		"2025-11-25": "2025-11-25",
		"2025-06-18": "2025-06-18",
		"2025-03-26": "2025-03-26",
		"2026-07-28": "2025-11-25", // newer than we know: our newest
		"2099-01-01": "2025-11-25",
		"2024-11-05": "2025-11-25", // older than we speak: our newest, the client decides
		"bogus":      "2025-11-25",
	}
	for requested, want := range cases {
		rec := post(t, h, initializeBody(requested))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
		assert.Equal(t, want, res.ProtocolVersion, "requested %s", requested)
	}
}

func TestInitializeDescribesTheServer(t *testing.T) {
	h := newHandler(t, nil, mcp.WithServerInfo("weather-service", "2.3.1"), mcp.WithInstructions("Ask for the weather."))
	rec := post(t, h, initializeBody("2025-06-18"))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":0,"result":{
		"protocolVersion":"2025-06-18",
		"capabilities":{"tools":{"listChanged":false},"logging":{}},
		"serverInfo":{"name":"weather-service","version":"2.3.1"},
		"instructions":"Ask for the weather."}}`, rec.Body.String())
}

func TestInitializeDefaultsNameAndOmitsInstructions(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `{"jsonrpc":"2.0","id":0,"method":"initialize"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	var res map[string]any
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
	assert.Equal(t, "2025-11-25", res["protocolVersion"], "no version asked: the newest")
	info := res["serverInfo"].(map[string]any)
	assert.Equal(t, "toolexec", info["name"])
	assert.NotEmpty(t, info["version"])
	assert.NotContains(t, res, "instructions")
}

func TestInitializeWithMalformedParamsIsInvalidParams(t *testing.T) {
	h := newHandler(t, nil)
	for _, params := range []string{`[]`, `{"protocolVersion":20250618}`} {
		rec := post(t, h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":`+params+`}`)
		require.Equal(t, http.StatusOK, rec.Code)
		assert.Equal(t, mcp.CodeInvalidParams, decodeReply(t, rec).Error.Code, params)
	}
}

func TestPingAnswersAnEmptyResult(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `{"jsonrpc":"2.0","id":"p","method":"ping","params":{}}`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":"p","result":{}}`, rec.Body.String())
}

func TestToolsListShowsEveryMCPToolField(t *testing.T) {
	reg := toolexec.NewRegistry()
	noop := func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil }
	reg.MustAdd(toolexec.Tool{
		Name:         "image/resize",
		Title:        "Resize an image",
		Description:  "Scales an image",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"width":{"type":"integer"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}}}`),
		Annotations:  &toolexec.ToolAnnotations{Title: "Resize", ReadOnlyHint: toolexec.Bool(true), DestructiveHint: toolexec.Bool(false)},
		Meta:         map[string]any{"owner": "media"},
	}, noop)
	reg.MustAdd(toolexec.Tool{Name: "bare"}, noop)
	reg.MustAdd(toolexec.Tool{Name: "bare", Version: "2.0.0", Description: "newest"}, noop)
	h := mcp.NewHandler(toolexec.New(reg, reg))

	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[
		{"name":"image/resize","title":"Resize an image","description":"Scales an image",
		 "inputSchema":{"type":"object","properties":{"width":{"type":"integer"}}},
		 "outputSchema":{"type":"object","properties":{"url":{"type":"string"}}},
		 "annotations":{"title":"Resize","readOnlyHint":true,"destructiveHint":false},
		 "_meta":{"owner":"media"}},
		{"name":"bare","description":"newest","inputSchema":{"type":"object"}}
	]}}`, rec.Body.String())
}

func TestToolsListWorksWhileExecutionIsDisabled(t *testing.T) {
	reg := fixtureRegistry()
	h := mcp.NewHandler(toolexec.New(reg, reg)) // the gate is closed by default
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Contains(t, rec.Body.String(), `"weather_get"`)
}

func TestToolsListPagesWithCursors(t *testing.T) {
	reg := toolexec.NewRegistry()
	for i := range 5 {
		reg.MustAdd(toolexec.Tool{Name: fmt.Sprintf("t%d", i)}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", nil
		})
	}
	h := mcp.NewHandler(toolexec.New(reg, reg), mcp.WithPageSize(2))

	var names []string
	cursor := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 5, "paging must end")
		params := `{}`
		if cursor != "" {
			params = `{"cursor":"` + cursor + `"}`
		}
		rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`)
		require.Equal(t, http.StatusOK, rec.Code)
		var res struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
			NextCursor *string `json:"nextCursor"`
		}
		require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
		assert.LessOrEqual(t, len(res.Tools), 2)
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		if res.NextCursor == nil {
			break
		}
		require.NotEmpty(t, *res.NextCursor)
		cursor = *res.NextCursor
	}
	assert.Equal(t, []string{"t0", "t1", "t2", "t3", "t4"}, names)
}

func TestToolsListAnswersEverythingInOnePageByDefault(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	var res map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(decodeReply(t, rec).Result, &res))
	var tools []any
	require.NoError(t, json.Unmarshal(res["tools"], &tools))
	assert.Len(t, tools, len(fixtureRegistry().Tools()))
	assert.NotContains(t, res, "nextCursor")
}

func TestToolsListRefusesABadCursor(t *testing.T) {
	h := newHandler(t, nil, mcp.WithPageSize(1))
	for _, params := range []string{`{"cursor":"not base64!"}`, `{"cursor":"aGVsbG8"}`, `{"cursor":7}`, `[1]`} {
		rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":`+params+`}`)
		require.Equal(t, http.StatusOK, rec.Code)
		r := decodeReply(t, rec)
		require.NotNil(t, r.Error, params)
		assert.Equal(t, mcp.CodeInvalidParams, r.Error.Code, params)
	}
}

func TestToolsListLeavesOutAToolThatCannotBeEncoded(t *testing.T) {
	broken := toolexec.StaticTools{
		{Name: "broken", InputSchema: json.RawMessage(`{not json`)},
		{Name: "fine"},
	}
	h := mcp.NewHandler(toolexec.New(broken, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}, toolexec.WithLogger(quietLogger())))
	rec := post(t, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"fine","inputSchema":{"type":"object"}}]}}`, rec.Body.String())
}

func TestAPanickingToolProviderIsAnInternalErrorForThatRequestOnly(t *testing.T) {
	provider := toolexec.ToolProviderFunc(func() []toolexec.Tool { panic("provider down") })
	h := mcp.NewHandler(toolexec.New(provider, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	}, toolexec.WithLogger(quietLogger())))
	rec := post(t, h, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, rec.Code)
	r := decodeReply(t, rec)
	assert.Equal(t, "5", string(r.ID))
	assert.Equal(t, mcp.CodeInternalError, r.Error.Code)
	assert.NotContains(t, rec.Body.String(), "provider down", "no internals on the wire")
}

func TestToolsCallWorksWithoutInitialize(t *testing.T) {
	h := newHandler(t, nil)
	rec := post(t, h, callBody("weather_get", `{"location":"San Francisco","units":"celsius"}`), "Accept", "")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"temperature\": 18, \"condition\": \"Partly cloudy\", \"humidity\": 65}"}],"isError":false}}`, rec.Body.String())
}

func TestToolsCallKeepsTheTraceIDAndStructuredContent(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "traced"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "abc-123", nil
	})
	reg.MustAdd(toolexec.Tool{Name: "structured", Options: toolexec.ToolOptions{Interceptors: []toolexec.Interceptor{
		func(toolexec.CallFunc) toolexec.CallFunc {
			return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
				return &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(`{"n":1}`)}, StructuredContent: map[string]any{"n": 1}}, nil
			}
		},
	}}}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	rec := post(t, h, callBody("traced", `{}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}],"isError":false,"_meta":{"_trace_id":"abc-123"}}}`, rec.Body.String())
	rec = post(t, h, callBody("structured", `{}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1},"isError":false}}`, rec.Body.String())
}

func TestToolFailuresAreResultsWithIsError(t *testing.T) {
	h := newHandler(t, nil)
	cases := map[string]struct{ tool, wantText string }{
		"handler error":     {"database_query", "Connection timeout"},
		"panic":             {"explode", toolexec.PanicMessage},
		"logical isError":   {"soft_fail", "city not found"},
		"validation failed": {"weather_get", "/location: missing property 'location'"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			rec := post(t, h, callBody(c.tool, `{"units":"celsius"}`))
			res := callResult(t, rec)
			assert.True(t, res.IsError)
			assert.Equal(t, c.wantText, res.Text())
			assert.NotContains(t, rec.Body.String(), "goroutine", "never a stack trace")
		})
	}
}

func TestProtocolErrorsOfToolsCall(t *testing.T) {
	h := newHandler(t, nil)
	cases := []struct {
		name, params, wantMsg string
	}{
		{"unknown tool", `{"name":"no_such_tool"}`, "Unknown tool: no_such_tool"},
		{"no name", `{"arguments":{}}`, "Invalid params: name is required"},
		{"empty name", `{"name":""}`, "Invalid params: name is required"},
		{"name not a string", `{"name":42}`, "Invalid params: name must be a string"},
		{"params an array", `["weather_get"]`, "Invalid params: params must be an object"},
		{"arguments an array", `{"name":"weather_get","arguments":[1,2]}`, "Invalid params: arguments must be a JSON object"},
		{"arguments a string", `{"name":"weather_get","arguments":"location=Paris"}`, "Invalid params: arguments must be a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := post(t, h, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":`+c.params+`}`)
			require.Equal(t, http.StatusOK, rec.Code)
			r := decodeReply(t, rec)
			assert.Equal(t, `"c"`, string(r.ID))
			require.NotNil(t, r.Error, rec.Body.String())
			assert.Equal(t, mcp.CodeInvalidParams, r.Error.Code)
			assert.Equal(t, c.wantMsg, r.Error.Message)
			assert.Nil(t, r.Result)
		})
	}
}

func TestToolsCallWhileExecutionIsDisabledIsAJSONRPCErrorWithStatus200(t *testing.T) {
	var ran atomic.Bool
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "t"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		ran.Store(true)
		return nil, false, "", nil
	})
	h := mcp.NewHandler(toolexec.New(reg, reg))
	rec := post(t, h, callBody("t", `{}`))
	require.Equal(t, http.StatusOK, rec.Code)
	r := decodeReply(t, rec)
	require.NotNil(t, r.Error)
	assert.Equal(t, mcp.CodeExecutionDisabled, r.Error.Code)
	assert.Equal(t, "Tool execution is disabled.", r.Error.Message)
	assert.False(t, ran.Load())
}

// denyAll is an auth hook that refuses every call.
func denyAll(http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "token expired for user 42", http.StatusForbidden)
	})
}

func xoptsDenyAll() []toolexec.Option {
	return []toolexec.Option{toolexec.WithAuthHook(denyAll)}
}

// bearerAuth accepts "Authorization: Bearer good" and stores the user.
func bearerAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "alice")))
	})
}

func TestAnAuthHookRefusalAnswers401WithABearerChallenge(t *testing.T) {
	h := newHandler(t, []toolexec.Option{toolexec.WithAuthHook(bearerAuth)})
	rec := post(t, h, callBody("whoami", `{}`), "Authorization", "Bearer bad")
	assert.Equal(t, http.StatusUnauthorized, rec.Code)
	assert.JSONEq(t, `{"error":"Unauthorized"}`, rec.Body.String())
	assert.Equal(t, "Bearer", rec.Header().Get("WWW-Authenticate"))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))

	rec = post(t, h, callBody("whoami", `{}`), "Authorization", "Bearer good")
	res := callResult(t, rec)
	assert.Equal(t, "user=alice", res.Text(), "the identity the hook found reaches the handler")
}

func TestTheAuthHookGuardsCallsOnlyNeverDiscovery(t *testing.T) {
	h := newHandler(t, xoptsDenyAll())
	for _, body := range []string{initializeBody("2025-11-25"), pingBody, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`} {
		assert.Equal(t, http.StatusOK, post(t, h, body).Code, body)
	}
	assert.Equal(t, http.StatusUnauthorized, post(t, h, callBody("weather_get", `{"location":"x"}`)).Code)
}

func TestTheAuthHookCanReadTheWholeBody(t *testing.T) {
	var seen atomic.Value
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			seen.Store(string(b))
			next.ServeHTTP(w, r)
		})
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithAuthHook(hook)})
	body := "  " + callBody("weather_get", `{"location":"x"}`) + "\n"
	callResult(t, post(t, h, body))
	assert.Equal(t, body, seen.Load(), "the hook sees the bytes exactly as sent")
}

func TestACallRefusedForNowCarriesRetryAfter(t *testing.T) {
	busy := func(toolexec.CallFunc) toolexec.CallFunc {
		return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
			return nil, &toolexec.Error{Stage: toolexec.StageLimit, Code: toolexec.CodeUnavailable,
				Message: "too many concurrent calls", RetryAfter: 1500 * time.Millisecond}
		}
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithInterceptors(busy)})
	rec := post(t, h, callBody("weather_get", `{"location":"x"}`))
	res := callResult(t, rec)
	assert.True(t, res.IsError)
	assert.Equal(t, "too many concurrent calls", res.Text())
	assert.Equal(t, "2", rec.Header().Get("Retry-After"))
}

func TestAResultThatCannotBeEncodedBecomesAnIsErrorResult(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "chan", Options: toolexec.ToolOptions{Interceptors: []toolexec.Interceptor{
		func(toolexec.CallFunc) toolexec.CallFunc {
			return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
				return &toolexec.CallToolResult{StructuredContent: map[string]any{"c": make(chan int)}}, nil
			}
		},
	}}}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil })
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger())))
	res := callResult(t, post(t, h, callBody("chan", `{}`)))
	assert.True(t, res.IsError)
	assert.Equal(t, "The tool's result could not be encoded.", res.Text(), "no Go type names, no encoder error")
}

func TestToolCallsSeeTheMCPSurfaceAndTheRequest(t *testing.T) {
	var got toolexec.Surface
	var sawRequest bool
	spy := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, call *toolexec.Call) (*toolexec.CallToolResult, error) {
			got, sawRequest = call.Surface, call.Request != nil
			return next(ctx, call)
		}
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithInterceptors(spy)})
	callResult(t, post(t, h, callBody("weather_get", `{"location":"x"}`)))
	assert.Equal(t, toolexec.SurfaceMCP, got)
	assert.True(t, sawRequest)
}

// panicky is an interceptor with a bug.
func panicky(toolexec.CallFunc) toolexec.CallFunc {
	return func(context.Context, *toolexec.Call) (*toolexec.CallToolResult, error) {
		panic("interceptor bug")
	}
}

func TestAPanicOutsideTheHandlerIsAnIsErrorResultToo(t *testing.T) {
	h := newHandler(t, []toolexec.Option{toolexec.WithInterceptors(panicky)})
	rec := post(t, h, callBody("weather_get", `{"location":"x"}`))
	res := callResult(t, rec)
	assert.True(t, res.IsError)
	assert.Equal(t, toolexec.PanicMessage, res.Text())
	assert.NotContains(t, rec.Body.String(), "goroutine")
}
