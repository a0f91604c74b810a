package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// RESTFloor is the least a REST tool endpoint can do, the floor toolexec's
// REST surface is compared with: a hand-written net/http handler that
// matches POST /tools/{name}/call with a string cut (no router), reads the
// body (the arguments object) with a size limit, decodes it into the
// tool's input type in one json.Unmarshal, runs the tool, and encodes the
// same CallToolResult the REST surface answers in one json.Marshal. GET
// /tools lists {name, description} as the REST surface does. Arguments that
// do not decode get a 422 with an isError result; there is no schema
// validation and no middleware.
func RESTFloor() Contender {
	return Contender{
		Name: RESTFloorName,
		Wire: WireREST,
		New: func(g *Gate) http.Handler {
			return &restFloor{gate: g, list: []restFloorTool{
				{ToolAdd, "Adds two integers."}, {ToolSum, "Adds a list of integers."}, {ToolWait, "Waits for the gate."},
			}}
		},
		NewList: func(n int) http.Handler {
			h := &restFloor{list: make([]restFloorTool, n), adders: make(map[string]bool, n)}
			for i := range h.list {
				h.list[i] = restFloorTool{ListToolName(i), ListToolDescription}
				h.adders[ListToolName(i)] = true
			}
			return h
		},
	}
}

type restFloor struct {
	gate   *Gate
	list   []restFloorTool
	adders map[string]bool // the discovery tools, all of them adders
}

type restFloorTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

func (h *restFloor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/tools" {
		if r.Method != http.MethodGet {
			w.Header().Set("Allow", "GET")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		writeJSON(w, http.StatusOK, h.list)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/tools/")
	if name, ok2 := strings.CutSuffix(name, "/call"); ok && ok2 && name != "" {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		h.call(w, r, name)
		return
	}
	http.NotFound(w, r)
}

func (h *restFloor) call(w http.ResponseWriter, r *http.Request, name string) {
	args, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		http.Error(w, "cannot read body", http.StatusRequestEntityTooLarge)
		return
	}
	res, ok := floorCall(h.gate, h.adders, r, name, args)
	switch {
	case !ok:
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "Tool not found: " + name})
	case res.invalid:
		writeJSON(w, http.StatusUnprocessableEntity, res)
	case res.IsError:
		writeJSON(w, http.StatusInternalServerError, res)
	default:
		writeJSON(w, http.StatusOK, res)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
