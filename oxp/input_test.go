package oxp_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestAToolThatNeedsInputFailsWithAFixedExecutionError(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "Form.Ask", Version: "1.0.0", Description: "asks the user"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_, err := toolexec.Elicit(ctx, "", toolexec.ElicitRequest{Message: "Your name?"})
			return nil, false, "", err
		})
	rec := do(newHandler(t, reg, nil), http.MethodPost, "/tools/call", `{"tool_id":"Form.Ask"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body := callBody(t, rec)
	assert.Equal(t, false, body["success"])
	e, _ := body["error"].(map[string]any)
	require.NotNil(t, e, rec.Body.String())
	assert.Equal(t, toolexec.ErrInputUnsupported.Error(), e["message"])
}
