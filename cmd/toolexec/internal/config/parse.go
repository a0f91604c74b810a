package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MaxFileBytes is the largest tools file Load reads.
const MaxFileBytes = 4 << 20

// Load reads and validates the tools file at path. getenv resolves ${NAME}
// references (os.Getenv when nil). On any problem it returns a nil Config
// and a Problems error listing them all.
func Load(path string, getenv func(string) (string, bool)) (*Config, error) {
	if IsHyperterse(path) {
		return LoadHyperterse(path, getenv)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Problems{{File: path, Message: err.Error()}}
	}
	defer func() { _ = f.Close() }() // opened for reading: closing it loses nothing
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, Problems{{File: path, Message: err.Error()}}
	}
	if len(data) > MaxFileBytes {
		return nil, Problems{{File: path, Message: fmt.Sprintf("file is larger than %d bytes", MaxFileBytes)}}
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return Parse(data, path, filepath.Dir(abs), getenv)
}

// Parse is Load for a file already in memory: name is used in problems,
// dir resolves relative paths.
func Parse(data []byte, name, dir string, getenv func(string) (string, bool)) (*Config, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	p := &parser{file: name, getenv: getenv, cfg: &Config{
		File: name, Dir: dir,
		Sources:  map[string]*Source{},
		Toolsets: map[string][]string{},
	}, envVars: map[string]string{}, envTexts: map[string]string{}}
	p.parse(data)
	p.check()
	p.cfg.redactor = envReplacer(p.envVars, redactMin)
	for v := range p.envVars {
		p.cfg.envValues = append(p.cfg.envValues, v)
	}
	sort.Slice(p.cfg.envValues, func(i, j int) bool {
		a, b := p.cfg.envValues[i], p.cfg.envValues[j]
		return len(a) > len(b) || len(a) == len(b) && a < b
	})
	if len(p.problems) > 0 {
		sort.SliceStable(p.problems, func(i, j int) bool { return p.problems[i].Line < p.problems[j].Line })
		// Every message names values through show; this catches any
		// that does not.
		for i := range p.problems {
			p.problems[i].Message = p.cfg.Redact(p.problems[i].Message)
		}
		return nil, p.problems
	}
	return p.cfg, nil
}

// envReplacer replaces each value of vars (value to ${NAME}) of min bytes
// or more, longest first; nil when there is none.
func envReplacer(vars map[string]string, min int) *strings.Replacer {
	vals := make([]string, 0, len(vars))
	for v := range vars {
		if len(v) >= min {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	sort.Slice(vals, func(i, j int) bool {
		if len(vals[i]) != len(vals[j]) {
			return len(vals[i]) > len(vals[j])
		}
		return vals[i] < vals[j]
	})
	pairs := make([]string, 0, 2*len(vals))
	for _, v := range vals {
		pairs = append(pairs, v, vars[v])
	}
	return strings.NewReplacer(pairs...)
}

// show is how a message names a value: quoted, unless it came from the
// environment, in whole or in part. Then the message shows the file's
// text, with its ${NAME} references, never the value.
func (p *parser) show(s string) string {
	if raw, ok := p.envTexts[s]; ok {
		return strconv.Quote(raw) + " (from the environment)"
	}
	if r := envReplacer(p.envVars, 1); r != nil {
		if t := r.Replace(s); t != s {
			return strconv.Quote(t) + " (from the environment)"
		}
	}
	return strconv.Quote(s)
}

type parser struct {
	file     string
	data     []byte // the file's text
	getenv   func(string) (string, bool)
	cfg      *Config
	problems Problems
	toolLine map[string]int
	setLine  map[string]int
	// pendingSets are checked once every document is read: a toolset may
	// name tools defined after it.
	pendingSets []pendingSet
	// envVars maps each value substituted from the environment to its
	// ${NAME}; envTexts maps each scalar that had a substitution, as
	// expanded, to the file's text of it. Messages use them (show) so
	// that they never print such a value.
	envVars, envTexts map[string]string
	// stmtLine is the line of each tool's statement.
	stmtLine map[*Tool]int
	// toolFields are the value nodes of each tool's fields, by key, so a
	// problem found once the whole file is read points at its field.
	toolFields map[*Tool]map[string]*yaml.Node
}

type pendingSet struct {
	name  string
	nodes []*yaml.Node
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) {
	pr := Problem{File: p.file, Message: fmt.Sprintf(format, args...)}
	if n != nil {
		pr.Line, pr.Column = n.Line, n.Column
	}
	p.problems = append(p.problems, pr)
}

func (p *parser) parse(data []byte) {
	p.data = data
	dec := yaml.NewDecoder(bytes.NewReader(data))
	docs := 0
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			p.problems = append(p.problems, syntaxProblem(p.file, data, err))
			return
		}
		docs++
		if len(doc.Content) == 0 {
			continue
		}
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			p.errorf(root, "a document must be a mapping")
			continue
		}
		if kind := lookup(root, "kind"); kind != nil && kind.Kind == yaml.ScalarNode {
			p.parseV2(root, kind)
			continue
		}
		p.parseV1(root)
	}
	if docs == 0 {
		p.errorf(nil, "the file is empty")
	}
}

// parseV1 reads the map form: sources:, tools:, toolsets: at the top.
func (p *parser) parseV1(root *yaml.Node) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "sources", "tools", "toolsets":
			if v.Kind != yaml.MappingNode {
				if v.Tag == "!!null" {
					continue
				}
				p.errorf(v, "%s must be a mapping of name to definition", k.Value)
				continue
			}
			for j := 0; j+1 < len(v.Content); j += 2 {
				name, body := v.Content[j], v.Content[j+1]
				switch k.Value {
				case "sources":
					p.source(name, body, "kind")
				case "tools":
					p.tool(name, body, "kind")
				case "toolsets":
					p.toolset(name, body)
				}
			}
		case "authServices", "authSources", "embeddingModels", "prompts":
			p.errorf(k, "%s is not supported by toolexec", k.Value)
		default:
			p.errorf(k, "unknown top-level key %q (want sources, tools or toolsets)", k.Value)
		}
	}
}

// parseV2 reads one document of the v2 form: kind, name, type and the body.
func (p *parser) parseV2(root, kind *yaml.Node) {
	name := lookup(root, "name")
	if name == nil || name.Value == "" {
		p.errorf(root, "a %s document needs a name", kind.Value)
		return
	}
	switch kind.Value {
	case "sources", "source":
		p.source(name, root, "type")
	case "tools", "tool":
		p.tool(name, root, "type")
	case "toolsets", "toolset":
		tools := lookup(root, "tools")
		if tools == nil {
			p.errorf(root, "toolset %q needs tools", name.Value)
			return
		}
		p.toolset(name, tools)
	case "group":
		p.group(name, root)
	case "authService", "authServices", "embeddingModel", "embeddingModels", "prompt", "prompts":
		p.errorf(kind, "kind %q is not supported by toolexec", kind.Value)
	default:
		p.errorf(kind, "unknown kind %q (want source, tool, toolset or group)", kind.Value)
	}
}

func lookup(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// fields walks a mapping, calling f for each key; keys f does not know
// (f returns false) are reported.
func (p *parser) fields(what string, m *yaml.Node, f func(key string, k, v *yaml.Node) bool) {
	if m.Kind != yaml.MappingNode {
		p.errorf(m, "%s must be a mapping", what)
		return
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if seen[k.Value] {
			p.errorf(k, "%s: duplicate key %q", what, k.Value)
			continue
		}
		seen[k.Value] = true
		if !f(k.Value, k, v) {
			switch k.Value {
			case "authRequired", "authServices", "embeddedBy", "valueFromParam":
				p.errorf(k, "%s: %s is not supported by toolexec", what, k.Value)
			default:
				p.errorf(k, "%s: unknown field %q", what, k.Value)
			}
		}
	}
}

var envRef = regexp.MustCompile(`\$\{(\w+)(:([^}]*))?\}`)

// str reads a scalar as a string, with ${NAME} and ${NAME:default}
// replaced from the environment, as mcp-toolbox does. Substitution happens
// inside the scalar, after parsing, so a value cannot change the file's
// structure.
func (p *parser) str(what string, n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, "%s must be a string", what)
		return ""
	}
	if n.Tag == "!!null" {
		return ""
	}
	return p.expand(what, n, n.Value)
}

func (p *parser) expand(what string, n *yaml.Node, s string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	fromEnv := false
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		parts := envRef.FindStringSubmatch(m)
		if v, ok := p.getenv(parts[1]); ok {
			fromEnv = true
			if v != "" {
				p.envVars[v] = "${" + parts[1] + "}"
			}
			return v
		}
		if parts[2] != "" {
			return parts[3]
		}
		p.errorf(n, "%s: environment variable %s is not set", what, parts[1])
		return ""
	})
	if fromEnv {
		p.envTexts[out] = s
	}
	return out
}

func (p *parser) integer(what string, n *yaml.Node) int {
	s := p.str(what, n)
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		p.errorf(n, "%s must be a non-negative integer, not %s", what, p.show(s))
	}
	return v
}

func (p *parser) boolean(what string, n *yaml.Node) bool {
	s := p.str(what, n)
	v, err := strconv.ParseBool(s)
	if err != nil {
		p.errorf(n, "%s must be true or false, not %s", what, p.show(s))
	}
	return v
}

func (p *parser) duration(what string, n *yaml.Node) time.Duration {
	s := p.str(what, n)
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		p.errorf(n, "%s must be a duration such as 5s or 1m, not %s", what, p.show(s))
	}
	return d
}

func (p *parser) strmap(what string, n *yaml.Node) map[string]string {
	out := map[string]string{}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "%s must be a mapping of strings", what)
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		out[n.Content[i].Value] = p.str(what+"."+n.Content[i].Value, n.Content[i+1])
	}
	return out
}

func (p *parser) strlist(what string, n *yaml.Node) []string {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list", what)
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, c := range n.Content {
		out = append(out, p.str(what, c))
	}
	return out
}

func (p *parser) source(nameNode, body *yaml.Node, kindKey string) {
	name := nameNode.Value
	s := &Source{Name: name, Line: nameNode.Line}
	what := "source " + strconv.Quote(name)
	if _, dup := p.cfg.Sources[name]; dup {
		p.errorf(nameNode, "%s is defined twice", what)
		return
	}
	var allowedNode *yaml.Node
	privateSet := false
	p.fields(what, body, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "kind", "type":
			if key != kindKey && !(kindKey == "type" && key == "kind") {
				return false
			}
			if key == kindKey {
				s.Kind = p.str(what+" "+key, v)
			}
		case "name":
			// v2 form: the document's name.
		case "database":
			s.Database = p.str(what+" database", v)
		case "init":
			s.Init = p.str(what+" init", v)
		case "host":
			s.Host = p.str(what+" host", v)
		case "port":
			s.Port = p.str(what+" port", v)
		case "user":
			s.User = p.str(what+" user", v)
		case "password":
			s.Password = p.str(what+" password", v)
		case "queryParams":
			s.QueryParams = p.strmap(what+" queryParams", v)
		case "maxOpenConns":
			s.MaxOpenConns = p.integer(what+" maxOpenConns", v)
		case "maxIdleConns":
			s.MaxIdleConns = p.integer(what+" maxIdleConns", v)
		case "connMaxLifetime":
			s.ConnMaxLifetime = p.duration(what+" connMaxLifetime", v)
		case "queryTimeout":
			s.QueryTimeout = p.duration(what+" queryTimeout", v)
		case "baseUrl":
			s.BaseURL = p.str(what+" baseUrl", v)
		case "timeout":
			s.Timeout = p.duration(what+" timeout", v)
		case "headers":
			s.Headers = p.strmap(what+" headers", v)
		case "allowedHosts":
			s.AllowedHosts = p.strlist(what+" allowedHosts", v)
			allowedNode = v
		case "allowPrivateNetworks":
			s.AllowPrivateNetworks = p.boolean(what+" allowPrivateNetworks", v)
			privateSet = true
		default:
			return p.storeSourceField(what, key, v, s)
		}
		return true
	})
	switch s.Kind {
	case KindSQLite:
		if s.Database == "" {
			p.errorf(nameNode, "%s: sqlite needs database (a file path or :memory:)", what)
		}
	case KindPostgres:
		for _, f := range []struct{ name, v string }{{"host", s.Host}, {"database", s.Database}, {"user", s.User}} {
			if f.v == "" {
				p.errorf(nameNode, "%s: postgres needs %s", what, f.name)
			}
		}
		if s.Port == "" {
			s.Port = "5432"
		} else if n, err := strconv.Atoi(s.Port); err != nil || n <= 0 || n > 65535 {
			p.errorf(nameNode, "%s: port %s is not a port number", what, p.show(s.Port))
		}
	case KindMySQL, KindMariaDB:
		p.mysqlSource(what, nameNode, s)
	case KindHTTP:
		p.httpSource(what, nameNode, allowedNode, s)
	case KindRedis, KindMongoDB: // storeSourceDone
	case "":
		p.errorf(nameNode, "%s needs %s", what, kindKey)
	default:
		p.errorf(nameNode, "%s: %s %s is not supported (want %s)", what, kindKey, p.show(s.Kind), oneOf(sourceKinds))
	}
	p.storeSourceDone(what, nameNode, body, s)
	if s.QueryTimeout != 0 && s.Kind != KindMySQL {
		p.errorf(nameNode, "%s: queryTimeout is only for mysql sources", what)
	}
	if privateSet && s.Kind != KindHTTP {
		p.errorf(nameNode, "%s: allowPrivateNetworks is only for http sources", what)
	}
	if s.Init != "" && s.Kind != KindSQLite {
		p.errorf(nameNode, "%s: init is only for sqlite sources", what)
	}
	if s.Init != "" && !filepath.IsAbs(s.Init) {
		s.Init = filepath.Join(p.cfg.Dir, s.Init)
	}
	if s.Kind == KindSQLite && s.Database != ":memory:" && !strings.HasPrefix(s.Database, "file:") && !filepath.IsAbs(s.Database) {
		s.Database = filepath.Join(p.cfg.Dir, s.Database)
	}
	p.cfg.Sources[name] = s
}

func (p *parser) tool(nameNode, body *yaml.Node, kindKey string) {
	name := nameNode.Value
	t := &Tool{Name: name, Line: nameNode.Line}
	what := "tool " + strconv.Quote(name)
	if p.toolLine == nil {
		p.toolLine = map[string]int{}
	}
	if _, dup := p.toolLine[name]; dup {
		p.errorf(nameNode, "%s is defined twice", what)
		return
	}
	p.toolLine[name] = nameNode.Line
	var ann *annotations
	p.fields(what, body, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "kind", "type":
			if key == kindKey {
				t.Kind = p.str(what+" "+key, v)
			} else if kindKey == "kind" {
				return false
			}
		case "name":
		case "source":
			t.Source = p.str(what+" source", v)
		case "description":
			t.Description = p.str(what+" description", v)
		case "statement":
			t.Statement = p.str(what+" statement", v)
			if p.stmtLine == nil {
				p.stmtLine = map[*Tool]int{}
			}
			p.stmtLine[t] = v.Line
		case "parameters":
			t.Parameters = p.params(what+" parameters", v)
		case "templateParameters":
			t.TemplateParameters = p.params(what+" templateParameters", v)
		case "readOnly":
			b := p.boolean(what+" readOnly", v)
			t.declaredReadOnly = &b
		case "destructive":
			b := p.boolean(what+" destructive", v)
			t.Destructive = &b
		case "idempotent":
			b := p.boolean(what+" idempotent", v)
			t.Idempotent = &b
		case "annotations":
			ann = p.annotations(what, v)
		case "maxRows":
			t.MaxRows = p.integer(what+" maxRows", v)
		case "maxBytes":
			t.MaxBytes = p.integer(what+" maxBytes", v)
		case "timeout":
			t.Timeout = p.duration(what+" timeout", v)
		case "maxConcurrency":
			t.MaxConcurrency = p.integer(what+" maxConcurrency", v)
		case "rateLimit":
			t.RateLimit = p.rateLimit(what+" rateLimit", v)
		case "cache":
			t.Cache = p.boolean(what+" cache", v)
		case "cacheTTL":
			t.CacheTTL = p.duration(what+" cacheTTL", v)
		case "scopes":
			t.Scopes = p.strlist(what+" scopes", v)
		case "taskSupport":
			t.TaskSupport = p.taskSupport(what+" taskSupport", v)
		case "transforms", "allowedHosts", "allowPrivateNetworks":
			p.scriptField(what, t, key, v)
		case "method":
			t.Method = strings.ToUpper(p.str(what+" method", v))
		case "path":
			t.Path = p.str(what+" path", v)
		case "headers":
			t.Headers = p.strmap(what+" headers", v)
		case "pathParams":
			t.PathParams = p.params(what+" pathParams", v)
		case "queryParams":
			t.QueryParams = p.params(what+" queryParams", v)
		case "headerParams":
			t.HeaderParams = p.params(what+" headerParams", v)
		case "bodyParams":
			t.BodyParams = p.params(what+" bodyParams", v)
		case "requestBody":
			t.RequestBody = p.str(what+" requestBody", v)
		default:
			return p.storeToolField(what, key, v, t)
		}
		return true
	})
	p.rememberFields(t, body)
	p.mergeAnnotations(what, ann, t)
	switch t.Kind {
	case KindScript:
		p.scriptTool(what, nameNode, t)
	case KindSQLiteSQL, KindPostgresSQL, KindMySQLSQL:
		if strings.TrimSpace(t.Statement) == "" {
			p.errorf(nameNode, "%s needs a statement", what)
		}
		if t.Method != "" || t.Path != "" || len(t.PathParams)+len(t.QueryParams)+len(t.HeaderParams)+len(t.BodyParams) > 0 {
			p.errorf(nameNode, "%s: method, path and the http parameter lists are for http tools", what)
		}
	case KindHTTPTool:
		if t.Method == "" {
			p.errorf(nameNode, "%s needs a method", what)
		}
		if t.Statement != "" || len(t.Parameters)+len(t.TemplateParameters) > 0 {
			p.errorf(nameNode, "%s: statement, parameters and templateParameters are for sql tools (use pathParams, queryParams, headerParams, bodyParams)", what)
		}
		t.ReadOnly = t.Method == "GET" || t.Method == "HEAD"
		if t.declaredReadOnly != nil {
			t.ReadOnly = *t.declaredReadOnly
		}
	case KindRedisTool, KindMongoFind, KindMongoFindOne, KindMongoAggregate, KindMongoInsertOne, KindMongoInsertMany,
		KindMongoUpdateOne, KindMongoUpdateMany, KindMongoDeleteOne, KindMongoDeleteMany: // storeToolDone
	case "":
		p.errorf(nameNode, "%s needs %s", what, kindKey)
	default:
		p.errorf(nameNode, "%s: %s %s is not supported (want %s)", what, kindKey, p.show(t.Kind), oneOf(toolKinds))
	}
	p.storeToolDone(what, nameNode, body, t)
	if t.Source == "" {
		p.errorf(nameNode, "%s needs a source", what)
	}
	if t.Description == "" {
		p.errorf(nameNode, "%s needs a description", what)
	}
	seen := map[string]bool{}
	for _, prm := range t.AllParams() {
		if seen[prm.Name] {
			p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: fmt.Sprintf("%s: parameter %s is declared twice", what, p.show(prm.Name))})
		}
		seen[prm.Name] = true
	}
	p.cfg.Tools = append(p.cfg.Tools, t)
}

func (p *parser) params(what string, n *yaml.Node) []*Param {
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "%s must be a list", what)
		return nil
	}
	out := make([]*Param, 0, len(n.Content))
	for _, c := range n.Content {
		if prm := p.param(what, c, false); prm != nil {
			out = append(out, prm)
		}
	}
	return out
}

func (p *parser) param(what string, n *yaml.Node, item bool) *Param {
	prm := &Param{Required: true, Line: n.Line}
	var defaultNode, allowedNode, excludedNode *yaml.Node
	requiredSet := false
	p.fields(what+" entry", n, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "name":
			prm.Name = p.str(what+" name", v)
		case "type", "kind":
			prm.Type = p.str(what+" type", v)
		case "description":
			prm.Description = p.str(what+" description", v)
		case "required":
			prm.Required = p.boolean(what+" required", v)
			requiredSet = true
		case "default":
			defaultNode = v
		case "items":
			prm.Items = p.param(what+" items", v, true)
		case "valueType":
			prm.ValueType = p.str(what+" valueType", v)
		case "allowedValues":
			allowedNode = v
		case "excludedValues":
			excludedNode = v
		case "escape":
			prm.Escape = p.str(what+" escape", v)
		case "minValue":
			f := p.float(what+" minValue", v)
			prm.MinValue = &f
		case "maxValue":
			f := p.float(what+" maxValue", v)
			prm.MaxValue = &f
		default:
			return false
		}
		return true
	})
	if n.Kind != yaml.MappingNode {
		return nil
	}
	label := what
	if prm.Name != "" {
		label = what + " " + p.show(prm.Name)
	}
	if prm.Name == "" && !item {
		p.errorf(n, "%s: a parameter needs a name", what)
	}
	switch prm.Type {
	case TypeString, TypeInteger, TypeFloat, TypeBoolean:
	case TypeArray:
		if prm.Items == nil {
			p.errorf(n, "%s: an array parameter needs items", label)
		} else if prm.Items.Type == TypeArray || prm.Items.Type == TypeMap {
			p.errorf(n, "%s: items must be string, integer, float or boolean", label)
		}
	case TypeMap:
		switch prm.ValueType {
		case "", TypeString, TypeInteger, TypeFloat, TypeBoolean:
		default:
			p.errorf(n, "%s: valueType must be string, integer, float or boolean", label)
		}
	case "":
		p.errorf(n, "%s needs a type", label)
	default:
		p.errorf(n, "%s: type %s is not one of string, integer, float, boolean, array, map", label, p.show(prm.Type))
	}
	if prm.Type != TypeArray && prm.Items != nil {
		p.errorf(n, "%s: items is only for array parameters", label)
	}
	if (prm.MinValue != nil || prm.MaxValue != nil) && prm.Type != TypeInteger && prm.Type != TypeFloat {
		p.errorf(n, "%s: minValue and maxValue are only for integer and float parameters", label)
	}
	if defaultNode != nil {
		v, err := p.value(defaultNode, prm)
		if err != nil {
			p.errorf(defaultNode, "%s: default: %v", label, err)
		}
		prm.Default, prm.HasDefault = v, true
		if !requiredSet {
			prm.Required = false
		}
	}
	if allowedNode != nil {
		if allowedNode.Kind != yaml.SequenceNode {
			p.errorf(allowedNode, "%s: allowedValues must be a list", label)
		} else {
			for _, c := range allowedNode.Content {
				v, err := p.value(c, prm)
				if err != nil {
					p.errorf(c, "%s: allowedValues: %v", label, err)
					continue
				}
				prm.AllowedValues = append(prm.AllowedValues, v)
			}
			p.allowedPattern(label, allowedNode, prm)
		}
	}
	if excludedNode != nil {
		p.excludedValues(label, excludedNode, prm)
	}
	return prm
}

func (p *parser) float(what string, n *yaml.Node) float64 {
	s := p.str(what, n)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		p.errorf(n, "%s must be a number, not %s", what, p.show(s))
	}
	return f
}

// value decodes a YAML value (a default, an allowed value) as a JSON value
// of the parameter's type.
func (p *parser) value(n *yaml.Node, prm *Param) (any, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	switch prm.Type {
	case TypeArray:
		if n.Kind != yaml.SequenceNode || prm.Items == nil {
			return nil, errors.New("want a list")
		}
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := p.value(c, prm.Items)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case TypeMap:
		if n.Kind != yaml.MappingNode {
			return nil, errors.New("want a mapping")
		}
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			vt := prm.ValueType
			if vt == "" {
				vt = TypeString
			}
			v, err := p.value(n.Content[i+1], &Param{Type: vt})
			if err != nil {
				return nil, err
			}
			out[n.Content[i].Value] = v
		}
		return out, nil
	}
	if n.Kind != yaml.ScalarNode {
		return nil, fmt.Errorf("want a %s", prm.Type)
	}
	s := p.expand("value", n, n.Value)
	switch prm.Type {
	case TypeString:
		return s, nil
	case TypeInteger:
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not an integer", p.show(s))
		}
		return float64(v), nil
	case TypeFloat:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%s is not a number", p.show(s))
		}
		return v, nil
	case TypeBoolean:
		v, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%s is not true or false", p.show(s))
		}
		return v, nil
	}
	return s, nil
}

func (p *parser) toolset(nameNode, body *yaml.Node) {
	name := nameNode.Value
	if p.setLine == nil {
		p.setLine = map[string]int{}
	}
	if _, dup := p.setLine[name]; dup {
		p.errorf(nameNode, "toolset %q is defined twice", name)
		return
	}
	p.setLine[name] = nameNode.Line
	p.checkToolsetName(nameNode)
	if body.Kind != yaml.SequenceNode {
		p.errorf(body, "toolset %q must be a list of tool names", name)
		return
	}
	var tools []string
	for _, c := range body.Content {
		if c.Kind != yaml.ScalarNode {
			p.errorf(c, "toolset %q: entries must be tool names", name)
			continue
		}
		tools = append(tools, c.Value)
	}
	p.cfg.Toolsets[name] = tools
	p.pendingSets = append(p.pendingSets, pendingSet{name: name, nodes: body.Content})
}

// rememberFields records the value node of each field of a tool's body,
// for toolProblem.
func (p *parser) rememberFields(t *Tool, body *yaml.Node) {
	if body.Kind != yaml.MappingNode {
		return
	}
	if p.toolFields == nil {
		p.toolFields = map[*Tool]map[string]*yaml.Node{}
	}
	m := make(map[string]*yaml.Node, len(body.Content)/2)
	for i := 0; i+1 < len(body.Content); i += 2 {
		m[body.Content[i].Value] = body.Content[i+1]
	}
	p.toolFields[t] = m
}

// toolProblem reports a problem of tool t found once the whole file is
// read, at the value of its field when the tool has that field, else at
// the tool's name.
func (p *parser) toolProblem(t *Tool, field, format string, args ...any) {
	pr := Problem{File: p.file, Line: t.Line, Message: fmt.Sprintf(format, args...)}
	if n := p.toolFields[t][field]; n != nil {
		pr.Line, pr.Column = n.Line, n.Column
	}
	p.problems = append(p.problems, pr)
}

// ReservedToolsetNames are the path segments the server uses under /mcp for
// routes of its own, which a toolset (served at /mcp/NAME) may therefore
// not be named: tools (the HandsAI routes /mcp/tools/list and
// /mcp/tools/call) and sse (mcp-toolbox's HTTP+SSE endpoint of MCP
// 2024-11-05, /mcp/sse).
var ReservedToolsetNames = []string{"tools", "sse"}

// checkToolsetName reports a toolset name that cannot be the one path
// segment it is served under (/mcp/NAME, /toolsets/NAME/...).
func (p *parser) checkToolsetName(nameNode *yaml.Node) {
	name := nameNode.Value
	switch {
	case name == "":
		p.errorf(nameNode, "a toolset needs a name")
	case slices.Contains(ReservedToolsetNames, name):
		p.errorf(nameNode, "toolset %q: the name is taken by the server's route /mcp/%s; rename the toolset", name, name)
	case name == "." || name == ".." || strings.ContainsAny(name, "/?#"):
		p.errorf(nameNode, "toolset %q: the name must be usable as one URL path segment (no /, ? or #, and not . or ..)", name)
	}
}

// check verifies what spans resources: each tool's source exists and fits
// its kind, each toolset names existing tools, init scripts exist.
func (p *parser) check() {
	for _, t := range p.cfg.Tools {
		if p.checkScriptSettings(t); t.Kind == KindScript {
			continue // its source is its script, read with the tool
		}
		what := "tool " + strconv.Quote(t.Name)
		src, ok := p.cfg.Sources[t.Source]
		if !ok {
			p.toolProblem(t, "source", "%s: source %s is not defined", what, p.show(t.Source))
			continue
		}
		want := map[string]string{KindSQLiteSQL: KindSQLite, KindPostgresSQL: KindPostgres, KindMySQLSQL: KindMySQL, KindHTTPTool: KindHTTP, KindRedisTool: KindRedis}[t.Kind]
		if mongoToolKinds[t.Kind] {
			want = KindMongoDB
		}
		if want == "" {
			continue // an unknown kind, reported where it is declared
		}
		if src.Kind != want {
			p.toolProblem(t, "source", "%s: a %s tool needs a %s source, and %s is %s", what, t.Kind, want, p.show(t.Source), p.show(src.Kind))
			continue
		}
		switch t.Kind {
		case KindHTTPTool:
			p.checkHTTPParams(t, src)
		case KindSQLiteSQL, KindPostgresSQL, KindMySQLSQL:
			p.checkSQL(t, src)
		default:
			p.checkStore(t, src)
		}
	}
	for _, t := range p.cfg.Tools {
		if t.Kind != KindSQLiteSQL && t.Kind != KindPostgresSQL {
			continue
		}
		q, d := placeholders(t.Statement)
		n := len(t.Parameters)
		what := "tool " + strconv.Quote(t.Name)
		switch {
		case d > n:
			p.toolProblem(t, "statement", "%s: the statement uses $%d but declares %d parameters", what, d, n)
		case d == 0 && q != n && t.Kind == KindSQLiteSQL:
			p.toolProblem(t, "statement", "%s: the statement has %d ? placeholders but declares %d parameters", what, q, n)
		case t.Kind == KindPostgresSQL && q > 0 && d == 0:
			p.toolProblem(t, "statement", "%s: postgres placeholders are $1, $2, ..., not ?", what)
		}
	}
	for _, s := range p.pendingSets {
		for _, n := range s.nodes {
			if _, ok := p.toolLine[n.Value]; !ok {
				p.errorf(n, "toolset %q: tool %q is not defined", s.name, n.Value)
			}
		}
	}
	names := make([]string, 0, len(p.cfg.Sources))
	for name := range p.cfg.Sources {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s := p.cfg.Sources[name]
		if s.Init == "" {
			continue
		}
		if st, err := os.Stat(s.Init); err != nil || st.IsDir() {
			p.problems = append(p.problems, Problem{File: p.file, Line: s.Line, Message: fmt.Sprintf("source %q: init script %s cannot be read", name, p.show(s.Init))})
		}
	}
}
