package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func send(t *testing.T, method, url, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

func TestToolsAreListedUnderThePrefix(t *testing.T) {
	srv := httptest.NewServer(newMux(newExecutor()))
	defer srv.Close()

	status, body := send(t, http.MethodGet, srv.URL+"/api/tools", "")
	require.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `[{"name":"math_add","description":"Adds two numbers."}]`, body)
}

func TestToolIsCalledThroughThePrefix(t *testing.T) {
	srv := httptest.NewServer(newMux(newExecutor()))
	defer srv.Close()

	// StripPrefix strips the escaped path too, so a percent-encoded name
	// reaches the tool as well.
	for _, name := range []string{"math_add", "math%5Fadd"} {
		status, body := send(t, http.MethodPost, srv.URL+"/api/tools/"+name+"/call", `{"a":2,"b":3}`)
		assert.Equal(t, http.StatusOK, status, name)
		assert.JSONEq(t, `{"content":[{"type":"text","text":"5"}],"isError":false}`, body, name)
	}

	status, body := send(t, http.MethodGet, srv.URL+"/api/tools/math_add", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Contains(t, body, `"name":"math_add"`)
}

func TestOwnRoutesLiveBesideTheTools(t *testing.T) {
	srv := httptest.NewServer(newMux(newExecutor()))
	defer srv.Close()

	status, body := send(t, http.MethodGet, srv.URL+"/healthz", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "ok\n", body)

	status, _ = send(t, http.MethodGet, srv.URL+"/tools", "")
	assert.Equal(t, http.StatusNotFound, status)
}
