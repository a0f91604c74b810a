package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolexec/toolexec"
)

func TestSpansCarryTheSubjectNeverTheToken(t *testing.T) {
	is := newTestIssuer(t)
	k := newRSASigner(t, "k1")
	is.publish(k)
	v := newVerifier(t, is)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	})
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true),
		toolexec.WithAuthHook(v.AuthHook), toolexec.WithTracerProvider(tp)))

	token := k.sign(t, is.claimsFor(testResource, ""))
	r := httptest.NewRequest(http.MethodPost, "https://tools.example.com/tools/echo/call", strings.NewReader(`{}`))
	r.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	found := false
	for _, s := range spans.Ended() {
		for _, a := range s.Attributes() {
			assert.NotContains(t, a.Value.String(), token[:20], "span %s attribute %s", s.Name(), a.Key)
			if a.Key == "enduser.id" {
				found = true
				assert.Equal(t, "alice", a.Value.AsString())
			}
		}
	}
	assert.True(t, found, "a span carries the subject")
}
