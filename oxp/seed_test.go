package oxp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The four examples of the OXP 1.0 call specification, request for request.

func TestSeedCalculatorAddSucceedsWithValue15(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	w := call(h, `{"call_id": "123e4567-e89b-12d3-a456-426614174000", "tool_id": "Calculator.Add@1.0.0", "input": {"a": 10, "b": 5}}`,
		"OXP-Version", "1.0")
	assert.Equal(t, map[string]any{
		"call_id": "123e4567-e89b-12d3-a456-426614174000",
		"success": true,
		"value":   15.0,
	}, callBody(t, w))
	assert.Contains(t, w.Body.String(), `"value":15}`, "the value is the number, not the string \"15\"")
}

func TestSeedUnknownVersionIs400ServerError(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	w := call(h, `{"call_id": "123e4567-e89b-12d3-a456-426614174000", "tool_id": "Calculator.Add@2.0.0"}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	jsonEq(t, `{"message": "Tool 'Calculator.Add@2.0.0' is not available",
		"developer_message": "Calculator.Add has no version 2.0.0 (available: 1.0.0)"}`, w)
}

func TestSeedNonNumberInputIs422WithParameterErrors(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	w := call(h, `{"call_id": "123e4567-e89b-12d3-a456-426614174000", "tool_id": "Calculator.Add@1.0.0", "input": {"a": 10, "b": "infinity"}}`)
	require.Equal(t, http.StatusUnprocessableEntity, w.Code)
	assert.Equal(t, "1.0", w.Header().Get("OXP-Version"))
	jsonEq(t, `{"message": "The input parameters are invalid", "parameter_errors": {"b": "got string, want number"}}`, w)
}

func TestSeedDoorbellToolErrorCarriesEveryRetryField(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	w := call(h, `{"call_id": "723e4567-e89b-12d3-a456-426614174006", "tool_id": "Doorbell.Ring@0.1.0", "input": {"doorbell_id": "doorbell1"}}`)
	assert.Equal(t, map[string]any{
		"call_id": "723e4567-e89b-12d3-a456-426614174006",
		"success": false,
		"error": map[string]any{
			"message":                   "Doorbell ID not found",
			"developer_message":         "The doorbell with ID 'doorbell1' does not exist.",
			"can_retry":                 true,
			"additional_prompt_content": "ids: doorbell42,doorbell84",
			"retry_after_ms":            500.0,
		},
	}, callBody(t, w))
}

func TestSeedDoorbellRingsWithoutOutput(t *testing.T) {
	h := newHandler(t, seedRegistry(t), nil)
	w := call(h, `{"tool_id": "Doorbell.Ring@0.1.0", "input": {"doorbell_id": "doorbell42"}}`)
	m := callBody(t, w)
	assert.Equal(t, true, m["success"])
	assert.Equal(t, "ding", m["value"], "no output schema: the text as it is")
}
