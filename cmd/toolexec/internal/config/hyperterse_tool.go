package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// toolSegment is what a tool's directory name keeps in its tool name.
var toolSegment = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// hyperToolName is the name Hyperterse gives the tool in the directory at
// rel (relative to the tools directory): its segments, each lower case
// with runs of other characters made "-", joined by "-"; "index" for the
// tools directory itself.
func hyperToolName(rel string) string {
	rel = filepath.ToSlash(rel)
	if rel == "." || rel == "" {
		return "index"
	}
	parts := strings.Split(rel, "/")
	for i, s := range parts {
		s = strings.Trim(toolSegment.ReplaceAllString(strings.TrimSpace(s), "-"), "-_")
		if s == "" {
			s = "index"
		}
		parts[i] = strings.ToLower(s)
	}
	return strings.Join(parts, "-")
}

// hyperTypes are the types of Hyperterse's inputs, as toolexec's
// parameter types.
var hyperTypes = map[string]string{
	"string": TypeString, "datetime": TypeString, "int": TypeInteger, "integer": TypeInteger,
	"float": TypeFloat, "number": TypeFloat, "boolean": TypeBoolean, "bool": TypeBoolean,
}

// hyperTool is what a tool file says, before it is made a Tool.
type hyperTool struct {
	nameNode, use, statement, inputs, handler *yaml.Node
	mapperIn, mapperOut                       *yaml.Node
	dir                                       string
}

// tool reads one tool file (app/tools/NAME/config.terse).
func (h *hyperterse) tool(path string) {
	p := h.p
	body := h.read(path)
	if body == nil {
		return
	}
	ht := &hyperTool{dir: filepath.Dir(path)}
	rel, _ := filepath.Rel(h.proj.tools, ht.dir)
	t := &Tool{Name: hyperToolName(rel), Line: body.Line}
	var ann *annotations
	var cacheSet bool
	p.fields("tool", body, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "name":
			ht.nameNode = v
		case "description":
			t.Description = h.hstr("tool description", v)
		case "use":
			ht.use = v
		case "statement":
			ht.statement = v
		case "inputs":
			ht.inputs = v
		case "handler":
			ht.handler = h.once(ht.handler, v, "handler")
		case "mappers", "scripts":
			p.fields("tool "+key, v, func(key string, _, v *yaml.Node) bool {
				switch key {
				case "handler":
					ht.handler = h.once(ht.handler, v, "handler")
				case "input", "input_transform":
					ht.mapperIn = h.once(ht.mapperIn, v, "the input transform")
				case "output", "output_transform":
					ht.mapperOut = h.once(ht.mapperOut, v, "the output transform")
				default:
					return false
				}
				return true
			})
		case "auth":
			h.auth(v)
		case "cache":
			cacheSet = true
			h.cache(v, t)
		case "data":
			p.errorf(k, "tool: data is not supported by toolexec")
		// toolexec's own fields.
		case "timeout":
			t.Timeout = p.duration("tool timeout", v)
		case "maxConcurrency":
			t.MaxConcurrency = p.integer("tool maxConcurrency", v)
		case "rateLimit":
			t.RateLimit = p.rateLimit("tool rateLimit", v)
		case "taskSupport":
			t.TaskSupport = p.taskSupport("tool taskSupport", v)
		case "scopes":
			t.Scopes = p.strlist("tool scopes", v)
		case "maxRows":
			t.MaxRows = p.integer("tool maxRows", v)
		case "maxBytes":
			t.MaxBytes = p.integer("tool maxBytes", v)
		case "readOnly":
			b := p.boolean("tool readOnly", v)
			t.declaredReadOnly = &b
		case "annotations":
			ann = p.annotations("tool", v)
		case "allowedHosts", "allowPrivateNetworks":
			p.scriptField("tool", t, key, v)
		default:
			return false
		}
		return true
	})
	if ht.nameNode != nil {
		t.Name = h.hstr("tool name", ht.nameNode)
	}
	what := "tool " + strconv.Quote(t.Name)
	if p.toolLine == nil {
		p.toolLine = map[string]int{}
	}
	if _, dup := p.toolLine[t.Name]; dup {
		at := ht.nameNode
		if at == nil {
			at = body
		}
		p.errorf(at, "%s is defined twice (by its directory's name or its name field)", what)
		return
	}
	p.toolLine[t.Name] = t.Line
	if t.Description == "" {
		t.Description = "Tool generated from app tool: " + t.Name
	}
	p.rememberFields(t, body)
	p.mergeAnnotations(what, ann, t)
	h.toolFiles[t] = p.file
	h.conventions(ht)
	if ht.handler != nil {
		t.Handler = h.scriptRef(what+" handler", ht, ht.handler)
	}
	if ht.mapperIn != nil {
		t.Transforms.Input = h.scriptRef(what+" input transform", ht, ht.mapperIn)
	}
	if ht.mapperOut != nil {
		t.Transforms.Output = h.scriptRef(what+" output transform", ht, ht.mapperOut)
	}
	inputs := h.inputs(what, ht.inputs)
	switch {
	case ht.use != nil && ht.handler != nil:
		p.errorf(ht.handler, "%s: a tool has use or handler, not both", what)
	case ht.use != nil:
		h.dbTool(what, ht, t, inputs)
		if !cacheSet && h.proj.cacheEnabledSet {
			t.Cache, t.CacheTTL = h.proj.cacheEnabled, h.proj.cacheTTL
		}
	case ht.handler != nil:
		t.Kind, t.Parameters, t.OpenInputs = KindScript, inputs, ht.inputs == nil
		if ht.statement != nil {
			p.errorf(ht.statement, "%s: a statement needs use (an adapter); a handler tool has none", what)
		}
		if t.declaredReadOnly != nil {
			t.ReadOnly = *t.declaredReadOnly
		}
	default:
		p.errorf(body, "%s needs use (an adapter and a statement) or handler (a script)", what)
	}
	p.cfg.Tools = append(p.cfg.Tools, t)
}

// once returns v, reporting a second one of what at v.
func (h *hyperterse) once(prev, v *yaml.Node, what string) *yaml.Node {
	if prev != nil {
		h.p.errorf(v, "tool: %s is given twice", what)
	}
	return v
}

// conventions finds the scripts a tool file does not name, as Hyperterse
// does, among the .ts files of its directory: handler.ts (or a name with
// "handler") for a tool without use, input.ts (or a name with "input"
// and "validator"), output.ts (or a name with "data" and "mapper").
func (h *hyperterse) conventions(ht *hyperTool) {
	entries, err := os.ReadDir(ht.dir)
	if err != nil {
		return
	}
	ref := func(name string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: "./" + name} }
	for _, e := range entries {
		name := strings.ToLower(e.Name())
		if e.IsDir() || filepath.Ext(name) != ".ts" {
			continue
		}
		base := strings.TrimSuffix(name, ".ts")
		switch {
		case ht.use == nil && ht.handler == nil && strings.Contains(name, "handler"):
			ht.handler = ref(e.Name())
		case ht.mapperIn == nil && (base == "input" || strings.Contains(name, "input") && strings.Contains(name, "validator")):
			ht.mapperIn = ref(e.Name())
		case ht.mapperOut == nil && (base == "output" || strings.Contains(name, "data") && strings.Contains(name, "mapper")):
			ht.mapperOut = ref(e.Name())
		}
	}
}

// scriptRef reads a script reference of a tool file: relative to the
// tool's directory (./ or ../, or a file there), else to the project's.
func (h *hyperterse) scriptRef(what string, ht *hyperTool, n *yaml.Node) *Script {
	ref := h.hstr(what, n)
	path, _, _ := strings.Cut(strings.TrimSpace(ref), "#")
	dir := ht.dir
	if !strings.HasPrefix(path, "./") && !strings.HasPrefix(path, "../") && !filepath.IsAbs(path) {
		if _, err := os.Stat(filepath.Join(ht.dir, path)); err != nil {
			dir = h.proj.dir
		}
	}
	if n.Line == 0 {
		n = nil // found by convention: no line of the file names it
	}
	return h.p.scriptRef(what, dir, n, ref)
}

// inputs reads a tool's inputs: NAME: {type, description, optional,
// default}, in the file's order.
func (h *hyperterse) inputs(what string, n *yaml.Node) []*Param {
	p := h.p
	if n == nil {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s: inputs must be a mapping of name to definition", what)
		return nil
	}
	var out []*Param
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		prm := &Param{Name: k.Value, Required: true, Line: k.Line}
		label := fmt.Sprintf("%s input %s", what, strconv.Quote(k.Value))
		var typ string
		var def *yaml.Node
		optional := false
		p.fields(label, v, func(key string, _, v *yaml.Node) bool {
			switch key {
			case "type":
				typ = h.hstr(label+" type", v)
			case "description":
				prm.Description = h.hstr(label+" description", v)
			case "optional":
				optional = p.boolean(label+" optional", v)
			case "default":
				def = v
			default:
				return false
			}
			return true
		})
		prm.Type = hyperTypes[typ]
		if prm.Type == "" {
			p.errorf(v, "%s: type %s is not one of string, int, float, boolean, datetime", label, p.show(typ))
			continue
		}
		if typ == "datetime" && prm.Description == "" {
			prm.Description = "A date and time."
		}
		if def != nil {
			d, err := p.value(def, prm)
			if err != nil {
				p.errorf(def, "%s: default: %v", label, err)
			}
			prm.Default, prm.HasDefault = d, true
		}
		prm.Required = !optional && !prm.HasDefault
		out = append(out, prm)
	}
	return out
}

// auth reads a tool's auth block: allow_all is accepted (the server's
// auth, a token or OAuth, applies to every tool); any other plugin is a
// problem.
func (h *hyperterse) auth(n *yaml.Node) {
	p := h.p
	var plugin *yaml.Node
	p.fields("tool auth", n, func(key string, _, v *yaml.Node) bool {
		switch key {
		case "plugin":
			plugin = v
		case "policy":
		default:
			return false
		}
		return true
	})
	if plugin != nil && plugin.Value != "allow_all" {
		p.errorf(plugin, "tool auth: plugin %s is not supported by toolexec: its auth is the server's, a bearer token (TOOLEXEC_TOKEN) or OAuth (--oauth-issuer), for every tool; allow_all is accepted", p.show(plugin.Value))
	}
}

// cache reads a tool's cache block: enabled and ttl (seconds).
func (h *hyperterse) cache(n *yaml.Node, t *Tool) {
	p := h.p
	p.fields("tool cache", n, func(key string, _, v *yaml.Node) bool {
		switch key {
		case "enabled":
			t.Cache = p.boolean("tool cache enabled", v)
		case "ttl":
			t.CacheTTL = time.Duration(p.integer("tool cache ttl", v)) * time.Second
		default:
			return false
		}
		return true
	})
}

// dbTool makes t a tool of the adapter use names, its statement's
// placeholders bound: a SQL tool, or a redis or mongodb tool.
func (h *hyperterse) dbTool(what string, ht *hyperTool, t *Tool, inputs []*Param) {
	p := h.p
	if ht.use.Kind != yaml.ScalarNode {
		p.errorf(ht.use, "%s: use must be a single adapter name", what)
		return
	}
	t.Source = h.hstr(what+" use", ht.use)
	p.toolFields[t]["source"] = ht.use
	if ht.statement == nil {
		p.errorf(ht.use, "%s needs a statement", what)
		return
	}
	src, ok := p.cfg.Sources[t.Source]
	if !ok {
		return // checkUse says why
	}
	stmt := h.hstr(what+" statement", ht.statement)
	switch src.Kind {
	case KindRedis:
		h.redisTool(what, ht.statement, t, stmt, inputs)
		return
	case KindMongoDB:
		h.mongoTool(what, ht.statement, t, stmt, inputs)
		return
	}
	t.Kind = map[string]string{KindSQLite: KindSQLiteSQL, KindPostgres: KindPostgresSQL, KindMySQL: KindMySQLSQL}[src.Kind]
	if p.stmtLine == nil {
		p.stmtLine = map[*Tool]int{}
	}
	p.stmtLine[t] = ht.statement.Line
	var bound bool
	t.Statement, t.Parameters, t.Unbound, bound = h.bind(what, ht.statement, Dialect(src.Kind), stmt, inputs)
	if !bound {
		t.Kind = "" // reported: nothing more to check
	}
}

// checkUse reports a tool whose use names no adapter toolexec serves;
// it reports whether the tool's source is served.
func (h *hyperterse) checkUse(t *Tool) bool {
	if t.Kind == KindScript {
		return true
	}
	if t.Source == "" {
		return false // no use: reported where the tool was read
	}
	if _, ok := h.p.cfg.Sources[t.Source]; ok {
		return true
	}
	what := "tool " + strconv.Quote(t.Name)
	h.p.file = h.toolFiles[t]
	if n, ok := h.adapterNodes[t.Source]; ok {
		h.p.toolProblem(t, "source", "%s: adapter %q (%s) is connector %s, which toolexec does not serve", what, t.Source, h.adapterFile[t.Source], n.Value)
	} else {
		h.p.toolProblem(t, "source", "%s: adapter %s is not defined (an adapter is a file of %s)", what, h.p.show(t.Source), h.name(h.proj.adapters))
	}
	return false
}
