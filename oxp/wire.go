package oxp

import "encoding/json"

// serverError is OXP's ServerErrorResponse: a call refused before the tool
// ran (400), and the body of this package's other non-2xx answers.
type serverError struct {
	Schema              json.RawMessage `json:"$schema,omitempty"`
	Message             string          `json:"message"`
	DeveloperMessage    string          `json:"developer_message,omitempty"`
	MissingRequirements *missingWire    `json:"missing_requirements,omitempty"`
}

// validationError is OXP's ValidationErrorResponse (422).
type validationError struct {
	Schema          json.RawMessage   `json:"$schema,omitempty"`
	Message         string            `json:"message"`
	ParameterErrors map[string]string `json:"parameter_errors,omitempty"`
}

// callResponse is OXP's CallToolResponse (200). Value is set, possibly to
// null, exactly when Success is true; Error exactly when it is false.
type callResponse struct {
	CallID   string           `json:"call_id"`
	Duration float64          `json:"duration"`
	Success  bool             `json:"success"`
	Value    *json.RawMessage `json:"value,omitempty"`
	Error    *callError       `json:"error,omitempty"`
}

// callError is the error of a CallToolResponse.
type callError struct {
	Message                 string `json:"message"`
	DeveloperMessage        string `json:"developer_message,omitempty"`
	CanRetry                bool   `json:"can_retry,omitempty"`
	AdditionalPromptContent string `json:"additional_prompt_content,omitempty"`
	RetryAfterMS            int64  `json:"retry_after_ms,omitempty"`
}

// wrappedResponse is the earlier draft's answer: {"$schema"?, "result": ...}.
type wrappedResponse struct {
	Schema json.RawMessage `json:"$schema,omitempty"`
	Result *callResponse   `json:"result"`
}

// toolDefinition is OXP's ToolDefinition.
type toolDefinition struct {
	ID           string            `json:"id"`
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Version      string            `json:"version"`
	InputSchema  json.RawMessage   `json:"input_schema"`
	OutputSchema json.RawMessage   `json:"output_schema"`
	Requirements *requirementsWire `json:"requirements,omitempty"`
}

// toolList is the body of GET /tools.
type toolList struct {
	Items []toolDefinition `json:"items"`
}
