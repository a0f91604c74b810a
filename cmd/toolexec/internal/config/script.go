package config

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/netguard"
)

// KindScript is the kind of a script tool (a toolexec extension): its
// source is a TypeScript or JavaScript file whose default export answers
// the calls.
const KindScript = "script"

// Script is a script file a tool runs: a script tool's handler, or a
// transform.
type Script struct {
	// Path is the file, absolute.
	Path string
	// Export is the function it runs, the name after a # in the
	// reference ("file.ts#shape"); "" is the default export.
	Export string
	// File, Line and Column locate the reference in the file that names
	// the script (Line and Column 1-based).
	File         string
	Line, Column int
}

// Transforms are a tool's transforms (a toolexec extension, on any tool):
// Input rewrites the arguments before they are validated, Output the
// result before it is answered. Either may be nil.
type Transforms struct {
	Input, Output *Script
}

// ScriptSettings are what a tool says about its scripts.
type ScriptSettings struct {
	// Handler is a script tool's script (kind script: its source).
	Handler *Script
	// Transforms are the tool's transforms.
	Transforms Transforms
	// FetchHosts (the tool's allowedHosts) are the hosts its scripts'
	// fetch may reach, each "HOST", "*.DOMAIN" or either with ":PORT";
	// none turns fetch off.
	FetchHosts []string
	// FetchPrivate (the tool's allowPrivateNetworks) lets those host
	// names resolve to private networks.
	FetchPrivate bool
	// OpenInputs says the tool declares no parameters and takes any
	// arguments object (a Hyperterse handler tool without inputs).
	OpenInputs bool
	// Unbound are parameters a Hyperterse tool declares that its
	// statement does not use: in its schema, never bound.
	Unbound []*Param
}

// Scripts returns the tool's scripts: its handler, then its input and
// output transforms, those it has.
func (t *Tool) Scripts() []*Script {
	var out []*Script
	for _, s := range []*Script{t.Handler, t.Transforms.Input, t.Transforms.Output} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// scriptExtensions are the files a script may be.
var scriptExtensions = []string{".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"}

// scriptRef reads a reference to a script, "path" or "path#export",
// relative to dir; the file must exist. A problem is reported at n.
func (p *parser) scriptRef(what, dir string, n *yaml.Node, ref string) *Script {
	ref = strings.TrimSpace(ref)
	path, export, _ := strings.Cut(ref, "#")
	path, export = strings.TrimSpace(path), strings.TrimSpace(export)
	if path == "" {
		p.errorf(n, "%s needs a script file (a .ts or .js file, relative to the tools file)", what)
		return nil
	}
	ok := false
	for _, ext := range scriptExtensions {
		ok = ok || strings.EqualFold(filepath.Ext(path), ext)
	}
	if !ok {
		p.errorf(n, "%s: %s is not a script: a script is a .ts, .mts, .cts, .js, .mjs or .cjs file", what, p.show(path))
		return nil
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		p.errorf(n, "%s: the script %s cannot be read", what, p.show(ref))
		return nil
	}
	s := &Script{Path: path, Export: export, File: p.file}
	if n != nil {
		s.Line, s.Column = n.Line, n.Column
	}
	return s
}

// scriptField reads the fields of a tool about its scripts: transforms,
// allowedHosts and allowPrivateNetworks.
func (p *parser) scriptField(what string, t *Tool, key string, v *yaml.Node) {
	switch key {
	case "transforms":
		p.fields(what+" transforms", v, func(key string, _, v *yaml.Node) bool {
			var dst **Script
			switch key {
			case "input":
				dst = &t.Transforms.Input
			case "output":
				dst = &t.Transforms.Output
			default:
				return false
			}
			*dst = p.scriptRef(what+" transforms "+key, p.cfg.Dir, v, p.str(what+" transforms "+key, v))
			return true
		})
	case "allowedHosts":
		t.FetchHosts = p.strlist(what+" allowedHosts", v)
		if v.Kind == yaml.SequenceNode {
			for i, h := range t.FetchHosts {
				if err := netguard.CheckEntry(h); err != nil {
					p.errorf(v.Content[i], "%s: allowedHosts entry %s: %v", what, p.show(h), err)
				}
			}
		}
	case "allowPrivateNetworks":
		t.FetchPrivate = p.boolean(what+" allowPrivateNetworks", v)
	}
}

// scriptTool checks a script tool: its source is its script, and it has
// none of the fields of sql and http tools. It is read-only only when the
// file says so (readOnly, or annotations' readOnlyHint): what a script
// does cannot be read from it.
func (p *parser) scriptTool(what string, nameNode *yaml.Node, t *Tool) {
	if t.Statement != "" || len(t.TemplateParameters) > 0 {
		p.errorf(nameNode, "%s: statement and templateParameters are for sql tools", what)
	}
	if t.Method != "" || t.Path != "" || len(t.PathParams)+len(t.QueryParams)+len(t.HeaderParams)+len(t.BodyParams) > 0 || t.RequestBody != "" || len(t.Headers) > 0 {
		p.errorf(nameNode, "%s: method, path, headers, requestBody and the http parameter lists are for http tools", what)
	}
	if t.Source != "" {
		t.Handler = p.scriptRef(what+" source", p.cfg.Dir, p.toolFields[t]["source"], t.Source)
	}
	if t.declaredReadOnly != nil {
		t.ReadOnly = *t.declaredReadOnly
	}
}

// checkScriptSettings reports fetch settings that do nothing: hosts on a
// tool without scripts (an http tool's hosts go on its source), private
// networks without hosts.
func (p *parser) checkScriptSettings(t *Tool) {
	what := "tool " + strconv.Quote(t.Name)
	if len(t.FetchHosts) > 0 && len(t.Scripts()) == 0 {
		p.toolProblem(t, "allowedHosts", "%s: allowedHosts on a tool lists the hosts its scripts' fetch may reach, and the tool has no script (an http tool's hosts go on its source)", what)
	}
	if t.FetchPrivate && len(t.FetchHosts) == 0 {
		p.toolProblem(t, "allowPrivateNetworks", "%s: allowPrivateNetworks on a tool is for the hosts of its allowedHosts, and it lists none", what)
	}
}
