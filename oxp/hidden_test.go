package oxp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestAnUnknownToolIs400BeforeTheHookWhenListsArePublic(t *testing.T) {
	// The execution API's order: the lookup answers before the hook runs,
	// for any caller, when nothing is hidden per caller.
	h := newHandler(t, seedRegistry(t), []toolexec.Option{toolexec.WithAuthHook(refuseAll)})
	w := call(h, `{"tool_id": "Calculator.Nope"}`)
	require.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "Calculator.Nope", "the caller learns the tool is not served")
	assert.NotContains(t, w.Body.String(), "Authentication is required")
}

func TestWhereToolsAreHiddenARefusedCallerGetsTheSameAnswerForHiddenAndMissingTools(t *testing.T) {
	hideAll := func(*http.Request, []toolexec.Tool) []toolexec.Tool { return nil }
	h := newHandler(t, seedRegistry(t), []toolexec.Option{toolexec.WithAuthHook(refuseAll), toolexec.WithToolFilter(hideAll)})
	for _, input := range []string{`{"a": 1, "b": 2}`, `[1]`, `"text"`} {
		hidden := call(h, `{"tool_id": "Calculator.Add", "input": `+input+`}`)
		missing := call(h, `{"tool_id": "Calculator.Nope", "input": `+input+`}`)
		unknownVersion := call(h, `{"tool_id": "Calculator.Add@9", "input": `+input+`}`)
		assert.Equal(t, http.StatusBadRequest, hidden.Code, hidden.Body.String())
		assert.Contains(t, hidden.Body.String(), "Authentication is required")
		for _, w := range []*http.Response{missing.Result(), unknownVersion.Result()} {
			assert.Equal(t, hidden.Code, w.StatusCode)
		}
		assert.Equal(t, hidden.Body.String(), missing.Body.String(), input)
		assert.Equal(t, hidden.Body.String(), unknownVersion.Body.String(), input)
	}
}
