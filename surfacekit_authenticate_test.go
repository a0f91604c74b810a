package toolexec_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// streamHook admits "Bearer ok" as the identity "ok", refuses "Bearer
// low" with 403 and anything else with 401, each with a challenge. It
// records whether it saw a tool: a call it can find, with a tool in it.
func streamHook(sawTool *bool) toolexec.AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			*sawTool = toolexec.CallFromContext(r.Context()).Tool.Name != "" // never nil in a hook
			switch r.Header.Get("Authorization") {
			case "Bearer ok":
				next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(r.Context(), "ok")))
			case "Bearer low":
				toolexec.WriteChallenge(w, http.StatusForbidden, `Bearer error="insufficient_scope"`)
			default:
				toolexec.WriteChallenge(w, http.StatusUnauthorized, `Bearer realm="t"`)
			}
		})
	}
}

func TestAuthenticateRunsTheHookOnARequestThatIsNotACall(t *testing.T) {
	var sawTool bool
	var logs bytes.Buffer
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAuthHook(streamHook(&sawTool)),
		toolexec.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	kit := x.SurfaceKit()
	req := func(auth string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		return r
	}

	passed, err := kit.Authenticate(req("Bearer ok"))
	require.NoError(t, err)
	assert.False(t, sawTool, "the hook sees a Call with the zero Tool")
	id, ok := toolexec.IdentityFromContext(passed.Context())
	assert.True(t, ok)
	assert.Equal(t, "ok", id, "the request the hook passed on carries its identity")

	for auth, want := range map[string]struct {
		code      toolexec.Code
		challenge string
	}{
		"":           {toolexec.CodeUnauthorized, `Bearer realm="t"`},
		"Bearer low": {toolexec.CodeForbidden, `Bearer error="insufficient_scope"`},
	} {
		logs.Reset()
		passed, err := kit.Authenticate(req(auth))
		assert.Nil(t, passed)
		e, ok := toolexec.AsError(err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, toolexec.StageAuth, e.Stage)
		assert.Equal(t, want.code, e.Code)
		assert.Equal(t, want.challenge, e.Challenge)
		assert.Contains(t, logs.String(), "refused by auth hook")
	}
}

func TestAuthenticateWithoutAHookPassesTheRequestOn(t *testing.T) {
	reg := toolexec.NewRegistry()
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	passed, err := toolexec.New(reg, reg).SurfaceKit().Authenticate(r)
	require.NoError(t, err)
	assert.Same(t, r, passed)
}

func TestAuthenticateTreatsAPanickingHookAsARefusal(t *testing.T) {
	reg := toolexec.NewRegistry()
	callsOnly := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if toolexec.CallFromContext(r.Context()).Tool.Name == "" {
				panic("a hook that only expects calls of named tools")
			}
			next.ServeHTTP(w, r)
		})
	}
	x := toolexec.New(reg, reg, toolexec.WithAuthHook(callsOnly), toolexec.WithLogger(slog.New(slog.DiscardHandler)))
	passed, err := x.SurfaceKit().Authenticate(httptest.NewRequest(http.MethodPost, "/", nil))
	assert.Nil(t, passed)
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Equal(t, toolexec.CodeUnauthorized, e.Code)
}
