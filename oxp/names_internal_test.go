package oxp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	semver "github.com/toolexec/toolexec/internal/version"
)

// randomName is a short name over a small alphabet rich in separators and
// underscores, so that collisions and unmappable names are frequent.
func randomName(r *rand.Rand) string {
	const alphabet = "ab_./-T"
	b := make([]byte, 1+r.IntN(7))
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

func TestMapsToAgreesWithMapName(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		name, target := randomName(r), randomName(r)
		if !validName(target) {
			continue
		}
		_, oxpName, ok := mapName(name, "T")
		assert.Equal(t, ok && oxpName == target, mapsTo(name, target, "T"), "name %q, target %q", name, target)
	}
	// Names at the 64-byte limit, with and without a namespace.
	long := strings.Repeat("k", 30) + "." + strings.Repeat("t", 33)
	assert.True(t, mapsTo(long, strings.ReplaceAll(long, ".", "_"), "T"))
	assert.True(t, mapsTo(strings.Repeat("t", 62), "T_"+strings.Repeat("t", 62), "T"))
}

// TestCallResolutionAgreesWithTheList checks, over random tool sets full of
// collisions and unmappable names, that a call resolves exactly the ids
// GET /tools lists, each to its own tool version, and nothing else.
func TestCallResolutionAgreesWithTheList(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	versions := []string{"", "1.0.0", "2.0.0", "1.0.0+b", "x"}
	for range 500 {
		var tools toolexec.StaticTools
		for range 1 + r.IntN(6) {
			tools = append(tools, toolexec.Tool{Name: randomName(r), Version: versions[r.IntN(len(versions))]})
		}
		noop := func(string, map[string]any) ([]toolexec.Content, bool, string, error) { return nil, false, "", nil }
		for _, provider := range []toolexec.ToolProvider{tools, indexed{tools, toolexec.New(tools, noop)}} {
			h := &handler{x: toolexec.New(provider, noop), toolkit: "T"}
			checkResolutionAgreesWithTheList(t, h, tools)
		}
	}
}

// indexed serves a static list through ToolLookup, answering as a pass over
// the list would, so that resolve takes its enumerating path.
type indexed struct {
	toolexec.StaticTools
	x *toolexec.Executor
}

func (i indexed) LookupTool(name, version string) (toolexec.Tool, bool) {
	return i.x.Lookup(name, version)
}

func checkResolutionAgreesWithTheList(t *testing.T, h *handler, tools toolexec.StaticTools) {
	t.Helper()
	listed := make(map[string]entry) // every way to call a listed version
	keys := make(map[string]bool)    // every listed id base and name
	for _, e := range h.catalog().entries {
		for _, key := range []string{e.base, e.name} {
			listed[key+"@"+e.version] = e
			keys[key] = true
		}
	}
	for id, want := range listed {
		var got entry
		bad := h.resolve(id, &got)
		if assert.Nil(t, bad, "%s in %v", id, tools) {
			assert.Equal(t, want.id(), got.id(), "%s in %v", id, tools)
			assert.Equal(t, want.tool.Name, got.tool.Name, "%s in %v", id, tools)
			assert.Equal(t, want.name, got.name, "%s in %v", id, tools)
		}
	}
	// Every other way to name a tool of the set resolves only to a
	// listed version: the latest, or one equal by precedence.
	for _, tool := range tools {
		base, oxpName, _ := mapName(tool.Name, "T")
		for _, key := range []string{tool.Name, base, oxpName, strings.ReplaceAll(oxpName, "_", ".")} {
			for _, v := range []string{"", "@latest", "@1", "@1.0.0", "@2.0.0", "@0.0.0", "@x", "@3.0.0"} {
				var e entry
				bad := h.resolve(key+v, &e)
				if !keys[key] {
					assert.NotNil(t, bad, "%s%s resolved to %v in %v", key, v, e, tools)
					continue
				}
				if bad != nil {
					continue
				}
				_, ok := listed[key+"@"+e.version]
				assert.True(t, ok, "%s%s resolved to %s, not listed, in %v", key, v, e.id(), tools)
				if v != "" && v != "@latest" {
					assert.Equal(t, 0, semver.Compare(e.version, expandVersion(v[1:])), "%s%s resolved to %s in %v", key, v, e.id(), tools)
				}
			}
		}
	}
}

func TestOnceLogRemembersABoundedNumberOfProblems(t *testing.T) {
	var o onceLog
	assert.True(t, o.first("a"))
	assert.False(t, o.first("a"))
	for i := 1; i < maxLogged; i++ {
		require.True(t, o.first(strings.Repeat("x", i)))
	}
	assert.False(t, o.first("one too many"), "past the bound, nothing is new")
	assert.Len(t, o.seen, maxLogged)
}

// TestThePackageHasNoMutableState parses the package's own files: no
// package-level var declarations, which the project's rules forbid.
func TestThePackageHasNoMutableState(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				t.Errorf("%s: package-level var", fset.Position(g.Pos()))
			}
		}
	}
}
