package oxp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// A toolkit name groups the tools an OXP server lists; the handler mounts
// on chi or net/http.
func ExampleWithToolkit() {
	add := func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		a, _ := args["a"].(float64)
		b, _ := args["b"].(float64)
		return []toolexec.Content{toolexec.Text(fmt.Sprint(a + b))}, false, "", nil
	}
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{
		Name:         "Calculator.Add",
		Version:      "1.0.0",
		Description:  "Adds two numbers.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		OutputSchema: json.RawMessage(`{"type":"number"}`),
	}, add)

	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	r := chi.NewRouter()
	r.Mount("/oxp", oxp.NewHandler(x, oxp.WithToolkit("Calculator")))
	// or: mux.Handle("/oxp/", http.StripPrefix("/oxp", oxp.NewHandler(x)))

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/oxp/tools/call", strings.NewReader(`{"tool_id": "Calculator.Add", "input": {"a": 2, "b": 3}}`)))
	fmt.Println(w.Code, summary(w.Body.Bytes()))
	// Output:
	// 200 value: 5
}

// summary says what an OXP call's answer holds: its value, or what it
// misses.
func summary(body []byte) string {
	var res struct {
		Value               any             `json:"value"`
		MissingRequirements json.RawMessage `json:"missing_requirements"`
	}
	_ = json.Unmarshal(body, &res)
	if res.MissingRequirements != nil {
		return "missing: " + string(res.MissingRequirements)
	}
	return fmt.Sprint("value: ", res.Value)
}

// oauthFlow is a host's authorization flow under way.
type oauthFlow struct{ ID, AuthorizeURL, StatusURL string }

// startOAuth starts a flow for a user's grant of scopes at a provider.
func startOAuth(user, provider string, scopes []string) oauthFlow {
	id := provider + "-" + user
	return oauthFlow{ID: id, AuthorizeURL: "https://host.example/authorize/" + id, StatusURL: "https://host.example/status/" + id}
}

// A tool that needs a user's token, a secret and a user id; a call that
// lacks the token is answered with a challenge saying where the user goes.
func ExampleWithAuthorizationChallenge() {
	handler := func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		c := oxp.FromContext(ctx) // nil outside OXP calls; its methods are nil-safe
		token, _ := c.Token("google")
		key, _ := c.Secret("GMAIL_API_KEY")
		user := c.UserID
		return []toolexec.Content{toolexec.Text(fmt.Sprintf("emails of %s, with a token: %t, a key: %t", user, token != "", key != ""))}, false, "", nil
	}

	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:    "Gmail.GetEmails",
		Version: "1.2.0",
		Requirements: toolexec.Requirements{
			Authorization: []toolexec.AuthorizationRequirement{
				{ID: "google", Scopes: []string{"https://www.googleapis.com/auth/gmail.readonly"}},
			},
			Secrets: []string{"GMAIL_API_KEY"},
			UserID:  true,
		},
	}, handler)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	h := oxp.NewHandler(x, oxp.WithAuthorizationChallenge(
		func(r *http.Request, tool toolexec.Tool, need toolexec.AuthorizationRequirement) oxp.Challenge {
			user := oxp.FromContext(r.Context()).UserID
			flow := startOAuth(user, need.ID, need.Scopes) // the host's own
			return oxp.Challenge{ID: flow.ID, URL: flow.AuthorizeURL, CheckURL: flow.StatusURL}
		}))

	for _, body := range []string{
		`{"tool_id": "Gmail.GetEmails", "context": {"user_id": "ada", "secrets": [{"id": "GMAIL_API_KEY", "value": "k"}]}}`,
		`{"tool_id": "Gmail.GetEmails", "context": {"user_id": "ada", "secrets": [{"id": "GMAIL_API_KEY", "value": "k"}], "authorization": [{"id": "google", "token": "t"}]}}`,
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/tools/call", strings.NewReader(body)))
		fmt.Println(w.Code, summary(w.Body.Bytes()))
	}
	// Output:
	// 400 missing: {"authorization":[{"id":"google-ada","url":"https://host.example/authorize/google-ada","check_url":"https://host.example/status/google-ada"}]}
	// 200 value: emails of ada, with a token: true, a key: true
}
