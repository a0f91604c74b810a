package explorer

import (
	"errors"
	"net/http"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/httpjson"
	"github.com/toolexec/toolexec/internal/schema"
)

// outputCheck is the answer of the page's output check, in the shape of
// the REST validate endpoint's answer (toolexec.ValidateResult).
type outputCheck struct {
	Valid   bool             `json:"valid"`
	Errors  []schema.Failure `json:"errors,omitempty"`
	Omitted int              `json:"omitted,omitempty"`
}

// checkOutput is POST /_explorer/output?tool=NAME: the body, a result's
// structuredContent, is checked against the tool's output schema with the
// validator the pipeline uses, under the same bounds. Nothing runs, and
// neither the execution gate nor the auth hook applies, as for the REST
// validate endpoint; a tool hidden from the caller is unknown.
//
//	unknown tool            404 {"error": "Tool not found: NAME"}
//	no output schema        404 {"error": "Tool NAME has no output schema"}
//	body over the limit     413 {"error": ...}
//	body not JSON           400 {"valid": false, "errors": [{"path": "", "message": "Invalid JSON: ...", "keyword": "format"}]}
//	otherwise               200 {"valid": true} or {"valid": false, "errors": [...], "omitted"?}
func (h *handler) checkOutput(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	name := r.URL.Query().Get("tool")
	tool, ok := h.x.Lookup(name, "")
	if !ok || len(h.x.SurfaceKit().VisibleTools(r, []toolexec.Tool{tool})) == 0 {
		httpjson.Write(w, http.StatusNotFound, map[string]string{"error": "Tool not found: " + name})
		return
	}
	if len(tool.OutputSchema) == 0 {
		httpjson.Write(w, http.StatusNotFound, map[string]string{"error": "Tool " + name + " has no output schema"})
		return
	}
	body, err := h.x.SurfaceKit().ReadBody(w, r)
	if err != nil {
		var te *toolexec.Error
		if errors.As(err, &te) && te.Code == toolexec.CodeTooLarge {
			httpjson.Write(w, http.StatusRequestEntityTooLarge, map[string]string{"error": te.Message})
			return
		}
		httpjson.Write(w, http.StatusBadRequest, map[string]string{"error": "Could not read the request body"})
		return
	}
	v, err := schema.DecodeJSON(body)
	if err != nil {
		httpjson.Write(w, http.StatusBadRequest, outputCheck{Errors: []schema.Failure{{Message: "Invalid JSON: " + schema.OneLine(err.Error()), Keyword: "format"}}})
		return
	}
	cs := h.schemas.Get(schema.Key{Name: tool.Name, Version: tool.Version, Output: true}, tool.OutputSchema)
	if err := cs.Err(); err != nil {
		httpjson.Write(w, http.StatusOK, outputCheck{Errors: []schema.Failure{{Message: "Invalid schema: " + err.Error(), Keyword: "schema"}}})
		return
	}
	if fs, omitted := cs.Validate(v); len(fs) > 0 || omitted > 0 {
		httpjson.Write(w, http.StatusOK, outputCheck{Errors: fs, Omitted: omitted})
		return
	}
	httpjson.Write(w, http.StatusOK, outputCheck{Valid: true})
}

// liveTools lists the tools the provider serves now, for the schema cache
// to drop the schemas of tools that are gone.
func (h *handler) liveTools() []schema.ID {
	tools := h.x.SurfaceKit().AllTools()
	ids := make([]schema.ID, len(tools))
	for i := range tools {
		ids[i] = schema.ID{Name: tools[i].Name, Version: tools[i].Version}
	}
	return ids
}
