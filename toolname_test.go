package toolexec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/internal/testlog"
	"github.com/toolexec/toolexec/oxp"
)

func TestCheckToolNameIsMCPsRecommendation(t *testing.T) {
	for _, name := range []string{"getUser", "DATA_EXPORT_v2", "admin.tools.list", "text_upper", "text-upper", "a", "0", strings.Repeat("a", 128)} {
		assert.NoError(t, toolexec.CheckToolName(name), name)
	}
	for name, problem := range map[string]string{
		"":                       "it is empty",
		"text/upper":             `it contains '/' at byte 4`,
		"has space":              `it contains ' ' at byte 3`,
		"a,b":                    `it contains ',' at byte 1`,
		"café":                   `it contains 'é' at byte 3`,
		"bad\xffutf8":            "it contains byte 0xff at byte 3",
		"tab\there":              `it contains '\t' at byte 3`,
		strings.Repeat("a", 129): "it is 129 characters long",
	} {
		err := toolexec.CheckToolName(name)
		require.Error(t, err, "%q", name)
		assert.Contains(t, err.Error(), problem, "%q", name)
		assert.Contains(t, err.Error(), "1 to 128 characters, each A-Z, a-z, 0-9, '_', '-' or '.'", "the rule is named")
	}
}

func noop(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
	return nil, false, "", nil
}

// warnings returns the warning lines of logs.
func warnings(logs *testlog.Buffer) []string {
	var out []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "level=WARN") {
			out = append(out, line)
		}
	}
	return out
}

// A name outside MCP's recommendation is registered, served, and warned
// about once, naming the tool and the rule.
func TestRegistryWarnsOncePerNameOutsideMCPsRecommendation(t *testing.T) {
	logs := &testlog.Buffer{}
	reg := toolexec.NewRegistry(toolexec.WithRegistryLogger(logs.Logger()))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "text/upper", Version: "1.0.0"}, noop))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "text/upper", Version: "2.0.0"}, noop))
	require.NoError(t, toolexec.AddTool(reg, toolexec.Tool{Name: "has space"},
		func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil }))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "text_upper"}, noop))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "text.upper"}, noop))

	lines := warnings(logs)
	require.Len(t, lines, 2, logs.String())
	assert.Contains(t, lines[0], "tool=text/upper")
	assert.Contains(t, lines[0], `rule="1 to 128 characters, each A-Z, a-z, 0-9, '_', '-' or '.' (MCP 2025-11-25, \"Tool names\")"`)
	assert.Contains(t, lines[0], `it contains '/' at byte 4`)
	assert.Contains(t, lines[1], `tool="has space"`)
	assert.Len(t, reg.Tools(), 5, "every tool is registered")

	// and served: REST finds the namespaced name, plainly or percent-encoded
	h := toolexec.NewHandler(toolexec.New(reg, reg, toolexec.WithLogger(logs.Logger())))
	for _, path := range []string{"/tools/text/upper", "/tools/text%2Fupper"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusOK, w.Code, path)
	}
	assert.Len(t, warnings(logs), 2, "the Executor does not warn again about a Registry's names")
}

func TestStrictToolNamesRefusesNamesOutsideMCPsRecommendation(t *testing.T) {
	logs := &testlog.Buffer{}
	reg := toolexec.NewRegistry(toolexec.WithStrictToolNames(), toolexec.WithRegistryLogger(logs.Logger()))
	changes := 0
	reg.OnToolsChanged(func() { changes++ })

	err := reg.Add(toolexec.Tool{Name: "text/upper"}, noop)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `Registry.Add: tool name "text/upper" is not of the form MCP recommends`)
	assert.Contains(t, err.Error(), "1 to 128 characters")
	assert.Contains(t, err.Error(), "WithStrictToolNames")

	err = toolexec.AddTool(reg, toolexec.Tool{Name: strings.Repeat("x", 129)},
		func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "it is 129 characters long")
	assert.Panics(t, func() { reg.MustAdd(toolexec.Tool{Name: "a b"}, noop) })

	err = reg.Add(toolexec.Tool{}, noop)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tool has no name", "an empty name is refused as before")

	assert.Empty(t, reg.Tools(), "nothing was registered")
	assert.Zero(t, changes, "nor reported")
	assert.Empty(t, warnings(logs), "refused, not warned about")

	require.NoError(t, reg.Add(toolexec.Tool{Name: "text_upper"}, noop))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "text.upper", Version: "1.0.0"}, noop))
	assert.Len(t, reg.Tools(), 2)
}

// A provider other than a Registry registers nothing: its names are warned
// about the first time a surface lists them, once per Executor whatever the
// surface.
func TestListedNamesOutsideMCPsRecommendationAreWarnedAboutOnce(t *testing.T) {
	logs := &testlog.Buffer{}
	tools := toolexec.StaticTools{{Name: "text/upper"}, {Name: "fine_name"}, {Name: "Kit.Tool", Version: "1.0.0"}}
	x := toolexec.New(tools, noop, toolexec.WithLogger(logs.Logger()))
	assert.Empty(t, warnings(logs), "nothing listed yet")

	rest, oxpHandler := toolexec.NewHandler(x), oxp.NewHandler(x)
	for range 3 {
		for _, h := range []http.Handler{rest, oxpHandler} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/tools", nil))
			require.Equal(t, http.StatusOK, w.Code)
		}
	}
	lines := warnings(logs)
	require.Len(t, lines, 1, logs.String())
	assert.Contains(t, lines[0], "tool=text/upper")
	assert.Contains(t, lines[0], "rule=")
}
