package toolexec

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// challenger refuses every call through WriteChallenge with status.
func challenger(status int, seen *Tool) AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c := CallFromContext(r.Context()); c != nil && seen != nil {
				*seen = c.Tool
			}
			w.Header().Set("X-Leak", "never sent")
			WriteChallenge(w, status, `Bearer realm="tools"`)
		})
	}
}

func TestWriteChallengeSetsStatusAndHeaderOnREST(t *testing.T) {
	f := newFixture(t)
	var logs bytes.Buffer
	var seen Tool
	h := f.handler(WithAuthHook(challenger(http.StatusUnauthorized, &seen)),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	r := do(t, h, http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Equal(t, `Bearer realm="tools"`, r.header.Get("WWW-Authenticate"))
	assert.Equal(t, `{"error":"Unauthorized"}`+"\n", r.body, "the documented body")
	assert.Empty(t, r.header.Get("X-Leak"), "nothing else the hook wrote is sent")
	assert.Equal(t, "echo", seen.Name, "the hook sees the call it authorizes")
	assert.Contains(t, logs.String(), "with challenge", "the refusal is logged")
	assert.Zero(t, f.calls.Load())

	h = f.handler(WithAuthHook(challenger(http.StatusForbidden, nil)))
	r = do(t, h, http.MethodPost, "/tools/echo/call", `{}`)
	assert.Equal(t, http.StatusForbidden, r.status)
	assert.Equal(t, `Bearer realm="tools"`, r.header.Get("WWW-Authenticate"))
	assert.JSONEq(t, `{"error":"Forbidden"}`, r.body)
	assert.Zero(t, f.calls.Load())
}

func TestWriteChallengeFailsTheCallWithTheChallenge(t *testing.T) {
	f := newFixture(t)
	x := New(f.reg, f.reg, WithAllowExecute(true), WithAuthHook(challenger(http.StatusForbidden, nil)))
	_, err := x.Call(context.Background(), CallRequest{Name: "echo", Request: httptest.NewRequest(http.MethodPost, "/", nil)})
	e, ok := AsError(err)
	require.True(t, ok)
	assert.Equal(t, CodeForbidden, e.Code)
	assert.Equal(t, StageAuth, e.Stage)
	assert.Equal(t, `Bearer realm="tools"`, e.Challenge)

	x = New(f.reg, f.reg, WithAllowExecute(true), WithAuthHook(challenger(http.StatusTeapot, nil)))
	_, err = x.Call(context.Background(), CallRequest{Name: "echo", Request: httptest.NewRequest(http.MethodPost, "/", nil)})
	e, _ = AsError(err)
	assert.Equal(t, CodeUnauthorized, e.Code, "any status but 403 is a 401")
}

func TestWriteChallengeAsOrdinaryMiddleware(t *testing.T) {
	h := challenger(http.StatusForbidden, nil)(http.NotFoundHandler())
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, http.StatusForbidden, w.Code)
	assert.Equal(t, `Bearer realm="tools"`, w.Header().Get("WWW-Authenticate"))
	assert.JSONEq(t, `{"error":"Forbidden"}`, w.Body.String())
}

func TestToolFilterHidesToolsFromLists(t *testing.T) {
	f := newFixture(t)
	onlyEcho := func(r *http.Request, tools []Tool) []Tool {
		var out []Tool
		for _, t := range tools {
			if t.Name == "echo" || r.Header.Get("X-All") != "" {
				out = append(out, t)
			}
		}
		return out
	}
	h := f.handler(WithToolFilter(onlyEcho))
	r := do(t, h, http.MethodGet, "/tools", "")
	assert.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `[{"name":"echo","description":"Echo the arguments","annotations":{"readOnlyHint":true}}]`, r.body)
	assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodGet, "/tools/image%2Fresize", "").status, "a hidden tool is unknown")
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodGet, "/tools/image%2Fresize", "", "X-All", "1").status)
	assert.Equal(t, http.StatusNotFound, do(t, h, http.MethodPost, "/tools/image%2Fresize/validate", `{}`).status, "nor can it be validated")
	assert.Equal(t, http.StatusOK, do(t, h, http.MethodPost, "/tools/image%2Fresize/call", `{}`).status, "calls are the hook's to decide")

	x := New(f.reg, f.reg)
	assert.Len(t, x.visibleTools(httptest.NewRequest(http.MethodGet, "/", nil), x.latestTools()), len(x.latestTools()),
		"without a filter every tool is visible")
}
