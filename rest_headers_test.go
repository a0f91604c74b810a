package toolexec

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRESTHeadersAreEachResponsesOwn: the header values a REST handler
// shares between responses never change under a response that adds to,
// sets or deletes its headers.
func TestRESTHeadersAreEachResponsesOwn(t *testing.T) {
	var seen []map[string]any
	var ins []fastIn
	x := typedExecutor(t, fastTool(t, &seen, &ins))
	h := NewHandler(x)
	post := func() *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/add/call", strings.NewReader(`{"a":1}`)))
		require.Equal(t, http.StatusOK, w.Code)
		return w
	}
	first := post()
	first.Header().Add("Content-Type", "text/plain")
	first.Header().Add("X-Content-Type-Options", "other")
	second := post()
	second.Header().Set("Content-Type", "text/plain")
	second.Header().Del("X-Content-Type-Options")
	third := post()
	for _, w := range []*httptest.ResponseRecorder{third, httptest.NewRecorder()} {
		if w != third {
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/tools", nil))
		}
		assert.Equal(t, []string{"application/json"}, w.Header()["Content-Type"])
		assert.Equal(t, []string{"nosniff"}, w.Header()["X-Content-Type-Options"])
	}
	assert.Equal(t, []string{"application/json", "text/plain"}, first.Header()["Content-Type"])
}

// TestRegistryAsProviderAndHandlerResolvesOnce: New(reg, reg) finds a
// call's tool and handler in one lookup, and only then.
func TestRegistryAsProviderAndHandlerResolvesOnce(t *testing.T) {
	reg := NewRegistry()
	assert.Same(t, reg, typedExecutor(t, reg).registry)
	other := NewRegistry()
	assert.Nil(t, New(reg, other).registry, "another registry handles the calls")
	assert.Nil(t, New(StaticTools{}, reg).registry, "another provider lists the tools")
}
