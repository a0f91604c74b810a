package toolexec

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nameHandler(label string) BasicToolCallHandlerFunc {
	return func(name string, _ map[string]any) ([]Content, bool, string, error) {
		return []Content{Text(label)}, false, "", nil
	}
}

func TestRegistryZeroValueIsUsable(t *testing.T) {
	var reg Registry
	require.NoError(t, reg.Add(Tool{Name: "a"}, nameHandler("a")))
	assert.Len(t, reg.Tools(), 1)
}

func TestRegistryAddRejectsBadRegistrations(t *testing.T) {
	reg := NewRegistry()
	require.NoError(t, reg.Add(Tool{Name: "a", Version: "1.0.0"}, nameHandler("a")))
	assert.ErrorContains(t, reg.Add(Tool{}, nameHandler("x")), "no name")
	assert.ErrorContains(t, reg.Add(Tool{Name: "a", Version: "1.0.0"}, nameHandler("x")), "already registered")
	assert.ErrorContains(t, reg.Add(Tool{Name: "b"}, 42), "not a tool call handler")
	assert.NoError(t, reg.Add(Tool{Name: "a", Version: "2.0.0"}, nameHandler("x")), "another version is fine")
	assert.Panics(t, func() { reg.MustAdd(Tool{}, nameHandler("x")) })
}

func TestRegistryCallsReachTheResolvedVersion(t *testing.T) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "calc", Version: "1.0.0"}, nameHandler("v1"))
	reg.MustAdd(Tool{Name: "calc", Version: "10.0.0"}, nameHandler("v10"))
	reg.MustAdd(Tool{Name: "calc", Version: "2.0.0"}, nameHandler("v2"))
	x := New(reg, reg, WithAllowExecute(true))

	for version, want := range map[string]string{"": "v10", "1.0.0": "v1", "2.0.0": "v2", "10.0.0": "v10"} {
		res, err := x.Call(context.Background(), CallRequest{Name: "calc", Version: version})
		require.NoError(t, err, version)
		assert.Equal(t, want, res.Text(), "version %q", version)
	}
	tools := x.latestTools()
	require.Len(t, tools, 1, "discovery shows one entry per name")
	assert.Equal(t, "10.0.0", tools[0].Version, "the latest by semver, not by registration order")
	assert.Len(t, x.SurfaceKit().AllTools(), 3)
}

func TestRegistryRemove(t *testing.T) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "a"}, nameHandler("a"))
	reg.MustAdd(Tool{Name: "b"}, nameHandler("b"))
	assert.True(t, reg.Remove("a", ""))
	assert.False(t, reg.Remove("a", ""))
	assert.Equal(t, []Tool{{Name: "b"}}, reg.Tools())
	_, err := New(reg, reg, WithAllowExecute(true)).Call(context.Background(), CallRequest{Name: "a"})
	e, _ := AsError(err)
	assert.Equal(t, CodeNotFound, e.Code)
}

func TestRegistryToolsReturnsACopy(t *testing.T) {
	reg := NewRegistry()
	reg.MustAdd(Tool{Name: "a"}, nameHandler("a"))
	tools := reg.Tools()
	tools[0].Name = "mutated"
	assert.Equal(t, "a", reg.Tools()[0].Name)
}

func TestRegistryIsSafeForConcurrentUse(t *testing.T) {
	reg := NewRegistry()
	x := New(reg, reg, WithAllowExecute(true))
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(3)
		name := fmt.Sprintf("t%d", i)
		go func() { defer wg.Done(); reg.MustAdd(Tool{Name: name}, nameHandler(name)) }()
		go func() { defer wg.Done(); _ = x.latestTools() }()
		go func() { defer wg.Done(); _, _ = x.Call(context.Background(), CallRequest{Name: name}) }()
	}
	wg.Wait()
	assert.Len(t, reg.Tools(), 50)
}

func TestStaticProviderLookupPicksLatestVersion(t *testing.T) {
	tools := StaticTools{{Name: "a", Version: "1.2.0"}, {Name: "a", Version: "1.10.0"}, {Name: "a"}, {Name: "b"}}
	x := New(tools, nameHandler("x"))
	got, ok := x.Lookup("a", "")
	require.True(t, ok)
	assert.Equal(t, "1.10.0", got.Version)
	got, ok = x.Lookup("a", "1.2.0")
	require.True(t, ok)
	assert.Equal(t, "1.2.0", got.Version)
	_, ok = x.Lookup("a", "1.3.0")
	assert.False(t, ok)
	assert.Equal(t, []Tool{{Name: "a", Version: "1.10.0"}, {Name: "b"}}, x.latestTools())
}
