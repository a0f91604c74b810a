package toolexec_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// A number that does not fit a float64 can never reach a handler, which
// receives numbers as float64. The call is refused at the decode stage with
// a failure naming each such number, in the shape of a validation failure,
// and Validate says the same, with or without a schema.
func TestNumbersBeyondFloat64AreRefusedWithTheirPaths(t *testing.T) {
	ran := 0
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "free"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		ran++
		return nil, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	args := `{"a":1e400,"b":[1,-1e999],"c~/d":{"e":` + strings.Repeat("9", 400) + `},"ok":1e300}`
	want := []toolexec.ValidationFailure{
		{Path: "/a", Keyword: "format", Message: "number 1e400 is out of range: numbers must fit a 64-bit float"},
		{Path: "/b/1", Keyword: "format", Message: "number -1e999 is out of range: numbers must fit a 64-bit float"},
		{Path: "/c~0~1d/e", Keyword: "format", Message: "number " + strings.Repeat("9", 32) + "... is out of range: numbers must fit a 64-bit float"},
	}

	_, err := x.Call(t.Context(), toolexec.CallRequest{Name: "free", Arguments: json.RawMessage(args)})
	e, ok := toolexec.AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, toolexec.StageDecode, e.Stage)
	assert.Equal(t, toolexec.CodeInvalidArguments, e.Code)
	assert.Equal(t, want, e.Failures)
	assert.Zero(t, ran)

	res, err := x.Validate(t.Context(), "free", "", json.RawMessage(args))
	require.NoError(t, err)
	assert.False(t, res.Valid)
	assert.Equal(t, want, res.Errors)
}

// Arguments that are not an object keep their own message: the range check
// explains only objects that failed to decode because of their numbers.
func TestArgumentsThatAreNotAnObjectAreNotReportedAsNumbers(t *testing.T) {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "free"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	for _, args := range []string{`[1e400]`, `1e400`, `"x"`} {
		_, err := x.Call(t.Context(), toolexec.CallRequest{Name: "free", Arguments: json.RawMessage(args)})
		e, ok := toolexec.AsError(err)
		require.True(t, ok, args)
		assert.Equal(t, "arguments must be a JSON object", e.Message, args)
		assert.Empty(t, e.Failures, args)
	}
}
