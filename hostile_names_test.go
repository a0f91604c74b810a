package toolexec_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestEmptyToolNamesGetClearAnswers(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "echo", Version: "1.0.0", Description: "Echoes."}, toolexec.ToolCallHandlerFunc(
		func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return nil, false, "", nil
		}))
	srv := serveAll(t, toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quiet())))

	t.Run("GET /tools/ is the list", func(t *testing.T) {
		status, body := surfaceCall{"", http.MethodGet, "/api/tools/", ""}.do(t, srv)
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `[{"name":"echo","description":"Echoes."}]`, body)
	})
	t.Run("OXP names the id of a plain tool name", func(t *testing.T) {
		status, body := surfaceCall{"", http.MethodPost, "/oxp/tools/call", `{"tool_id":"echo"}`}.do(t, srv)
		require.Equal(t, http.StatusBadRequest, status, body)
		var e struct {
			Message          string `json:"message"`
			DeveloperMessage string `json:"developer_message"`
		}
		require.NoError(t, json.Unmarshal([]byte(body), &e))
		assert.Equal(t, "Tool 'echo' is not available", e.Message)
		assert.Equal(t, "'echo' is a tool name, not a tool id: its id is Tools.echo@1.0.0 (or Tools.echo for the latest version)", e.DeveloperMessage)
	})
}
