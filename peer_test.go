package toolexec_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// askingRegistry holds one tool that asks its caller for input.
func askingRegistry() *toolexec.Registry {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ask", Description: "asks the user's name"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			// Progress and log messages without a Peer are dropped.
			if err := toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1}); err != nil {
				return nil, false, "", err
			}
			if err := toolexec.Logf(ctx, toolexec.LogInfo, "asking %s", "the user"); err != nil {
				return nil, false, "", err
			}
			res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{Message: "Your name?"})
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text(res.Action)}, false, "", nil
		})
	return reg
}

func TestWithoutAPeerProgressAndLogsAreDroppedAndInputIsUnsupported(t *testing.T) {
	reg := askingRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discard()))
	_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "ask"})
	e, ok := toolexec.AsError(err)
	require.True(t, ok)
	assert.Equal(t, toolexec.CodeToolError, e.Code)
	assert.ErrorIs(t, err, toolexec.ErrInputUnsupported)
	assert.False(t, toolexec.InputSupported(context.Background(), toolexec.InputKindElicitForm))
}

func TestRESTAnswersAToolThatNeedsInputWithAFixedError(t *testing.T) {
	reg := askingRegistry()
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discard())))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/tools/ask/call", strings.NewReader(`{}`)))
	assert.Equal(t, http.StatusInternalServerError, rec.Code)
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	body, _ := io.ReadAll(rec.Body)
	require.NoError(t, json.Unmarshal(body, &res), string(body))
	assert.True(t, res.IsError)
	require.Len(t, res.Content, 1)
	assert.Equal(t, toolexec.ErrInputUnsupported.Error(), res.Content[0].Text)
}

// fakePeer records what a tool sends and answers every input request.
type fakePeer struct {
	progress []toolexec.Progress
	logs     []toolexec.LogMessage
	asked    []toolexec.InputRequest
	support  bool
}

func (p *fakePeer) Progress(_ context.Context, pr toolexec.Progress) error {
	p.progress = append(p.progress, pr)
	return nil
}
func (p *fakePeer) Log(_ context.Context, m toolexec.LogMessage) error {
	p.logs = append(p.logs, m)
	return nil
}
func (p *fakePeer) InputSupported(toolexec.InputKind) bool { return p.support }
func (p *fakePeer) RequestInput(_ context.Context, reqs []toolexec.InputRequest) ([]toolexec.InputResponse, error) {
	if !p.support {
		return nil, toolexec.ErrInputUnsupported
	}
	p.asked = append(p.asked, reqs...)
	out := make([]toolexec.InputResponse, len(reqs))
	for i := range out {
		out[i].Elicit = &toolexec.ElicitResult{Action: "accept"}
	}
	return out, nil
}

func TestAPeerInTheCallsContextReachesTheTool(t *testing.T) {
	reg := askingRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discard()))
	peer := &fakePeer{support: true}
	res, err := x.Call(toolexec.ContextWithPeer(context.Background(), peer), toolexec.CallRequest{Name: "ask"})
	require.NoError(t, err)
	assert.Equal(t, "accept", res.Content[0].(*toolexec.TextContent).Text)
	assert.Equal(t, []toolexec.Progress{{Progress: 1}}, peer.progress)
	assert.Equal(t, []toolexec.LogMessage{{Level: toolexec.LogInfo, Data: "asking the user"}}, peer.logs)
	require.Len(t, peer.asked, 1)
	assert.Equal(t, "name", peer.asked[0].Key)

	unsupported := &fakePeer{}
	_, err = x.Call(toolexec.ContextWithPeer(context.Background(), unsupported), toolexec.CallRequest{Name: "ask"})
	assert.ErrorIs(t, err, toolexec.ErrInputUnsupported)
	assert.Empty(t, unsupported.asked, "a caller that cannot answer is not asked")
}

func TestRequestInputRefusesMalformedRequests(t *testing.T) {
	ctx := toolexec.ContextWithPeer(context.Background(), &fakePeer{support: true})
	_, err := toolexec.RequestInput(ctx, toolexec.InputRequest{Key: "a"})
	assert.ErrorContains(t, err, "sets 0 of Elicit, Sample and ListRoots")
	_, err = toolexec.RequestInput(ctx, toolexec.InputRequest{Elicit: &toolexec.ElicitRequest{}, ListRoots: &toolexec.ListRootsRequest{}})
	assert.ErrorContains(t, err, "sets 2")
	_, err = toolexec.RequestInput(ctx,
		toolexec.InputRequest{Key: "k", ListRoots: &toolexec.ListRootsRequest{}},
		toolexec.InputRequest{Key: "k", ListRoots: &toolexec.ListRootsRequest{}})
	assert.ErrorContains(t, err, `"k" is used twice`)
	res, err := toolexec.RequestInput(ctx, toolexec.InputRequest{Elicit: &toolexec.ElicitRequest{}}, toolexec.InputRequest{Elicit: &toolexec.ElicitRequest{}})
	require.NoError(t, err)
	assert.Len(t, res, 2)
}

func TestLogLevelSeverityOrdersTheEightLevels(t *testing.T) {
	levels := []toolexec.LogLevel{toolexec.LogDebug, toolexec.LogInfo, toolexec.LogNotice, toolexec.LogWarning,
		toolexec.LogError, toolexec.LogCritical, toolexec.LogAlert, toolexec.LogEmergency}
	for i, l := range levels {
		assert.Equal(t, i, l.Severity(), l)
	}
	assert.Equal(t, -1, toolexec.LogLevel("loud").Severity())
}

func TestSamplingTextReadsOneBlockOrMany(t *testing.T) {
	one := toolexec.CreateMessageResult{Content: json.RawMessage(`{"type":"text","text":"Paris"}`)}
	assert.Equal(t, "Paris", one.Text())
	many := toolexec.CreateMessageResult{Content: json.RawMessage(`[{"type":"text","text":"Pa"},{"type":"image","data":""},{"type":"text","text":"ris"}]`)}
	assert.Equal(t, "Paris", many.Text())
}

func TestAResultThatTookTheCallersAnswersIsNeverCached(t *testing.T) {
	var runs int
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ask", Options: toolexec.ToolOptions{Cache: true}},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			runs++
			res, err := toolexec.Elicit(ctx, "", toolexec.ElicitRequest{Message: "?"})
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text(res.Action)}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(discard()))
	for range 2 {
		peer := &fakePeer{support: true}
		_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "ask", Peer: peer})
		require.NoError(t, err)
		assert.Len(t, peer.asked, 1, "every caller is asked")
	}
	assert.Equal(t, 2, runs)
}
