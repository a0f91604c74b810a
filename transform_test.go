package toolexec_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// trail records the order in which pipeline pieces ran.
type trail struct {
	mu    sync.Mutex
	steps []string
}

func (tr *trail) add(s string) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.steps = append(tr.steps, s)
}

func (tr *trail) get() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return append([]string(nil), tr.steps...)
}

// appendArg is an input transform that records its name and appends it to
// the "path" argument.
func appendArg(tr *trail, name string) toolexec.InputTransform {
	return func(_ context.Context, c *toolexec.Call) (map[string]any, error) {
		tr.add(name)
		path, _ := c.Arguments["path"].(string)
		out := map[string]any{}
		for k, v := range c.Arguments {
			out[k] = v
		}
		out["path"] = path + "/" + name
		return out, nil
	}
}

// appendText is an output transform that records its name and appends it
// to the result's text.
func appendText(tr *trail, name string) toolexec.OutputTransform {
	return func(_ context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		tr.add(name)
		return &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(res.Text() + "+" + name)}}, nil
	}
}

func TestTransformsRunInOrderAndReplaceArgumentsAndResult(t *testing.T) {
	tr := new(trail)
	h := func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		tr.add("handler")
		return echoArgs(ctx, name, args)
	}
	tool := toolexec.Tool{Name: "t", Options: toolexec.ToolOptions{
		InputTransforms:  []toolexec.InputTransform{appendArg(tr, "in-tool")},
		OutputTransforms: []toolexec.OutputTransform{appendText(tr, "out-tool")},
	}}
	x := newExec(t, tool, h,
		toolexec.WithInputTransforms(appendArg(tr, "in-1"), appendArg(tr, "in-2")),
		toolexec.WithOutputTransforms(appendText(tr, "out-1"), appendText(tr, "out-2")))

	res, err := call(x, "t", `{"path":"","keep":true}`)

	require.NoError(t, err)
	assert.Equal(t, []string{"in-1", "in-2", "in-tool", "handler", "out-tool", "out-1", "out-2"}, tr.get())
	assert.Equal(t, `{"keep":true,"path":"/in-1/in-2/in-tool"}+out-tool+out-1+out-2`, res.Text(),
		"the handler got the last input transform's arguments; each output transform replaced the result")
}

func TestInputTransformSeesTheCallAndItsRequest(t *testing.T) {
	var gotSurface toolexec.Surface
	var gotHeader string
	in := func(ctx context.Context, c *toolexec.Call) (map[string]any, error) {
		gotSurface = c.Surface
		gotHeader = toolexec.RequestFromContext(ctx).Header.Get("X-Tenant")
		c.Arguments["tenant"] = gotHeader
		return c.Arguments, nil
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, echoArgs, toolexec.WithInputTransforms(in))
	req, err := http.NewRequest(http.MethodPost, "/tools/t/call", nil)
	require.NoError(t, err)
	req.Header.Set("X-Tenant", "acme")

	res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "t", Arguments: []byte(`{"q":1}`), Request: req, Surface: toolexec.SurfaceREST})

	require.NoError(t, err)
	assert.Equal(t, toolexec.SurfaceREST, gotSurface)
	assert.Equal(t, `{"q":1,"tenant":"acme"}`, res.Text())
}

func TestTransformFailureEndsTheCallAsTransformError(t *testing.T) {
	sentinel := errors.New("no such unit")
	failIn := func(context.Context, *toolexec.Call) (map[string]any, error) { return nil, sentinel }
	failOut := func(context.Context, *toolexec.Call, *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		return nil, sentinel
	}
	rejectIn := func(context.Context, *toolexec.Call) (map[string]any, error) {
		return nil, &toolexec.Error{Code: toolexec.CodeInvalidArguments, Message: "city is required"}
	}
	panicIn := func(context.Context, *toolexec.Call) (map[string]any, error) { panic("transform boom") }

	tests := []struct {
		name       string
		opt        toolexec.Option
		code       toolexec.Code
		message    string
		handlerRan bool
	}{
		{"input error", toolexec.WithInputTransforms(failIn), toolexec.CodeInternal, "input transform: no such unit", false},
		{"output error", toolexec.WithOutputTransforms(failOut), toolexec.CodeInternal, "output transform: no such unit", true},
		{"input *Error keeps its code", toolexec.WithInputTransforms(rejectIn), toolexec.CodeInvalidArguments, "city is required", false},
		{"input panic", toolexec.WithInputTransforms(panicIn), toolexec.CodePanic, toolexec.PanicMessage, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ran := false
			h := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
				ran = true
				return nil, false, "", nil
			}
			x := newExec(t, toolexec.Tool{Name: "t"}, h, tt.opt)

			res, err := call(x, "t", `{}`)

			assert.Nil(t, res)
			e := requireError(t, err, toolexec.StageTransform, tt.code)
			assert.Equal(t, tt.message, e.Message)
			assert.Equal(t, tt.handlerRan, ran)
			if tt.code == toolexec.CodeInternal {
				assert.ErrorIs(t, err, sentinel)
			}
		})
	}
}

func TestTransformFailureOverREST(t *testing.T) {
	failIn := func(context.Context, *toolexec.Call) (map[string]any, error) { return nil, errors.New("bad input") }
	x := newExec(t, toolexec.Tool{Name: "t"}, textHandler("never"), toolexec.WithInputTransforms(failIn))

	r := restCall(t, x, "t", `{}`)

	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, true, r.body["isError"])
	assert.Equal(t, "input transform: bad input", resultText(t, r.body))
}

func TestOutputTransformSeesIsErrorResultsButNotFailedCalls(t *testing.T) {
	var seen []bool
	out := func(_ context.Context, _ *toolexec.Call, res *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		seen = append(seen, res.IsError)
		return res, nil
	}
	isErr := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("nope")}, true, "", nil
	}
	fails := func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", errors.New("broken")
	}
	x := multiExec(t, func(ctx context.Context, name string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		if name == "iserr" {
			return isErr(ctx, name, args)
		}
		return fails(ctx, name, args)
	}, []toolexec.Tool{{Name: "iserr"}, {Name: "fails"}}, toolexec.WithOutputTransforms(out))

	res, err := call(x, "iserr", `{}`)
	require.NoError(t, err)
	assert.True(t, res.IsError)
	_, err = call(x, "fails", `{}`)
	requireError(t, err, toolexec.StageExecute, toolexec.CodeToolError)

	assert.Equal(t, []bool{true}, seen)
}

func TestTransformsReturningNilMeanEmpty(t *testing.T) {
	nilIn := func(context.Context, *toolexec.Call) (map[string]any, error) { return nil, nil }
	nilOut := func(context.Context, *toolexec.Call, *toolexec.CallToolResult) (*toolexec.CallToolResult, error) {
		return nil, nil
	}
	var got map[string]any
	h := func(_ context.Context, _ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		got = args
		return []toolexec.Content{toolexec.Text("x")}, false, "", nil
	}
	x := newExec(t, toolexec.Tool{Name: "t"}, h, toolexec.WithInputTransforms(nilIn), toolexec.WithOutputTransforms(nilOut))

	res, err := call(x, "t", `{"a":1}`)

	require.NoError(t, err)
	assert.Equal(t, map[string]any{}, got)
	assert.Equal(t, &toolexec.CallToolResult{}, res)
}
