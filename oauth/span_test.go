package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/observetest"
)

func TestObserversGetTheSubjectNeverTheToken(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is)
	rec := &observetest.Recorder{}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	})
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(v.AuthHook), toolexec.WithObserver(rec)))

	token := k.sign(t, is.claimsFor(testResource, ""))
	r := httptest.NewRequest(http.MethodPost, "https://tools.example.com/tools/echo/call", strings.NewReader(`{}`))
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	calls := rec.Calls()
	require.Len(t, calls, 1)
	assert.Equal(t, "alice", calls[0].EndUser, "the end user an observer records (enduser.id) is the subject")
	assert.NotContains(t, calls[0].EndUser, token[:20])
}
