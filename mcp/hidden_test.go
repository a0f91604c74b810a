package mcp_test

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// tokenHook admits only "Authorization: Bearer s3cret", counting its runs.
func tokenHook(ran *atomic.Int64) toolexec.AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ran.Add(1)
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// hiddenRegistry serves "region", whose region parameter is mirrored in
// the Mcp-Param-Region header, and "quick", which never runs as a task.
func hiddenRegistry() *toolexec.Registry {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "region", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("ran")}, false, "", nil
		})
	reg.MustAdd(toolexec.Tool{Name: "quick"},
		func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text("ran")}, false, "", nil
		})
	return reg
}

func TestAnUnknownToolIsInvalidParamsBeforeTheHookWhenListsArePublic(t *testing.T) {
	// Without per-caller lists nothing is hidden: the execution API's order
	// holds, and an unknown tool is -32602 for any caller, the hook unrun.
	var ran atomic.Int64
	reg := hiddenRegistry()
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(tokenHook(&ran)), toolexec.WithLogger(quietLogger())))

	rec := post(t, h, callBody("nope", `{}`), "MCP-Protocol-Version", "2025-06-18")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	reply := decodeReply(t, rec)
	require.NotNil(t, reply.Error)
	assert.Equal(t, mcp.CodeInvalidParams, reply.Error.Code)
	assert.Equal(t, "Unknown tool: nope", reply.Error.Message)

	rec = postModern(t, h, "tools/call", "nope", modernBody("tools/call", `"name":"nope","arguments":{}`))
	reply = decodeReply(t, rec)
	require.NotNil(t, reply.Error, rec.Body.String())
	assert.Equal(t, mcp.CodeInvalidParams, reply.Error.Code)

	status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"nope"},"id":1}`)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: tool not found","data":"nope"},"id":1}`, body)
	assert.Zero(t, ran.Load(), "the hook never ran for an unknown tool")
}

func TestWhereToolsAreHiddenARefusedCallerCannotTellAHiddenToolFromAMissingOne(t *testing.T) {
	// With per-caller lists, every answer that depends on the tool (its
	// headers, its task support, its arguments) waits for the hook: a
	// caller it refuses gets the same refusal for a tool hidden from it
	// and for one that does not exist.
	var ran atomic.Int64
	reg := hiddenRegistry()
	hideAll := func(r *http.Request, tools []toolexec.Tool) []toolexec.Tool {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			return nil
		}
		return tools
	}
	h := mcp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(tokenHook(&ran)), toolexec.WithToolFilter(hideAll), toolexec.WithLogger(quietLogger())))
	type answer struct {
		status int
		body   string
	}
	cases := map[string]func(tool string) answer{
		"2025-06-18": func(tool string) answer {
			rec := post(t, h, callBody(tool, `{}`), "MCP-Protocol-Version", "2025-06-18")
			return answer{rec.Code, rec.Body.String()}
		},
		"arguments not an object": func(tool string) answer {
			rec := post(t, h, callBody(tool, `[1]`), "MCP-Protocol-Version", "2025-06-18")
			return answer{rec.Code, rec.Body.String()}
		},
		"2025-11-25 task of a tool that runs none": func(tool string) answer {
			rec := post(t, h, legacyRequest("tools/call", `"name":"`+tool+`","arguments":{},"task":{}`), "MCP-Protocol-Version", "2025-11-25")
			return answer{rec.Code, rec.Body.String()}
		},
		"2026-07-28 header mismatch": func(tool string) answer {
			rec := postModern(t, h, "tools/call", tool, modernBody("tools/call", `"name":"`+tool+`","arguments":{"region":"eu"}`),
				"Mcp-Param-Region", "us")
			return answer{rec.Code, rec.Body.String()}
		},
		"HandsAI": func(tool string) answer {
			status, body := handsAICall(t, h, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"`+tool+`","arguments":[1]},"id":1}`)
			return answer{status, body}
		},
	}
	hiddenTool := map[string]string{"2025-11-25 task of a tool that runs none": "quick", "2026-07-28 header mismatch": "region"}
	for name, call := range cases {
		t.Run(name, func(t *testing.T) {
			tool := hiddenTool[name]
			if tool == "" {
				tool = "region"
			}
			hidden, missing := call(tool), call("nope")
			assert.Equal(t, http.StatusUnauthorized, hidden.status, hidden.body)
			assert.Equal(t, hidden, missing)
			assert.NotContains(t, missing.body, "nope")
		})
	}
}
