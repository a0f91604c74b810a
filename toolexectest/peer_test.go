package toolexectest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/toolexectest"
)

type greetIn struct{}
type greetOut struct {
	Greeting string `json:"greeting"`
}

// greeter reports progress twice (the second report not an increase), logs,
// and asks for a name.
func greeter(t *testing.T) *toolexec.Executor {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{Name: "greet"}, func(ctx context.Context, _ greetIn) (greetOut, error) {
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "asking"})
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "again"})
		//lint:ignore SA1019 the recorder records log messages as long as they exist
		_ = toolexec.Logf(ctx, toolexec.LogDebug, "about to ask")
		res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{
			Message:         "Your name?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
		})
		if err != nil {
			return greetOut{}, err
		}
		_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 2, Total: 2})
		return greetOut{Greeting: fmt.Sprintf("Hello, %v!", res.Content["name"])}, nil
	})
	return toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
}

func TestPeerRecordsProgressLogsAndAnswersInput(t *testing.T) {
	x := greeter(t)
	p := &toolexectest.Peer{Answer: toolexectest.AcceptForm(map[string]any{"name": "Ada"})}
	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "greet", Peer: p})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	out, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	assert.JSONEq(t, `{"greeting":"Hello, Ada!"}`, string(out))

	assert.Equal(t, []toolexec.Progress{{Progress: 1, Total: 2, Message: "asking"}, {Progress: 2, Total: 2}}, p.ProgressReports(),
		"a report that does not increase is dropped, as MCP drops it")
	require.Len(t, p.Logs(), 1)
	assert.Equal(t, toolexec.LogDebug, p.Logs()[0].Level)
	require.Len(t, p.Asked(), 1)
	assert.Equal(t, "name", p.Asked()[0].Key)
	assert.Equal(t, "Your name?", p.Asked()[0].Elicit.Message)
}

func TestAPeerWithoutAnswerCannotBeAsked(t *testing.T) {
	x := greeter(t)
	p := &toolexectest.Peer{}
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "greet", Peer: p})
	require.ErrorIs(t, err, toolexec.ErrInputUnsupported, "the call fails as it does for a caller that cannot be asked")
	assert.Len(t, p.ProgressReports(), 1, "progress before the question is still recorded")
}

func TestKindsLimitWhatThePeerAnswers(t *testing.T) {
	p := &toolexectest.Peer{Answer: toolexectest.AcceptForm(nil), Kinds: []toolexec.InputKind{toolexec.InputKindSampling}}
	assert.False(t, p.InputSupported(toolexec.InputKindElicitForm))
	assert.True(t, p.InputSupported(toolexec.InputKindSampling))
	_, err := p.RequestInput(context.Background(), []toolexec.InputRequest{{Key: "a", Elicit: &toolexec.ElicitRequest{Message: "?"}}})
	assert.ErrorIs(t, err, toolexec.ErrInputUnsupported)
}
