package toolexec_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// versionedTools registers "calc" in versions out of order, with a
// pre-release above every release, plus an unrelated tool.
var versionedTools = []toolexec.Tool{
	{Name: "calc", Version: "1.2.0"},
	{Name: "calc", Version: "1.10.0"},
	{Name: "other", Version: "3.0.0"},
	{Name: "calc", Version: "2.0.0-rc.1"},
	{Name: "calc", Version: "1.9.0"},
	{Name: "calc", Version: "1.0.0+build.7"},
}

// providers yields the same tool list through both lookup paths: a plain
// ToolProvider (Executor scans the list) and a Registry (ToolLookup).
func providers(t *testing.T, tools []toolexec.Tool) map[string]toolexec.ToolProvider {
	t.Helper()
	reg := &toolexec.Registry{}
	for _, tool := range tools {
		require.NoError(t, reg.Add(tool, echoVersion))
	}
	return map[string]toolexec.ToolProvider{"StaticTools": toolexec.StaticTools(tools), "Registry": reg}
}

// echoVersion answers with the version of the tool the pipeline resolved.
func echoVersion(ctx context.Context, name string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	return []toolexec.Content{toolexec.Text(name + "@" + toolexec.CallFromContext(ctx).Tool.Version)}, false, "", nil
}

func TestLookupResolvesVersions(t *testing.T) {
	cases := []struct {
		name, version string
		want          string // resolved version; "-" for not found
	}{
		{"calc", "", "1.10.0"},               // highest release by semver, not registration order or string order
		{"calc", "1.2.0", "1.2.0"},           // exact
		{"calc", "1.9.0", "1.9.0"},           // exact
		{"calc", "2.0.0-rc.1", "2.0.0-rc.1"}, // a pre-release is reachable by its version
		{"calc", "1.0.0", "1.0.0+build.7"},   // equal precedence: build metadata ignored
		{"calc", "1.0.0+build.7", "1.0.0+build.7"},
		{"calc", "1.0.0+other", "1.0.0+build.7"},
		{"calc", "2.0.0", "-"},
		{"calc", "1", "-"},    // shorthands are the surface's to expand
		{"calc", "1.10", "-"}, // likewise
		{"nope", "", "-"},
		{"other", "", "3.0.0"},
	}
	for pname, p := range providers(t, versionedTools) {
		x := toolexec.New(p, echoVersion)
		for _, tc := range cases {
			got, ok := x.Lookup(tc.name, tc.version)
			if tc.want == "-" {
				assert.False(t, ok, "%s: Lookup(%q, %q) = %q", pname, tc.name, tc.version, got.Version)
				continue
			}
			if assert.True(t, ok, "%s: Lookup(%q, %q)", pname, tc.name, tc.version) {
				assert.Equal(t, tc.name, got.Name)
				assert.Equal(t, tc.want, got.Version, "%s: Lookup(%q, %q)", pname, tc.name, tc.version)
			}
		}
	}
}

func TestLatestPrefersReleasesOverPreReleases(t *testing.T) {
	cases := []struct {
		title    string
		versions []string
		want     string
	}{
		{"release beats a higher pre-release", []string{"3.0.0-beta.1", "2.5.0", "3.0.0-rc.1"}, "2.5.0"},
		{"only pre-releases: the highest one", []string{"3.0.0-beta.2", "3.0.0-beta.11", "3.0.0-alpha"}, "3.0.0-beta.11"},
		{"unversioned counts lowest", []string{"", "0.0.1"}, "0.0.1"},
		{"pre-release beats unversioned", []string{"", "0.1.0-rc.1"}, "0.1.0-rc.1"},
		{"only unversioned", []string{""}, ""},
		{"equal precedence: first registered wins", []string{"1.0.0+b", "1.0.0+a"}, "1.0.0+b"},
	}
	for _, tc := range cases {
		t.Run(tc.title, func(t *testing.T) {
			var tools []toolexec.Tool
			for _, v := range tc.versions {
				tools = append(tools, toolexec.Tool{Name: "t", Version: v})
			}
			// Registry.Add refuses equal versions, so only StaticTools can hold
			// the last case; the others run through both paths.
			ps := map[string]toolexec.ToolProvider{"StaticTools": toolexec.StaticTools(tools)}
			if !strings.HasPrefix(tc.title, "equal") {
				ps = providers(t, tools)
			}
			for pname, p := range ps {
				x := toolexec.New(p, echoVersion)
				got, ok := x.Lookup("t", "")
				require.True(t, ok, pname)
				assert.Equal(t, tc.want, got.Version, pname)
				latest := x.SurfaceKit().LatestTools()
				require.Len(t, latest, 1, pname)
				assert.Equal(t, tc.want, latest[0].Version, "%s: Tools() agrees with Lookup", pname)
			}
		})
	}
}

func TestLatestToolsKeepsOneToolPerNameInFirstAppearanceOrder(t *testing.T) {
	got := toolexec.New(toolexec.StaticTools(versionedTools), echoVersion).SurfaceKit().LatestTools()
	require.Len(t, got, 2)
	assert.Equal(t, "calc", got[0].Name)
	assert.Equal(t, "1.10.0", got[0].Version)
	assert.Equal(t, "other", got[1].Name)
	assert.Equal(t, "3.0.0", got[1].Version)
	assert.Empty(t, toolexec.New(toolexec.StaticTools(nil), echoVersion).SurfaceKit().LatestTools())
}

func TestExecutorAllToolsListsEveryVersion(t *testing.T) {
	x := toolexec.New(toolexec.StaticTools(versionedTools), echoVersion)
	assert.Equal(t, versionedTools, x.SurfaceKit().AllTools())
}

func TestCallRunsTheHandlerOfTheResolvedVersion(t *testing.T) {
	for pname, p := range providers(t, versionedTools) {
		x := toolexec.New(p, echoVersion, toolexec.WithAllowExecute(true))
		for version, want := range map[string]string{"": "calc@1.10.0", "1.2.0": "calc@1.2.0", "2.0.0-rc.1": "calc@2.0.0-rc.1", "1.0.0": "calc@1.0.0+build.7"} {
			res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "calc", Version: version})
			require.NoError(t, err, "%s %q", pname, version)
			assert.Equal(t, want, res.Text(), "%s %q", pname, version)
		}
		_, err := x.Call(context.Background(), toolexec.CallRequest{Name: "calc", Version: "9.9.9"})
		e, ok := toolexec.AsError(err)
		require.True(t, ok, pname)
		assert.Equal(t, toolexec.CodeNotFound, e.Code)
		assert.Equal(t, toolexec.StageResolve, e.Stage)
		assert.Equal(t, "Tool not found: calc@9.9.9", e.Message)
	}
}

func TestRegistryRunsEachVersionsOwnHandler(t *testing.T) {
	reg := &toolexec.Registry{}
	handlerFor := func(label string) toolexec.BasicToolCallHandlerFunc {
		return func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
			return []toolexec.Content{toolexec.Text(label)}, false, "", nil
		}
	}
	reg.MustAdd(toolexec.Tool{Name: "t", Version: "2.0.0"}, handlerFor("v2"))
	reg.MustAdd(toolexec.Tool{Name: "t", Version: "10.0.0"}, handlerFor("v10"))
	reg.MustAdd(toolexec.Tool{Name: "t", Version: "1.0.0"}, handlerFor("v1"))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	for version, want := range map[string]string{"": "v10", "1.0.0": "v1", "2.0.0": "v2", "10.0.0": "v10"} {
		res, err := x.Call(context.Background(), toolexec.CallRequest{Name: "t", Version: version})
		require.NoError(t, err)
		assert.Equal(t, want, res.Text(), "version %q", version)
	}
	// Outside the pipeline, the registry runs the latest version.
	content, _, _, err := reg.HandleCall(context.Background(), "t", nil)
	require.NoError(t, err)
	assert.Equal(t, []toolexec.Content{toolexec.Text("v10")}, content)
}

func TestRegistryAddRejectsInvalidAndDuplicateVersions(t *testing.T) {
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(toolexec.Tool{Name: "t", Version: "1.0.0"}, echoVersion))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "t"}, echoVersion))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "u", Version: "1.0.0"}, echoVersion), "same version, other name")

	err := reg.Add(toolexec.Tool{Name: "t", Version: "1.0.0"}, echoVersion)
	assert.EqualError(t, err, `toolexec: Registry.Add: tool "t" version "1.0.0" is already registered`)
	err = reg.Add(toolexec.Tool{Name: "t", Version: "1.0.0+build.2"}, echoVersion)
	assert.EqualError(t, err, `toolexec: Registry.Add: tool "t" version "1.0.0" is already registered`, "equal precedence is a duplicate")
	err = reg.Add(toolexec.Tool{Name: "t"}, echoVersion)
	assert.EqualError(t, err, `toolexec: Registry.Add: tool "t" version "" is already registered`)
	for _, bad := range []string{"1", "1.0", "v1.0.0", "latest", "1.0.0-"} {
		err = reg.Add(toolexec.Tool{Name: "t", Version: bad}, echoVersion)
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "is not a semantic version", bad)
		}
	}
	assert.Len(t, reg.Tools(), 3, "failed Adds register nothing")
}

func TestRegistryRemoveTakesOneVersion(t *testing.T) {
	reg := &toolexec.Registry{}
	reg.MustAdd(toolexec.Tool{Name: "t", Version: "1.0.0+b.1"}, echoVersion)
	reg.MustAdd(toolexec.Tool{Name: "t", Version: "2.0.0"}, echoVersion)
	reg.MustAdd(toolexec.Tool{Name: "t"}, echoVersion)

	assert.False(t, reg.Remove("t", "3.0.0"))
	assert.True(t, reg.Remove("t", ""), `"" removes the unversioned tool, not the latest`)
	assert.False(t, reg.Remove("t", ""))
	assert.True(t, reg.Remove("t", "1.0.0"), "equal precedence matches")
	got, ok := reg.LookupTool("t", "")
	require.True(t, ok)
	assert.Equal(t, "2.0.0", got.Version)
	assert.True(t, reg.Remove("t", "2.0.0"))
	_, ok = reg.LookupTool("t", "")
	assert.False(t, ok)
}

func TestRESTSurfaceServesTheLatestVersion(t *testing.T) {
	for pname, p := range providers(t, versionedTools) {
		srv := httptest.NewServer(toolexec.NewHandler(toolexec.New(p, echoVersion, toolexec.WithAllowExecute(true))))

		resp, err := http.Get(srv.URL + "/tools")
		require.NoError(t, err)
		var list []map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&list))
		resp.Body.Close()
		assert.Len(t, list, 2, "%s: one entry per name", pname)

		resp, err = http.Post(srv.URL+"/tools/calc/call", "application/json", strings.NewReader(`{}`))
		require.NoError(t, err)
		var res toolexec.CallToolResult
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&res))
		resp.Body.Close()
		assert.Equal(t, "calc@1.10.0", res.Text(), pname)
		srv.Close()
	}
}
