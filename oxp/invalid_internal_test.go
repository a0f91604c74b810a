package oxp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// TestInvalidInputIsLinear holds the 422 answer's building to one pass: the
// failures of one parameter are written into one builder, so the
// allocations grow with the logarithm of the message, not with the number
// of failures (joining them one at a time copied the message each time).
func TestInvalidInputIsLinear(t *testing.T) {
	const n = 20000
	fs := make([]toolexec.ValidationFailure, n)
	for i := range fs {
		fs[i] = toolexec.ValidationFailure{Path: "/p/x", Message: "bad", Keyword: "type"}
	}
	e := &toolexec.Error{Stage: toolexec.StageValidate, Code: toolexec.CodeInvalidArguments, Failures: fs, Omitted: 7}
	var out *validationError
	allocs := testing.AllocsPerRun(3, func() { out = invalidInput(e) })
	assert.Less(t, allocs, 100.0, "one builder per parameter, not one string per failure")
	require.Contains(t, out.ParameterErrors, "p")
	assert.Len(t, out.ParameterErrors["p"], n*len("/x: bad")+(n-1)*len("; "))
	assert.Equal(t, "The input parameters are invalid (7 more failures were omitted)", out.Message)
}
