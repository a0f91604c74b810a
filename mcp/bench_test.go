package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// addIn and addOut are the benchmark's tool: add two integers.
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addOut struct {
	Sum int `json:"sum"`
}

const addCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`

// benchServe posts body to h b.N times, as an MCP client does, and checks
// the first answer.
func benchServe(b *testing.B, h http.Handler, body, want string) {
	b.Helper()
	rd := strings.NewReader(body)
	req := httptest.NewRequest(http.MethodPost, "/mcp", rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || strings.TrimSpace(rec.Body.String()) != want {
		b.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		req.Body = readCloser{rd}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

const addAnswer = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3},"isError":false}}`

// addExecutor serves the typed add tool, validation on (the default).
func addExecutor() *toolexec.Executor {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "add", Description: "Adds two integers"},
		func(_ context.Context, in addIn) (addOut, error) { return addOut{Sum: in.A + in.B}, nil })
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
}

// BenchmarkToolsCall is one MCP tools/call of a typed tool, validation on,
// through ServeHTTP.
func BenchmarkToolsCall(b *testing.B) {
	benchServe(b, mcp.NewHandler(addExecutor()), addCall, addAnswer)
}

// BenchmarkToolsCallPipelineOnly is the part of BenchmarkToolsCall spent in
// Executor.Call, so the surface's own share is the difference.
func BenchmarkToolsCallPipelineOnly(b *testing.B) {
	x := addExecutor()
	req := toolexec.CallRequest{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`),
		Request: httptest.NewRequest(http.MethodPost, "/mcp", nil), Surface: toolexec.SurfaceMCP}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Call(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToolsCallFloor is the least a JSON-RPC tool endpoint can do for
// the same request and answer: a hand-written net/http handler that decodes
// the envelope into structs and encodes the result. It is the yardstick
// BenchmarkToolsCall is compared with.
func BenchmarkToolsCallFloor(b *testing.B) {
	type content struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	type result struct {
		Content           []content `json:"content"`
		StructuredContent addOut    `json:"structuredContent"`
		IsError           bool      `json:"isError"`
	}
	type reply struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  result          `json:"result"`
	}
	floor := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  struct {
				Name      string `json:"name"`
				Arguments addIn  `json:"arguments"`
			} `json:"params"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Method != "tools/call" || req.Params.Name != "add" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		out := addOut{Sum: req.Params.Arguments.A + req.Params.Arguments.B}
		text := `{"sum":` + strconv.Itoa(out.Sum) + `}`
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(reply{JSONRPC: "2.0", ID: req.ID, Result: result{
			Content: []content{{Type: "text", Text: text}}, StructuredContent: out}})
	})
	benchServe(b, floor, addCall, addAnswer)
}
