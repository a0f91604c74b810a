package balancertest_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/internal/balancertest"
)

func TestAReloadedBalancerServesOnAndFinishesWhatItHeld(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(arrived)
			<-release
		}
		_, _ = io.WriteString(w, "ok "+r.URL.Path)
	}))
	defer backend.Close()
	lb := balancertest.New(t, strings.TrimPrefix(backend.URL, "http://"))
	get := func(path string) string {
		resp, err := http.Get(lb.URL() + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(body)
	}
	assert.Equal(t, "ok /a", get("/a"))

	held := make(chan string, 1)
	go func() { held <- get("/slow") }()
	<-arrived // the request reaches the backend through the old worker
	require.NoError(t, lb.Reload())
	assert.Equal(t, "ok /b", get("/b"), "the new worker serves")
	close(release)
	assert.Equal(t, "ok /slow", <-held, "the old worker finished the request it held")
}
