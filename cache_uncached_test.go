package toolexec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
)

func TestACacheableCallWithoutIdentityIsWarnedAboutOncePerTool(t *testing.T) {
	var logs testlog.Buffer
	reg := toolexec.NewRegistry()
	handler := func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("ok")}, false, "", nil
	}
	reg.MustAdd(toolexec.Tool{Name: "a", Options: toolexec.ToolOptions{Cache: true}}, handler)
	reg.MustAdd(toolexec.Tool{Name: "b", Options: toolexec.ToolOptions{Cache: true}}, handler)
	reg.MustAdd(toolexec.Tool{Name: "shared", Options: toolexec.ToolOptions{Cache: true, CacheShared: true}}, handler)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(logs.Logger()))

	for _, name := range []string{"a", "a", "a", "b", "shared"} {
		_, err := x.Call(context.Background(), toolexec.CallRequest{Name: name})
		require.NoError(t, err)
	}
	_, err := x.Call(toolexec.ContextWithIdentity(context.Background(), "alice"), toolexec.CallRequest{Name: "a"})
	require.NoError(t, err)

	out := logs.String()
	assert.Equal(t, 2, strings.Count(out, "level=WARN"), out)
	assert.Equal(t, 1, strings.Count(out, "tool=a"), "once for a")
	assert.Equal(t, 1, strings.Count(out, "tool=b"), "once for b")
	assert.NotContains(t, out, "tool=shared", "a tool with shared results is cached without identity")
	assert.Contains(t, out, "toolexec.ContextWithIdentity", "the warning says what to do")
}
