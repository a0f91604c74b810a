package bench

import (
	"encoding/json"
	"io"
	"net/http"
)

// Floor is the least a JSON-RPC tool endpoint can do: a hand-written
// net/http handler that decodes the JSON-RPC tools/call request into Go
// types in one json.Unmarshal, decodes the arguments into the tool's input
// type, runs the tool, and encodes the same CallToolResult the MCP
// contenders answer (a text block with the output's JSON and the output as
// structuredContent) in one json.Marshal. It checks the method, limits the
// body, and refuses arguments that do not decode into the tool's input
// type, but runs no schema validation, no middleware and no session
// machinery. Every JSON-RPC contender, and OXP, is compared with it.
func Floor() Contender {
	return Contender{
		Name: FloorName,
		Wire: WireJSONRPC,
		New: func(g *Gate) http.Handler {
			return &floorHandler{gate: g}
		},
		NewList: func(n int) http.Handler {
			h := &floorHandler{tools: make([]floorTool, n), adders: make(map[string]bool, n)}
			for i := range h.tools {
				h.tools[i] = floorTool{Name: ListToolName(i), Description: ListToolDescription, InputSchema: addSchema, OutputSchema: sumSchema}
				h.adders[ListToolName(i)] = true
			}
			return h
		},
	}
}

// The names of the two floors, which tables look contenders' floors up by.
const (
	FloorName     = "JSON-RPC floor"
	RESTFloorName = "REST floor"
)

// The schemas of ToolAdd as the floor lists them, the same the other
// contenders infer from AddIn and SumOut.
var (
	addSchema = json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}`)
	sumSchema = json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"],"additionalProperties":false}`)
)

type floorHandler struct {
	gate   *Gate
	tools  []floorTool     // the discovery tools, all of them adders
	adders map[string]bool // their names
}

type floorTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"params"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *floorError     `json:"error,omitempty"`
}

type floorError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type floorText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type floorResult struct {
	Content           []floorText `json:"content"`
	StructuredContent *SumOut     `json:"structuredContent,omitempty"`
	IsError           bool        `json:"isError"`
	invalid           bool        // the arguments did not decode
}

type floorList struct {
	Tools []floorTool `json:"tools"`
}

func (h *floorHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read body", http.StatusRequestEntityTooLarge)
		return
	}
	var req floorRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeFloor(w, floorResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &floorError{-32700, "Parse error"}})
		return
	}
	resp := floorResponse{JSONRPC: "2.0", ID: req.ID}
	switch req.Method {
	case "tools/list":
		resp.Result = floorList{Tools: h.tools}
	case "tools/call":
		res, ok := floorCall(h.gate, h.adders, r, req.Params.Name, req.Params.Arguments)
		if !ok {
			resp.Error = &floorError{-32602, "Unknown tool: " + req.Params.Name}
		} else {
			resp.Result = res
		}
	default:
		resp.Error = &floorError{-32601, "Method not found"}
	}
	writeFloor(w, resp)
}

// floorCall runs the named tool; false means there is no such tool. adders
// names the discovery tools, all of which add.
func floorCall(g *Gate, adders map[string]bool, r *http.Request, name string, args []byte) (floorResult, bool) {
	var out SumOut
	if adders[name] {
		name = ToolAdd
	}
	switch name {
	case ToolAdd:
		var in AddIn
		if err := json.Unmarshal(args, &in); err != nil {
			return floorInvalid(err), true
		}
		out = g.add(in)
	case ToolSum:
		var in SumIn
		if err := json.Unmarshal(args, &in); err != nil {
			return floorInvalid(err), true
		}
		out = g.sum(in)
	case ToolWait:
		if g == nil || g.wait(r.Context()) != nil {
			return floorResult{Content: []floorText{{"text", "canceled"}}, IsError: true}, true
		}
	default:
		return floorResult{}, false
	}
	text, _ := json.Marshal(out)
	return floorResult{Content: []floorText{{"text", string(text)}}, StructuredContent: &out}, true
}

func floorInvalid(err error) floorResult {
	return floorResult{Content: []floorText{{"text", "invalid arguments: " + err.Error()}}, IsError: true, invalid: true}
}

func writeFloor(w http.ResponseWriter, resp floorResponse) {
	data, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(data)
}
