package toolexecotel_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	toolexecotel "github.com/toolexec/toolexec/otel"
)

func TestTheAuthSpanCarriesTheEndUserTheHookNamed(t *testing.T) {
	tp, sr := newRecorder()
	hook := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(w, r.WithContext(toolexec.ContextWithEndUser(r.Context(), "alice")))
		})
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("x"), toolexec.WithAuthHook(hook),
		observe(toolexecotel.WithTracerProvider(tp)))
	w := httptest.NewRecorder()
	toolexec.NewHandler(x).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/t/call", strings.NewReader(`{}`)))
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	auth := spanNamed(t, sr.Ended(), "toolexec.auth")
	assert.Equal(t, "alice", attrs(auth)["enduser.id"])
	execute := spanNamed(t, sr.Ended(), "toolexec.execute")
	call := spanNamed(t, sr.Ended(), "execute_tool t")
	assert.Equal(t, call.SpanContext().SpanID(), execute.Parent().SpanID(), "after the hook, the call goes on under the call span")
}
