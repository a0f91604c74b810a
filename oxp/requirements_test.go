package oxp_test

import (
	"context"
	"net/http"
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
