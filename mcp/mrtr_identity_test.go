package mcp_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// apiKeyHook admits a call carrying X-Api-Key "alice" or "bob"; with
// identify, it names the caller with toolexec.ContextWithIdentity.
func apiKeyHook(identify bool) toolexec.AuthHook {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			key := r.Header.Get("X-Api-Key")
			if key != "alice" && key != "bob" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			if identify {
				r = r.WithContext(toolexec.ContextWithIdentity(r.Context(), "user:"+key))
			}
			next.ServeHTTP(w, r)
		})
	}
}

func TestRequestStateIsBoundToTheCallerTheAuthHookAdmits(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	answers := `,"inputResponses":{"user_name":{"action":"accept","content":{"name":"Alice"}}}`
	for _, identify := range []bool{true, false} {
		t.Run(fmt.Sprintf("identity named by the hook: %v", identify), func(t *testing.T) {
			reg := streamRegistry(t)
			x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()),
				toolexec.WithAuthHook(apiKeyHook(identify)))
			h := mcp.NewHandler(x, mcp.WithInputStateKey(key))

			first := readInputRequired(t, post2026(t, h, "hello", call2026("hello", ""), "X-Api-Key", "alice"))
			require.NotEmpty(t, first.RequestState)
			retry := call2026("hello", answers+fmt.Sprintf(`,"requestState":%q`, first.RequestState))

			// Bob replays Alice's state: no Authorization header differs,
			// only the key the hook reads.
			rec := post2026(t, h, "hello", retry, "X-Api-Key", "bob")
			assert.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			assertCode(t, mcp.CodeInvalidParams, decodeReply(t, rec))
			assert.NotContains(t, rec.Body.String(), "Hello, Alice")

			res := callResult(t, post2026(t, h, "hello", retry, "X-Api-Key", "alice"))
			require.False(t, res.IsError)
			assert.Equal(t, "Hello, Alice!", res.Content[0].(*toolexec.TextContent).Text)
		})
	}
}
