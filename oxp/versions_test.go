package oxp_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/oxp"
)

// whoAmI answers with the OXP tool id and the toolexec version it ran as.
func whoAmI(ctx context.Context, name string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
	return []toolexec.Content{toolexec.Text(oxp.FromContext(ctx).ToolID + " ran " + name + "@" + toolexec.CallFromContext(ctx).Tool.Version)}, false, "", nil
}

func versionedRegistry(t *testing.T) *toolexec.Registry {
	reg := &toolexec.Registry{}
	// Registered out of order, with a pre-release above every release.
	for _, v := range []string{"1.2.0", "10.0.0-rc.1", "1.0.0", "2.0.0", "1.10.0"} {
		require.NoError(t, reg.Add(toolexec.Tool{Name: "Kit.Tool", Version: v}, whoAmI))
	}
	return reg
}

func TestCallResolvesToolVersions(t *testing.T) {
	h := newHandler(t, versionedRegistry(t), nil)
	cases := map[string]string{
		"Kit.Tool":             "Kit.Tool@2.0.0 ran Kit.Tool@2.0.0", // latest: the highest release, not the pre-release
		"Kit.Tool@latest":      "Kit.Tool@2.0.0 ran Kit.Tool@2.0.0",
		"Kit.Tool@1":           "Kit.Tool@1.0.0 ran Kit.Tool@1.0.0", // x means x.0.0, not the latest 1.x
		"Kit.Tool@2":           "Kit.Tool@2.0.0 ran Kit.Tool@2.0.0",
		"Kit.Tool@1.10":        "Kit.Tool@1.10.0 ran Kit.Tool@1.10.0",
		"Kit.Tool@1.2.0":       "Kit.Tool@1.2.0 ran Kit.Tool@1.2.0",
		"Kit.Tool@1.10.0":      "Kit.Tool@1.10.0 ran Kit.Tool@1.10.0",
		"Kit.Tool@10.0.0-rc.1": "Kit.Tool@10.0.0-rc.1 ran Kit.Tool@10.0.0-rc.1",
		"Kit.Tool@1.0.0+b.5":   "Kit.Tool@1.0.0 ran Kit.Tool@1.0.0", // build metadata ignored
		"Kit_Tool":             "Kit.Tool@2.0.0 ran Kit.Tool@2.0.0", // the OXP name works as an id too
		"Kit_Tool@1":           "Kit.Tool@1.0.0 ran Kit.Tool@1.0.0",
	}
	for toolID, want := range cases {
		m := callBody(t, call(h, toJSON(t, map[string]any{"tool_id": toolID})))
		assert.Equal(t, true, m["success"], toolID)
		assert.Equal(t, want, m["value"], toolID)
	}
}

func TestCallRefusesVersionsThatDoNotExist(t *testing.T) {
	h := newHandler(t, versionedRegistry(t), nil)
	cases := map[string]string{
		"Kit.Tool@3":      "Kit.Tool has no version 3.0.0 (available: 1.2.0, 10.0.0-rc.1, 1.0.0, 2.0.0, 1.10.0)",
		"Kit.Tool@1.1":    "Kit.Tool has no version 1.1.0 (available: 1.2.0, 10.0.0-rc.1, 1.0.0, 2.0.0, 1.10.0)",
		"Kit.Tool@10":     "Kit.Tool has no version 10.0.0 (available: 1.2.0, 10.0.0-rc.1, 1.0.0, 2.0.0, 1.10.0)",
		"Kit.Tool@v1":     "Kit.Tool has no version v1 (available: 1.2.0, 10.0.0-rc.1, 1.0.0, 2.0.0, 1.10.0)",
		"Kit.Tool@01":     "Kit.Tool has no version 01 (available: 1.2.0, 10.0.0-rc.1, 1.0.0, 2.0.0, 1.10.0)",
		"Kit.Tool@":       "the tool id ends in '@' without a version; use Toolkit.Tool@x.y.z, @x, or no version for the latest",
		"Kit.Other@1.0.0": `no tool has the id or name 'Kit.Other'; tool ids look like Toolkit.Tool@x.y.z (GET /tools lists them)`,
		"kit.tool":        `no tool has the id or name 'kit.tool'; tool ids look like Toolkit.Tool@x.y.z (GET /tools lists them)`, // ids are case-sensitive
		"Tool":            `no tool has the id or name 'Tool'; tool ids look like Toolkit.Tool@x.y.z (GET /tools lists them)`,
	}
	for toolID, dev := range cases {
		w := call(h, toJSON(t, map[string]any{"tool_id": toolID}))
		require.Equal(t, http.StatusBadRequest, w.Code, toolID)
		jsonEq(t, toJSON(t, map[string]string{"message": "Tool '" + toolID + "' is not available", "developer_message": dev}), w)
	}
}

func TestListShowsEveryVersionWithItsOwnID(t *testing.T) {
	h := newHandler(t, versionedRegistry(t), nil)
	w := do(h, http.MethodGet, "/tools", "")
	require.Equal(t, http.StatusOK, w.Code)
	var list struct {
		Items []struct{ ID, Name, Version string }
	}
	require.NoError(t, jsonUnmarshal(w, &list))
	var ids []string
	for _, it := range list.Items {
		ids = append(ids, it.ID)
		assert.Equal(t, "Kit_Tool", it.Name)
		assert.Equal(t, "Kit.Tool@"+it.Version, it.ID)
	}
	assert.Equal(t, []string{"Kit.Tool@1.2.0", "Kit.Tool@10.0.0-rc.1", "Kit.Tool@1.0.0", "Kit.Tool@2.0.0", "Kit.Tool@1.10.0"}, ids, "provider order")
}

func TestUnversionedToolsAreServedAs000(t *testing.T) {
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(toolexec.Tool{Name: "add"}, whoAmI))
	h := newHandler(t, reg, nil)

	w := do(h, http.MethodGet, "/tools", "")
	jsonEq(t, `{"items": [{"id": "Tools.add@0.0.0", "name": "Tools_add", "description": "", "version": "0.0.0",
		"input_schema": {"type": "object"}, "output_schema": null}]}`, w)

	for _, toolID := range []string{"Tools.add", "Tools.add@0", "Tools.add@0.0.0", "Tools_add@latest"} {
		m := callBody(t, call(h, toJSON(t, map[string]any{"tool_id": toolID})))
		assert.Equal(t, "Tools.add@0.0.0 ran add@", m["value"], toolID)
	}
}

func TestAnUnversionedEntryBesideVersionedOnesIsNotServed(t *testing.T) {
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(toolexec.Tool{Name: "Kit.Tool"}, whoAmI))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "Kit.Tool", Version: "0.1.0"}, whoAmI))
	h := newHandler(t, reg, nil)

	var list struct{ Items []struct{ ID string } }
	require.NoError(t, jsonUnmarshal(do(h, http.MethodGet, "/tools", ""), &list))
	require.Len(t, list.Items, 1)
	assert.Equal(t, "Kit.Tool@0.1.0", list.Items[0].ID)

	assert.Equal(t, http.StatusBadRequest, call(h, `{"tool_id": "Kit.Tool@0.0.0"}`).Code)
	m := callBody(t, call(h, `{"tool_id": "Kit.Tool"}`))
	assert.Equal(t, "Kit.Tool@0.1.0 ran Kit.Tool@0.1.0", m["value"])
}

func TestToolkitOptionNamesToolsWithoutANamespace(t *testing.T) {
	reg := &toolexec.Registry{}
	require.NoError(t, reg.Add(toolexec.Tool{Name: "add", Version: "1.0.0"}, whoAmI))
	require.NoError(t, reg.Add(toolexec.Tool{Name: "image/resize", Version: "1.0.0"}, whoAmI))
	h := newHandler(t, reg, nil, oxp.WithToolkit("Calculator"))

	var list struct{ Items []struct{ ID, Name string } }
	require.NoError(t, jsonUnmarshal(do(h, http.MethodGet, "/tools", ""), &list))
	require.Len(t, list.Items, 2)
	assert.Equal(t, "Calculator.add@1.0.0", list.Items[0].ID)
	assert.Equal(t, "Calculator_add", list.Items[0].Name)
	assert.Equal(t, "image.resize@1.0.0", list.Items[1].ID, "a namespaced name keeps its own toolkit")
	assert.Equal(t, "image_resize", list.Items[1].Name)

	m := callBody(t, call(h, `{"tool_id": "image.resize@1"}`))
	assert.Equal(t, "image.resize@1.0.0 ran image/resize@1.0.0", m["value"])
}

func TestNewHandlerPanicsOnABadToolkitName(t *testing.T) {
	x := toolexec.New(toolexec.StaticTools{}, whoAmI)
	for _, name := range []string{"", "a.b", "a b", "Ü"} {
		assert.Panics(t, func() { oxp.NewHandler(x, oxp.WithToolkit(name)) }, name)
	}
	assert.Panics(t, func() { oxp.NewHandler(nil) })
}

func TestToolsThatCannotMapOrCollideAreNotServed(t *testing.T) {
	logs := &logBuffer{}
	tools := toolexec.StaticTools{
		{Name: "ok.tool", Version: "1.0.0"},
		{Name: "has space", Version: "1.0.0"},
		{Name: "image/resize", Version: "1.0.0"},
		{Name: "image.resize", Version: "2.0.0"}, // same id base as image/resize
		{Name: "a_b.c", Version: "1.0.0"},
		{Name: "a.b_c", Version: "1.0.0"}, // same OXP name a_b_c
		{Name: "bad.schema", Version: "1.0.0", InputSchema: []byte(`{"type":`)},
	}
	x := toolexec.New(tools, whoAmI, toolexec.WithAllowExecute(true), toolexec.WithLogger(logs.Logger()))
	h := oxp.NewHandler(x)

	var list struct{ Items []struct{ ID string } }
	require.NoError(t, jsonUnmarshal(do(h, http.MethodGet, "/tools", ""), &list))
	require.Len(t, list.Items, 1)
	assert.Equal(t, "ok.tool@1.0.0", list.Items[0].ID)
	for _, name := range []string{`tool="has space"`, "tool=image/resize", "tool=image.resize", "tool=a_b.c", "tool=a.b_c", "tool=bad.schema@1.0.0"} {
		assert.Contains(t, logs.String(), name)
	}

	for _, id := range []string{"image.resize", "image_resize", "a_b.c", "a.b_c", "a_b_c", "has space"} {
		w := call(h, toJSON(t, map[string]any{"tool_id": id}))
		assert.Equal(t, http.StatusBadRequest, w.Code, "%s is never called: %s", id, w.Body.String())
	}
}

func TestTheProviderIsAskedOnEveryRequest(t *testing.T) {
	var tools []toolexec.Tool
	x := toolexec.New(toolexec.ToolProviderFunc(func() []toolexec.Tool { return tools }), whoAmI, toolexec.WithAllowExecute(true))
	h := oxp.NewHandler(x)
	jsonEq(t, `{"items": []}`, do(h, http.MethodGet, "/tools", ""))
	assert.Equal(t, http.StatusBadRequest, call(h, `{"tool_id": "Kit.Tool"}`).Code)

	tools = []toolexec.Tool{{Name: "Kit.Tool", Version: "1.0.0"}}
	assert.Contains(t, do(h, http.MethodGet, "/tools", "").Body.String(), `"id":"Kit.Tool@1.0.0"`)
	assert.Equal(t, "Kit.Tool@1.0.0 ran Kit.Tool@1.0.0", callBody(t, call(h, `{"tool_id": "Kit.Tool"}`))["value"])
}
