package toolexec

import (
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoutesAnswerAsChiDid holds the hand-written router to every answer
// (status, Allow, headers, body) chi's router gave for a matrix of methods
// and paths; testdata/rest_routes.golden was recorded with chi.
func TestRoutesAnswerAsChiDid(t *testing.T) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "echo"}, func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil })
	reg.MustAdd(Tool{Name: "a/b"}, func(string, map[string]any) ([]Content, bool, string, error) { return nil, false, "", nil })
	h := NewHandler(New(reg, reg, WithAllowExecute(true), WithLogger(discardLogger())))
	var out strings.Builder
	for _, m := range []string{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "FOO", "get"} {
		for _, p := range []string{"/", "/x", "/tools", "/tools/", "/tools/echo", "/tools/echo/", "/tools/echo/call", "/tools/echo/validate", "/tools/a%2Fb", "/tools/a%2Fb/call", "/tools/a/b/call", "/tools/nope/call", "/tools//call", "/toolsx", "//tools", "/tools/echo/call/x", "/TOOLS"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(m, "http://h"+p, strings.NewReader(`{}`)))
			fmt.Fprintf(&out, "%s %s -> %d allow=%q ct=%q nos=%q %s\n", m, p, w.Code, w.Header().Get("Allow"), w.Header().Get("Content-Type"), w.Header().Get("X-Content-Type-Options"), strings.TrimSpace(w.Body.String()))
		}
	}
	want, err := os.ReadFile("testdata/rest_routes.golden")
	require.NoError(t, err)
	assert.Equal(t, string(want), out.String())
}
