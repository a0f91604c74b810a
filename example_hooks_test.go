package toolexec_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
)

// A tool set and one function that serves all of it: the tools are a
// StaticTools list, and the handler dispatches on the name.
func ExampleStaticTools() {
	tools := toolexec.StaticTools{
		{Name: "math_add", Description: "Adds a and b."},
		{Name: "math_mul", Description: "Multiplies a and b."},
	}
	x := toolexec.New(tools, func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		a, _ := args["a"].(float64)
		b, _ := args["b"].(float64)
		switch name {
		case "math_add":
			return []toolexec.Content{toolexec.Text(fmt.Sprint(a + b))}, false, "", nil
		case "math_mul":
			return []toolexec.Content{toolexec.Text(fmt.Sprint(a * b))}, false, "", nil
		}
		return nil, false, "", fmt.Errorf("no tool %q", name)
	}, toolexec.WithAllowExecute(true))

	for _, name := range []string{"math_add", "math_mul"} {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: name, Arguments: json.RawMessage(`{"a":6,"b":7}`)})
		if err != nil {
			panic(err)
		}
		fmt.Println(name, res.Text())
	}
	// Output:
	// math_add 13
	// math_mul 42
}

// BasicToolCallHandlerFunc spells out that a function is a handler in the
// basic form.
func ExampleBasicToolCallHandlerFunc_explicit() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "text_upper"},
		toolexec.BasicToolCallHandlerFunc(func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
			s, _ := args["text"].(string)
			return []toolexec.Content{toolexec.Text(strings.ToUpper(s))}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "text_upper", Arguments: json.RawMessage(`{"text":"shout"}`)})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text())
	// Output:
	// SHOUT
}

// errors.As finds a handler's *ToolError through the *Error of the failed
// call, and with it whether a retry may help.
func ExampleToolError_canRetry() {
	ctx := context.Background()
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "orders_load"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", &toolexec.ToolError{Message: "The orders database is restarting", CanRetry: true}
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	res, err := x.Call(ctx, toolexec.CallRequest{Name: "orders_load"})
	var te *toolexec.ToolError
	if errors.As(err, &te) && te.CanRetry {
		fmt.Println("try again later:", te.Message)
	}
	fmt.Println(res == nil)
	// Output:
	// try again later: The orders database is restarting
	// true
}

// echo answers its text, and the call's X-Request-Id as the trace id.
func echo(ctx context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
	var traceID string
	if r := toolexec.RequestFromContext(ctx); r != nil {
		traceID = r.Header.Get("X-Request-Id")
	}
	text, _ := args["text"].(string)
	return []toolexec.Content{toolexec.Text(text)}, false, traceID, nil
}

// RequestFromContext gives a handler the HTTP request of its call (nil for
// a call made in process).
func ExampleRequestFromContext() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo"}, echo)
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true)))

	req := httptest.NewRequest(http.MethodPost, "/tools/echo/call", strings.NewReader(`{"text":"hi"}`))
	req.Header.Set("X-Request-Id", "req-7")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Print(rec.Body.String())
	// Output:
	// {"content":[{"type":"text","text":"hi"}],"isError":false,"_meta":{"_trace_id":"req-7"}}
}

// User is a caller, as a host's token store knows it.
type User struct{ ID, Name string }

// lookUpToken finds the user of a bearer token.
func lookUpToken(authorization string) (User, error) {
	if authorization != "Bearer t0k3n" {
		return User{}, errors.New("unknown token")
	}
	return User{ID: "u-1", Name: "Ada"}, nil
}

// What an auth hook stores in the request's context is in the handler's
// ctx.
func ExampleWithAuthHook_context() {
	reg := toolexec.NewRegistry()
	type userKey struct{}

	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, err := lookUpToken(r.Header.Get("Authorization"))
			if err != nil {
				http.Error(w, err.Error(), http.StatusUnauthorized) // logged, never sent
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
		})
	}
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(auth))

	reg.MustAdd(toolexec.Tool{Name: "whoami"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		// In a handler:
		user, ok := ctx.Value(userKey{}).(User)
		if !ok {
			return nil, false, "", errors.New("no user")
		}
		return []toolexec.Content{toolexec.Text(user.Name)}, false, "", nil
	})
	req := httptest.NewRequest(http.MethodPost, "/tools/whoami/call", nil)
	req.Header.Set("Authorization", "Bearer t0k3n")
	rec := httptest.NewRecorder()
	toolexec.NewHandler(x).ServeHTTP(rec, req)
	fmt.Print(rec.Body.String())
	// Output:
	// {"content":[{"type":"text","text":"Ada"}],"isError":false}
}

// An auth hook that names the caller with ContextWithIdentity lets the result
// cache serve each caller what it stored.
func ExampleContextWithIdentity_authHook() {
	type userKey struct{}
	auth := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			user, err := lookUpToken(r.Header.Get("Authorization"))
			if err != nil {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			ctx := context.WithValue(r.Context(), userKey{}, user)
			next.ServeHTTP(w, r.WithContext(toolexec.ContextWithIdentity(ctx, user.ID)))
		})
	}
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "whoami"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		id, _ := toolexec.IdentityFromContext(ctx)
		return []toolexec.Content{toolexec.Text(id)}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithAuthHook(auth))

	req := httptest.NewRequest(http.MethodPost, "/tools/whoami/call", nil)
	req.Header.Set("Authorization", "Bearer t0k3n")
	rec := httptest.NewRecorder()
	toolexec.NewHandler(x).ServeHTTP(rec, req)
	fmt.Print(rec.Body.String())
	// Output:
	// {"content":[{"type":"text","text":"u-1"}],"isError":false}
}
