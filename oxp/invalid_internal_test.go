package oxp

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// TestInvalidInputIsLinear holds the 422 answer's building to one pass: the
// failures of one parameter are written into one builder, so the bytes
// allocated grow with the failures, not with their square (joining them one
// at a time copied the message each time: 20,000 failures, ~2 GB).
func TestInvalidInputIsLinear(t *testing.T) {
	const n = 20000
	fs := make([]toolexec.ValidationFailure, n)
	for i := range fs {
		fs[i] = toolexec.ValidationFailure{Path: "/p/x", Message: "bad", Keyword: "type"}
	}
	e := &toolexec.Error{Stage: toolexec.StageValidate, Code: toolexec.CodeInvalidArguments, Failures: fs, Omitted: 7}
	var out *validationError
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out = invalidInput(e)
	runtime.ReadMemStats(&after)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(n*200), "bytes allocated: linear in the failures")
	require.Contains(t, out.ParameterErrors, "p")
	assert.Len(t, out.ParameterErrors["p"], n*len("/x: bad")+(n-1)*len("; "))
	assert.Equal(t, "The input parameters are invalid (7 more failures were omitted)", out.Message)
}
