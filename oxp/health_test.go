package oxp_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

func TestHealthIs200WithNoBody(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	for _, method := range []string{http.MethodGet, http.MethodHead} {
		w := do(h, method, "/health", "")
		assert.Equal(t, http.StatusOK, w.Code, method)
		assert.Empty(t, w.Body.String(), method)
		assert.Equal(t, "1.0", w.Header().Get("OXP-Version"), method)
		assert.Empty(t, w.Header().Get("Content-Type"), method)
	}
}

func TestHealthFollowsTheReadinessCheck(t *testing.T) {
	var ready atomic.Bool
	var sawCtx atomic.Bool
	h := newHandler(t, seedRegistry(t), nil, oxp.WithReadiness(func(ctx context.Context) bool {
		sawCtx.Store(ctx != nil)
		return ready.Load()
	}))
	w := do(h, http.MethodGet, "/health", "")
	assert.Equal(t, http.StatusServiceUnavailable, w.Code)
	assert.Empty(t, w.Body.String())
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	assert.True(t, sawCtx.Load())

	ready.Store(true)
	assert.Equal(t, http.StatusOK, do(h, http.MethodGet, "/health", "").Code)
}

func TestHealthIgnoresTheGateAndTheAuthHook(t *testing.T) {
	reg := seedRegistry(t)
	x := toolexec.New(reg, reg, toolexec.WithAuthHook(refuseAll), toolexec.WithLogger(discardLogger()))
	assert.Equal(t, http.StatusOK, do(newOXP(x), http.MethodGet, "/health", "").Code)
}
