package oxp_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

func newOXP(x *toolexec.Executor, opts ...oxp.Option) http.Handler { return oxp.NewHandler(x, opts...) }

func TestUnknownPathsAre404AndWrongMethods405(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	for _, path := range []string{"/", "/tool", "/tools/Calculator.Add", "/tools/call/x", "/call", "/execute"} {
		w := do(h, http.MethodGet, path, "")
		assert.Equal(t, http.StatusNotFound, w.Code, path)
		jsonEq(t, `{"message": "Not found"}`, w)
		assert.Equal(t, "1.0", w.Header().Get("OXP-Version"), path)
	}
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPost, "/health", "GET, HEAD"},
		{http.MethodPost, "/tools", "GET"},
		{http.MethodDelete, "/tools", "GET"},
		{http.MethodGet, "/tools/call", "POST"},
		{http.MethodPut, "/tools/call", "POST"},
	} {
		w := do(h, tc.method, tc.path, "")
		assert.Equal(t, http.StatusMethodNotAllowed, w.Code, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.allow, w.Header().Get("Allow"), "%s %s", tc.method, tc.path)
		jsonEq(t, `{"message": "Method not allowed"}`, w)
		assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	}
}

func TestOXPVersionHeader(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	for _, v := range []string{"1.0", "1", "1.0.0", "1.3", " 1.0 "} {
		assert.Equal(t, http.StatusOK, do(h, http.MethodGet, "/tools", "", "OXP-Version", v).Code, v)
		assert.Equal(t, http.StatusOK, call(h, `{"tool_id": "Calculator.Add", "input": {"a": 1, "b": 2}}`, "OXP-Version", v).Code, v)
	}
	for _, v := range []string{"2.0", "0.9", "2", "1.0.0.0", "01.0", "latest", "v1", ""} {
		for _, w := range []*httptest.ResponseRecorder{
			do(h, http.MethodGet, "/tools", "", "OXP-Version", v),
			do(h, http.MethodGet, "/health", "", "OXP-Version", v),
			call(h, `{"tool_id": "Calculator.Add", "input": {"a": 1, "b": 2}}`, "OXP-Version", v),
		} {
			require.Equal(t, http.StatusBadRequest, w.Code, "%q", v)
			assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
			jsonEq(t, toJSON(t, map[string]string{
				"message":           `OXP version "` + v + `" is not supported`,
				"developer_message": "this server speaks OXP 1.0; send OXP-Version: 1.0 or leave the header out",
			}), w)
		}
	}
	w := do(h, http.MethodGet, "/tools", "", "OXP-Version", "1.0", "OXP-Version", "2.0")
	assert.Equal(t, http.StatusBadRequest, w.Code, "two versions at once are not one the server speaks")
}

func TestHandlerMountsUnderAnyPrefix(t *testing.T) {
	reg := seedRegistry(t)
	h := newHandler(t, reg, nil)

	r := chi.NewRouter()
	r.Mount("/oxp", h)
	mux := http.NewServeMux()
	mux.Handle("/api/oxp/", http.StripPrefix("/api/oxp", h))

	for prefix, root := range map[string]http.Handler{"/oxp": r, "/api/oxp": mux} {
		srv := httptest.NewServer(root)
		resp, err := http.Get(srv.URL + prefix + "/health")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, prefix)

		resp, err = http.Post(srv.URL+prefix+"/tools/call", "application/json", strings.NewReader(`{"tool_id": "Calculator.Add", "input": {"a": 1, "b": 2}}`))
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, prefix)
		assert.Contains(t, string(body), `"value":3`, prefix)
		srv.Close()
	}
}

func TestMethodsHTTPDoesNotDefineAre501(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	for _, path := range []string{"/tools", "/tools/call", "/nowhere"} {
		w := do(h, "BREW", path, "")
		assert.Equal(t, http.StatusNotImplemented, w.Code, path)
		jsonEq(t, `{"message": "Method not implemented"}`, w)
		assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	}
}

func TestAPanicInTheSurfaceIs500WithTheStackOnlyLogged(t *testing.T) {
	logs := &logBuffer{}
	provider := toolexec.ToolProviderFunc(func() []toolexec.Tool { panic("provider exploded") })
	h := oxp.NewHandler(toolexec.New(provider, whoAmI, toolexec.WithAllowExecute(true), toolexec.WithLogger(logs.Logger())))
	for _, w := range []*httptest.ResponseRecorder{do(h, http.MethodGet, "/tools", ""), call(h, `{"tool_id": "Kit.Tool"}`)} {
		require.Equal(t, http.StatusInternalServerError, w.Code)
		jsonEq(t, `{"message": "Internal server error"}`, w)
		assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
		assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	}
	assert.Equal(t, 2, strings.Count(logs.String(), "level=ERROR"))
	assert.Contains(t, logs.String(), "provider exploded")
	assert.Contains(t, logs.String(), "stack=", "the stack is logged")
	assert.Contains(t, logs.String(), "oxp.(*handler).list", "the stack is the panic's own")
}
