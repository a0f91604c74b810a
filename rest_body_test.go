package toolexec

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// restBodies are REST call bodies at the edges of "one JSON object": the
// REST surface reads any body that is not exactly one JSON object (white
// space around it allowed) as {}.
var restBodies = []struct {
	name, body string
	status     int
	sum        string // the result's structured content, on 200
}{
	{"object", `{"a":2,"b":3}`, http.StatusOK, `{"sum":5}`},
	{"white space around", " \r\n\t{\"a\":2,\"b\":3}\n ", http.StatusOK, `{"sum":5}`},
	{"duplicate key: the last counts", `{"a":2,"a":4}`, http.StatusOK, `{"sum":4}`},
	{"escaped key", `{"\u0061":7}`, http.StatusOK, `{"sum":7}`},
	{"invalid UTF-8 in a string", "{\"a\":2,\"s\":\"\xff\"}", http.StatusOK, `{"sum":2}`},
	{"trailing garbage", `{"a":2,"b":3} x`, http.StatusUnprocessableEntity, ""},
	{"two objects", `{"a":2}{"a":3}`, http.StatusUnprocessableEntity, ""},
	{"trailing comma", `{"a":2,}`, http.StatusUnprocessableEntity, ""},
	{"byte order mark", "\ufeff{\"a\":2}", http.StatusUnprocessableEntity, ""},
	{"array", `[{"a":2}]`, http.StatusUnprocessableEntity, ""},
	{"string", `"{\"a\":2}"`, http.StatusUnprocessableEntity, ""},
	{"number", `42`, http.StatusUnprocessableEntity, ""},
	{"null", `null`, http.StatusUnprocessableEntity, ""},
	{"empty", ``, http.StatusUnprocessableEntity, ""},
	{"cut short", `{"a":2`, http.StatusUnprocessableEntity, ""},
	{"NUL after", "{\"a\":2}\x00", http.StatusUnprocessableEntity, ""},
	{"control character in a string", "{\"a\":2,\"s\":\"\x01\"}", http.StatusUnprocessableEntity, ""},
	{"fails the schema", `{"a":2,"b":300}`, http.StatusUnprocessableEntity, ""},
	{"wrong type", `{"a":"2"}`, http.StatusUnprocessableEntity, ""},
	{"unknown key", `{"a":2,"c":1}`, http.StatusUnprocessableEntity, ""},
}

// TestRESTCallBodyEdgesAnswerAlikeOnEveryPath sends each body to a typed
// tool whose arguments the typed fast path decodes, and to the same tool
// behind an interceptor, which sends every call down the generic path
// (the map and the validator): the answers are the expected ones, and the
// same byte for byte.
func TestRESTCallBodyEdgesAnswerAlikeOnEveryPath(t *testing.T) {
	var seen []map[string]any
	var ins []fastIn
	reg := fastTool(t, &seen, &ins)
	fast := typedExecutor(t, reg)
	require.NotNil(t, fast.checkedInputFor(ptr(mustLookup(t, fast, "add")), &CallRequest{}), "the fast path applies")
	pass := func(next CallFunc) CallFunc { return next }
	generic := typedExecutor(t, reg, WithInterceptors(pass))
	require.Nil(t, generic.checkedInputFor(ptr(mustLookup(t, generic, "add")), &CallRequest{}), "the generic path applies")

	post := func(x *Executor, body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		NewHandler(x).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/add/call", strings.NewReader(body)))
		return w
	}
	for _, c := range restBodies {
		t.Run(c.name, func(t *testing.T) {
			got, want := post(fast, c.body), post(generic, c.body)
			require.Equal(t, c.status, got.Code, got.Body.String())
			assert.Equal(t, want.Code, got.Code)
			assert.Equal(t, want.Body.String(), got.Body.String())
			assert.Equal(t, want.Header(), got.Header())
			if c.status == http.StatusOK {
				assert.Contains(t, got.Body.String(), `"structuredContent":`+c.sum)
			} else {
				assert.Contains(t, got.Body.String(), `"isError":true`)
			}
		})
	}
}

// TestRESTCallBodyNotAnObjectIsReadAsEmpty: a tool with no required
// arguments runs on {} whatever non-object body it is sent, on both paths.
func TestRESTCallBodyNotAnObjectIsReadAsEmpty(t *testing.T) {
	reg := NewRegistry()
	var got []fastOptIn
	require.NoError(t, AddTool(reg, Tool{Name: "opt"}, func(_ context.Context, in fastOptIn) (fastOut, error) {
		got = append(got, in)
		return fastOut{Sum: in.A}, nil
	}))
	pass := func(next CallFunc) CallFunc { return next }
	for name, x := range map[string]*Executor{"fast": typedExecutor(t, reg), "generic": typedExecutor(t, reg, WithInterceptors(pass))} {
		got = got[:0]
		for _, body := range []string{``, `null`, `[1]`, `{"a":2} x`, "\ufeff{\"a\":2}", `{"a":`} {
			w := httptest.NewRecorder()
			NewHandler(x).ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/opt/call", strings.NewReader(body)))
			require.Equal(t, http.StatusOK, w.Code, "%s: %q: %s", name, body, w.Body.String())
			assert.JSONEq(t, `{"content":[{"type":"text","text":"{\"sum\":0}"}],"structuredContent":{"sum":0},"isError":false}`, w.Body.String(), "%s: %q", name, body)
		}
		assert.Equal(t, make([]fastOptIn, 6), got, name)
	}
}

type fastOptIn struct {
	A int `json:"a,omitempty"`
}
