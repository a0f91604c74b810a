package oxp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// FuzzOXPCall throws arbitrary bodies and OXP-Version headers at
// POST /tools/call. Whatever arrives, the answer is one of the documented
// statuses with a JSON body and the OXP-Version header, and the tool runs
// exactly when the answer is a 200.
func FuzzOXPCall(f *testing.F) {
	f.Add("", []byte(`{"tool_id": "Kit.Echo@1", "input": {"a": 1}}`))
	f.Add("1.0", []byte(`{"request": {"tool_id": "Kit_Echo", "call_id": "c", "context": {"secrets": [{"id": "K", "value": "v"}]}}, "$schema": "x"}`))
	f.Add("2.0", []byte(`{"tool_id": "Kit.Echo"}`))
	f.Add("1", []byte(`{"tool_id": "Kit.Echo@", "input": []}`))
	f.Add("", []byte(`{"tool_id": "Kit.Echo@latest", "inputs": {"a": [1, {"b": null}]}, "context": {"authorization": [{"id": "g", "token": "t"}], "user_id": "u", "user_info": {}, "x": 1}}`))
	f.Add("", []byte(`{"tool_id": "Kit.Echo", "input": {"a": 1e999}}`))
	f.Add("", []byte(`not json`))
	f.Add("", []byte(``))
	f.Add("", []byte("\xff\xfe"))
	f.Add("", []byte(strings.Repeat("[", 10000)))
	f.Add("", []byte(`{"tool_id": "Kit.Echo", "tool_id": "Nope"}`))
	f.Add("", []byte(`{"request": {"request": {"tool_id": "Kit.Echo"}}}`))

	var calls atomic.Int64
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "Kit.Echo", Version: "1.0.0"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		calls.Add(1)
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	})
	h := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithMaxBodyBytes(4096), toolexec.WithLogger(discardLogger())))

	f.Fuzz(func(t *testing.T, version string, body []byte) {
		before := calls.Load()
		req := httptest.NewRequest(http.MethodPost, "/tools/call", strings.NewReader(string(body)))
		if version != "" && !strings.ContainsAny(version, "\r\n\x00") {
			req.Header.Set("OXP-Version", version)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge:
		default:
			t.Fatalf("unexpected status %d: %s", rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("body is not JSON: %q", rec.Body)
		}
		if rec.Header().Get("OXP-Version") != "1.0" {
			t.Fatalf("no OXP-Version header on a %d", rec.Code)
		}
		if ran := calls.Load() != before; ran != (rec.Code == http.StatusOK) {
			t.Fatalf("status %d but handler ran=%v: %s", rec.Code, ran, rec.Body)
		}
	})
}
