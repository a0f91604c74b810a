package oxp_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// gmail needs a Google token with a scope, a secret and a user id.
var gmail = toolexec.Tool{
	Name: "Gmail.GetEmails", Version: "1.2.0",
	Requirements: toolexec.Requirements{
		Authorization: []toolexec.AuthorizationRequirement{{ID: "google", Scopes: []string{"gmail.readonly"}}},
		Secrets:       []string{"GMAIL_API_KEY"},
		UserID:        true,
	},
}

const fullContext = `{"user_id": "user_123", "authorization": [{"id": "google", "token": "ya29.tok"}], "secrets": [{"id": "GMAIL_API_KEY", "value": "k"}]}`

func TestMissingRequirementsAre400AndTheToolNeverRuns(t *testing.T) {
	cases := []struct {
		title, context, want string
	}{
		{"nothing supplied", `null`, `{"message": "Authorization is required before this tool can run",
			"developer_message": "Gmail.GetEmails@1.2.0 requires authorization from google, secret GMAIL_API_KEY, user_id in the call's context",
			"missing_requirements": {"authorization": [{"id": "google"}], "secrets": [{"id": "GMAIL_API_KEY"}], "user_id": true}}`},
		{"only the user id missing", `{"authorization": [{"id": "google", "token": "t"}], "secrets": [{"id": "GMAIL_API_KEY", "value": "k"}]}`,
			`{"message": "The tool needs more than the call supplied",
			"developer_message": "Gmail.GetEmails@1.2.0 requires user_id in the call's context",
			"missing_requirements": {"user_id": true}}`},
		{"empty values count as missing", `{"user_id": "", "authorization": [{"id": "google", "token": ""}], "secrets": [{"id": "GMAIL_API_KEY", "value": ""}]}`,
			`{"message": "Authorization is required before this tool can run",
			"developer_message": "Gmail.GetEmails@1.2.0 requires authorization from google, secret GMAIL_API_KEY, user_id in the call's context",
			"missing_requirements": {"authorization": [{"id": "google"}], "secrets": [{"id": "GMAIL_API_KEY"}], "user_id": true}}`},
		{"a token for another provider does not count", `{"user_id": "u", "authorization": [{"id": "github", "token": "t"}], "secrets": [{"id": "GMAIL_API_KEY", "value": "k"}]}`,
			`{"message": "Authorization is required before this tool can run",
			"developer_message": "Gmail.GetEmails@1.2.0 requires authorization from google in the call's context",
			"missing_requirements": {"authorization": [{"id": "google"}]}}`},
	}
	for _, tc := range cases {
		p := &probe{}
		h := probeHandler(t, p, gmail)
		w := call(h, `{"tool_id": "Gmail.GetEmails", "context": `+tc.context+`}`)
		require.Equal(t, http.StatusBadRequest, w.Code, tc.title)
		jsonEq(t, tc.want, w)
		assert.Zero(t, p.ran.Load(), tc.title)
	}
}

func TestSuppliedRequirementsReachTheTool(t *testing.T) {
	var token, key, user string
	p := &probe{fn: func(ctx context.Context, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		c := oxp.FromContext(ctx)
		token, _ = c.Token("google")
		key, _ = c.Secret("GMAIL_API_KEY")
		user = c.UserID
		return nil, false, "", nil
	}}
	h := probeHandler(t, p, gmail)
	m := callBody(t, call(h, `{"tool_id": "Gmail.GetEmails@1.2.0", "context": `+fullContext+`}`))
	assert.Equal(t, true, m["success"])
	assert.Equal(t, "ya29.tok", token)
	assert.Equal(t, "k", key)
	assert.Equal(t, "user_123", user)
}

func TestAuthorizationChallengesComeFromTheHost(t *testing.T) {
	p := &probe{}
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(gmail, p))
	h := newHandler(t, reg, nil, oxp.WithAuthorizationChallenge(func(r *http.Request, tool toolexec.Tool, need toolexec.AuthorizationRequirement) oxp.Challenge {
		user := oxp.FromContext(r.Context()).UserID
		return oxp.Challenge{
			URL:      "https://auth.example.com/authorize?provider=" + need.ID + "&scope=" + need.Scopes[0] + "&user=" + user + "&tool=" + tool.Name,
			CheckURL: "https://auth.example.com/check?user=" + user,
		}
	}))
	w := call(h, `{"tool_id": "Gmail.GetEmails", "context": {"user_id": "u1", "secrets": [{"id": "GMAIL_API_KEY", "value": "k"}]}}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	jsonEq(t, `{"message": "Authorization is required before this tool can run",
		"developer_message": "Gmail.GetEmails@1.2.0 requires authorization from google in the call's context",
		"missing_requirements": {"authorization": [{"id": "google",
			"url": "https://auth.example.com/authorize?provider=google&scope=gmail.readonly&user=u1&tool=Gmail.GetEmails",
			"check_url": "https://auth.example.com/check?user=u1"}]}}`, w)
	assert.Zero(t, p.ran.Load())
}

func TestRequirementsAreCheckedAfterTheGateAndResolution(t *testing.T) {
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(gmail, &probe{}))
	off := oxp.NewHandler(toolexec.New(reg, reg, toolexec.WithLogger(discardLogger())))
	w := call(off, `{"tool_id": "Gmail.GetEmails"}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "Tool execution is disabled")

	on := newHandler(t, reg, nil)
	w = call(on, `{"tool_id": "Gmail.GetEmails@9"}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.NotContains(t, w.Body.String(), "missing_requirements")
}

// passAs is an auth hook that lets a call through as user "alice" when it
// carries "Authorization: Bearer good", and refuses it otherwise.
func passAs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer good" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, "alice")))
	})
}

// challengeCounter is a WithAuthorizationChallenge hook that counts its
// runs and records who the auth hook said the caller was.
type challengeCounter struct {
	runs atomic.Int32
	who  atomic.Value
}

func (c *challengeCounter) challenge(r *http.Request, _ toolexec.Tool, need toolexec.AuthorizationRequirement) oxp.Challenge {
	c.runs.Add(1)
	who, _ := r.Context().Value(userKey{}).(string)
	c.who.Store(who)
	return oxp.Challenge{URL: "https://auth.example.com/" + need.ID + "?user=" + oxp.FromContext(r.Context()).UserID}
}

func TestARefusedCallLearnsNothingOfRequirements(t *testing.T) {
	p, ch := &probe{}, &challengeCounter{}
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(gmail, p))
	h := newHandler(t, reg, []toolexec.Option{toolexec.WithAuthHook(refuseAll)}, oxp.WithAuthorizationChallenge(ch.challenge))
	for _, body := range []string{
		`{"tool_id": "Gmail.GetEmails"}`,
		`{"tool_id": "Gmail.GetEmails", "context": {"user_id": "victim"}}`,
		`{"request": {"tool_id": "Gmail.GetEmails", "context": {"user_id": "victim"}}}`,
	} {
		w := call(h, body)
		require.Equal(t, http.StatusBadRequest, w.Code, body)
		assert.Contains(t, w.Body.String(), `"message":"Authentication is required"`, body)
		assert.NotContains(t, w.Body.String(), "missing_requirements", body)
	}
	assert.Zero(t, ch.runs.Load(), "the challenge hook never runs for a refused caller")
	assert.Zero(t, p.ran.Load())
}

func TestRequirementsAreCheckedOnceTheAuthHookPassedTheCall(t *testing.T) {
	p, ch := &probe{}, &challengeCounter{}
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(gmail, p))
	h := newHandler(t, reg, []toolexec.Option{toolexec.WithAuthHook(passAs)}, oxp.WithAuthorizationChallenge(ch.challenge))

	w := call(h, `{"tool_id": "Gmail.GetEmails", "context": {"user_id": "u1"}}`, "Authorization", "Bearer good")
	require.Equal(t, http.StatusBadRequest, w.Code)
	jsonEq(t, `{"message": "Authorization is required before this tool can run",
		"developer_message": "Gmail.GetEmails@1.2.0 requires authorization from google, secret GMAIL_API_KEY in the call's context",
		"missing_requirements": {"authorization": [{"id": "google", "url": "https://auth.example.com/google?user=u1"}],
			"secrets": [{"id": "GMAIL_API_KEY"}]}}`, w)
	assert.Equal(t, int32(1), ch.runs.Load())
	assert.Equal(t, "alice", ch.who.Load(), "the challenge hook sees the request as the auth hook passed it")
	assert.Zero(t, p.ran.Load())

	// The wrapped form gets the same answer, with its $schema echoed.
	w = call(h, `{"$schema": "s", "request": {"tool_id": "Gmail.GetEmails", "context": {"user_id": "u1", "authorization": [{"id": "google", "token": "t"}]}}}`, "Authorization", "Bearer good")
	require.Equal(t, http.StatusBadRequest, w.Code)
	jsonEq(t, `{"$schema": "s", "message": "The tool needs more than the call supplied",
		"developer_message": "Gmail.GetEmails@1.2.0 requires secret GMAIL_API_KEY in the call's context",
		"missing_requirements": {"secrets": [{"id": "GMAIL_API_KEY"}]}}`, w)
	assert.Zero(t, p.ran.Load())
}

func TestRequirementsComeBeforeInputValidation(t *testing.T) {
	p := &probe{}
	tool := gmail
	tool.InputSchema = []byte(`{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}`)
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(tool, p))
	h := newHandler(t, reg, nil)
	w := call(h, `{"tool_id": "Gmail.GetEmails", "input": {"n": "not a number"}}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), `"missing_requirements"`)

	w = call(h, `{"tool_id": "Gmail.GetEmails", "input": {"n": "not a number"}, "context": `+fullContext+`}`)
	require.Equal(t, http.StatusUnprocessableEntity, w.Code, "with every requirement supplied, the input is checked")
	assert.Zero(t, p.ran.Load())
}
