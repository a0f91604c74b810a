package oxp_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

func TestListDescribesToolsAsOXPToolDefinitions(t *testing.T) {
	reg := seedRegistry(t)
	require.NoError(t, reg.Add(toolexec.Tool{
		Name: "Gmail.GetEmails", Version: "1.2.0", Description: "Reads mail.",
		Requirements: toolexec.Requirements{
			Authorization: []toolexec.AuthorizationRequirement{{ID: "google", Scopes: []string{"https://www.googleapis.com/auth/gmail.readonly"}}, {ID: "internal-sso"}},
			Secrets:       []string{"GMAIL_API_KEY"},
			UserID:        true,
		},
	}, add))
	h := newHandler(t, reg, nil)
	w := do(h, http.MethodGet, "/tools", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	jsonEq(t, `{"items": [
		{"id": "Calculator.Add@1.0.0", "name": "Calculator_Add", "description": "Adds two numbers together.", "version": "1.0.0",
		 "input_schema": {"type": "object", "properties": {"a": {"type": "number", "description": "The first number to add."},
		   "b": {"type": "number", "description": "The second number to add."}}, "required": ["a", "b"]},
		 "output_schema": {"type": "number", "description": "The sum of the two numbers."}},
		{"id": "Doorbell.Ring@0.1.0", "name": "Doorbell_Ring", "description": "Rings a doorbell given a doorbell ID.", "version": "0.1.0",
		 "input_schema": {"type": "object", "properties": {"doorbell_id": {"type": "string", "description": "The ID of the doorbell to ring."}}, "required": ["doorbell_id"]},
		 "output_schema": null},
		{"id": "Gmail.GetEmails@1.2.0", "name": "Gmail_GetEmails", "description": "Reads mail.", "version": "1.2.0",
		 "input_schema": {"type": "object"}, "output_schema": null,
		 "requirements": {
		   "authorization": [{"id": "google", "oauth2": {"scopes": ["https://www.googleapis.com/auth/gmail.readonly"]}}, {"id": "internal-sso"}],
		   "secrets": [{"id": "GMAIL_API_KEY"}],
		   "user_id": true}}
	]}`, w)
	assert.NotContains(t, w.Body.String(), `"requirements":null`, "requirements is omitted, never null, when none are declared")
}

func TestListAnswersARequestCarryingAJSONBody(t *testing.T) {
	// The published Go client sends its empty list parameters as a {} body.
	h := newHandler(t, seedRegistry(t), nil)
	w := do(h, http.MethodGet, "/tools", `{}`, "Accept", "application/json", "X-Stainless-Lang", "go")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `"id":"Calculator.Add@1.0.0"`)
	w = do(h, http.MethodGet, "/tools", `not json at all`)
	assert.Equal(t, http.StatusOK, w.Code, "a GET body means nothing and is not read")
}

func TestListOfNoToolsIsAnEmptyArray(t *testing.T) {
	h := newHandler(t, &toolexec.Registry{}, nil)
	w := do(h, http.MethodGet, "/tools", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, `{"items":[]}`+"\n", w.Body.String())
}

func TestListIsNeitherGatedNorGuarded(t *testing.T) {
	reg := seedRegistry(t)
	x := toolexec.New(reg, reg, toolexec.WithAuthHook(refuseAll), toolexec.WithLogger(discardLogger())) // execution off
	w := do(newOXP(x), http.MethodGet, "/tools", "")
	require.Equal(t, http.StatusOK, w.Code)
	assert.Contains(t, w.Body.String(), `"Calculator.Add@1.0.0"`)
}

func TestUnservedToolsAreWarnedAboutOncePerHandler(t *testing.T) {
	logs := &logBuffer{}
	tools := toolexec.StaticTools{
		{Name: "ok.tool", Version: "1.0.0"},
		{Name: "has space", Version: "1.0.0"},
		{Name: "image/resize", Version: "1.0.0"},
		{Name: "image.resize", Version: "1.0.0"},
		{Name: "bad.schema", Version: "1.0.0", InputSchema: []byte(`{"type":`)},
	}
	x := toolexec.New(tools, whoAmI, toolexec.WithLogger(logs.Logger()))
	h := oxp.NewHandler(x)
	for range 5 {
		require.Equal(t, http.StatusOK, do(h, http.MethodGet, "/tools", "").Code)
	}
	for _, tool := range []string{`tool="has space"`, "tool=image/resize", "tool=image.resize", "tool=bad.schema@1.0.0"} {
		assert.Equal(t, 1, strings.Count(oxpLines(logs), tool), "%s is warned about once: %s", tool, logs)
	}
	assert.NotContains(t, logs.String(), "tool=ok.tool")

	// Another handler has its own memory.
	do(oxp.NewHandler(x), http.MethodGet, "/tools", "")
	assert.Equal(t, 2, strings.Count(oxpLines(logs), `tool="has space"`))
}

// oxpLines returns the lines of logs that this package logged (the
// Executor logs names not of the form MCP recommends besides).
func oxpLines(logs *logBuffer) string {
	var out strings.Builder
	for _, line := range strings.SplitAfter(logs.String(), "\n") {
		if strings.Contains(line, `msg="oxp: `) {
			out.WriteString(line)
		}
	}
	return out.String()
}

func TestRepeatedWarningsGoToTheDebugLevel(t *testing.T) {
	logs := &logBuffer{}
	x := toolexec.New(toolexec.StaticTools{{Name: "has space"}}, whoAmI,
		toolexec.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	h := oxp.NewHandler(x)
	for range 3 {
		do(h, http.MethodGet, "/tools", "")
	}
	assert.Equal(t, 1, strings.Count(oxpLines(logs), "level=WARN"), logs.String())
	assert.Equal(t, 2, strings.Count(oxpLines(logs), "level=DEBUG"), logs.String())
}
