package toolexec

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// FuzzRESTCall throws arbitrary tool names (in the path, escaped and raw)
// and bodies at POST /tools/{name}/call. Whatever arrives, the answer is one
// of the documented statuses with a JSON body, and only a call to the one
// registered tool ever reaches a handler.
func FuzzRESTCall(f *testing.F) {
	f.Add("echo", []byte(`{"msg":"hi"}`))
	f.Add("echo", []byte(`not json`))
	f.Add("echo", []byte(``))
	f.Add("ns/echo", []byte(`{"a":[1,2,{"b":null}]}`))
	f.Add("../echo", []byte(`[]`))
	f.Add("echo%2F", []byte(`{"a":1e999}`))
	f.Add("\x00", []byte("\xff\xfe"))
	f.Add("echo", []byte(strings.Repeat("[", 10000)))
	f.Add("echo", []byte(`{"a":1,"a":2}`))
	f.Add("echo", []byte(`{"a":[1e400]}`))

	var calls atomic.Int64
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "echo"}, func(string, map[string]any) ([]Content, bool, string, error) {
		calls.Add(1)
		return []Content{Text("ok")}, false, "", nil
	})
	h := NewHandler(New(reg, reg, WithAllowExecute(true), WithMaxBodyBytes(4096), WithLogger(discardLogger())))

	f.Fuzz(func(t *testing.T, name string, body []byte) {
		targets := []string{"/tools/" + url.PathEscape(name) + "/call"}
		if u, err := url.Parse("/tools/" + name + "/call"); err == nil && u.Path != "" && !strings.ContainsAny(name, "?#") {
			targets = append(targets, u.EscapedPath())
		}
		for _, target := range targets {
			before := calls.Load()
			req := httptest.NewRequest(http.MethodPost, "http://example.test"+target, strings.NewReader(string(body)))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)

			switch rec.Code {
			case http.StatusOK, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge,
				http.StatusUnprocessableEntity: // a number beyond float64, even without a schema
			default:
				t.Fatalf("%s: unexpected status %d: %s", target, rec.Code, rec.Body)
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s: body is not JSON: %q", target, rec.Body)
			}
			if ran := calls.Load() != before; ran != (rec.Code == http.StatusOK) {
				t.Fatalf("%s: status %d but handler ran=%v", target, rec.Code, ran)
			}
		}
	})
}
