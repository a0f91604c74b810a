package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"go.yaml.in/yaml/v3"
)

// A Hyperterse project (github.com/hyperterse/hyperterse): a directory
// with an optional root file, .hyperterse, and an app/ directory holding
// adapters (app/adapters/*.terse, one connection each, named by its file)
// and tools (app/tools/NAME/config.terse, one tool each, named by its
// directory), with TypeScript scripts beside the tools. LoadHyperterse
// reads it into the same Config a tools file makes.
//
// Placeholders {{ inputs.NAME }} in a statement are bound as parameters,
// never substituted as text as Hyperterse does: in a statement, a bare
// placeholder is a parameter ($1, ?), one inside a quoted string is the
// parameter's text concatenated with the rest of the string. {{ env.NAME }}
// is replaced by the variable's value when the project is read: the file
// and the environment are the server's, and trusted.

// HyperterseRoot is the root file of a Hyperterse project.
const HyperterseRoot = ".hyperterse"

// hyperEnv is {{ env.NAME }}.
var hyperEnv = regexp.MustCompile(`\{\{\s*env\.(\w+)\s*\}\}`)

// hyperProject is what the root file says.
type hyperProject struct {
	dir                           string // absolute
	app, adapters, tools          string // absolute
	cacheEnabled, cacheEnabledSet bool
	cacheTTL                      time.Duration
}

// IsHyperterse reports whether path names a Hyperterse project: a
// directory, or its root file .hyperterse.
func IsHyperterse(path string) bool {
	if filepath.Base(path) == HyperterseRoot {
		return true
	}
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// LoadHyperterse reads the Hyperterse project at path (its directory, or
// its .hyperterse file) into a Config: each adapter a source, each tool a
// tool. Adapters of every connector Hyperterse has are served: postgres,
// mysql and sqlite ones as SQL sources, redis and mongodb ones as the
// sources of redis and mongodb tools (hyperterse_store.go). What
// Hyperterse's files say that toolexec cannot do is a problem at its line
// (an auth plugin other than allow_all, a remote libSQL database, a
// placeholder where a name goes, a MongoDB operation toolexec does not
// serve, such as countDocuments). Tool files may also carry toolexec's
// own fields (timeout,
// maxConcurrency, rateLimit, taskSupport, annotations, readOnly, scopes,
// maxRows, maxBytes, allowedHosts, allowPrivateNetworks). getenv resolves
// {{ env.NAME }} (os.LookupEnv when nil).
func LoadHyperterse(path string, getenv func(string) (string, bool)) (*Config, error) {
	if getenv == nil {
		getenv = os.LookupEnv
	}
	shown := path
	if filepath.Base(path) == HyperterseRoot {
		shown = filepath.Dir(path)
	}
	abs, err := filepath.Abs(shown)
	if err != nil {
		abs = shown
	}
	p := &parser{file: shown, getenv: getenv, cfg: &Config{
		File: shown, Dir: abs,
		Sources:  map[string]*Source{},
		Toolsets: map[string][]string{},
	}, envVars: map[string]string{}, envTexts: map[string]string{}}
	h := &hyperterse{p: p, shown: shown, adapterNodes: map[string]*yaml.Node{}, toolFiles: map[*Tool]string{}}
	h.load(abs)
	p.cfg.redactor = envReplacer(p.envVars, redactMin)
	for v := range p.envVars {
		p.cfg.envValues = append(p.cfg.envValues, v)
	}
	sort.Slice(p.cfg.envValues, func(i, j int) bool {
		a, b := p.cfg.envValues[i], p.cfg.envValues[j]
		return len(a) > len(b) || len(a) == len(b) && a < b
	})
	if len(p.problems) > 0 {
		sort.SliceStable(p.problems, func(i, j int) bool {
			a, b := p.problems[i], p.problems[j]
			if a.File != b.File {
				return a.File < b.File
			}
			return a.Line < b.Line
		})
		for i := range p.problems {
			p.problems[i].Message = p.cfg.Redact(p.problems[i].Message)
		}
		return nil, p.problems
	}
	return p.cfg, nil
}

// hyperterse reads one project.
type hyperterse struct {
	p     *parser
	shown string // the project's directory as the command line names it
	proj  hyperProject
	// adapterNodes are the connector values of the adapters of unknown
	// connectors, by adapter name; adapterFile the adapters' files.
	adapterNodes map[string]*yaml.Node
	adapterFile  map[string]string
	// toolFiles are the files of the tools, by tool.
	toolFiles map[*Tool]string
}

// name is how problems name path: under the project's directory as given.
func (h *hyperterse) name(path string) string {
	rel, err := filepath.Rel(h.proj.dir, path)
	if err != nil {
		return path
	}
	return filepath.Join(h.shown, rel)
}

// read reads a .terse file's single YAML document, recording it among the
// config's watched files; nil when it cannot be read (a problem).
func (h *hyperterse) read(path string) *yaml.Node {
	p := h.p
	p.file = h.name(path)
	data, err := readBounded(path)
	if err != nil {
		p.errorf(nil, "%v", err)
		return nil
	}
	p.cfg.watch(path, data)
	p.data = data // where problems inside a value are placed
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(nil, "the file is empty")
			return nil
		}
		p.problems = append(p.problems, syntaxProblem(p.file, data, err))
		return nil
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		p.errorf(&doc, "a .terse file must be a mapping")
		return nil
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		p.errorf(&more, "a .terse file holds one document")
	}
	return doc.Content[0]
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errors.New("the file cannot be read")
	}
	defer func() { _ = f.Close() }() // opened for reading: closing it loses nothing
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, errors.New("the file cannot be read")
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("the file is larger than %d bytes", MaxFileBytes)
	}
	return data, nil
}

// env replaces {{ env.NAME }} in s, a value of node n, by the variable;
// a variable that is not set is a problem at n. Values substituted are
// redacted from messages as {{ env.NAME }}.
func (h *hyperterse) env(what string, n *yaml.Node, s string) string {
	p := h.p
	if !strings.Contains(s, "{{") {
		return s
	}
	fromEnv := false
	out := hyperEnv.ReplaceAllStringFunc(s, func(m string) string {
		name := hyperEnv.FindStringSubmatch(m)[1]
		v, ok := p.getenv(name)
		if !ok {
			p.errorf(n, "%s: environment variable %s is not set", what, name)
			return ""
		}
		fromEnv = true
		if v != "" {
			p.envVars[v] = "{{ env." + name + " }}"
		}
		return v
	})
	if fromEnv {
		p.envTexts[out] = s
	}
	return out
}

// hstr reads a scalar as a string with {{ env.NAME }} replaced.
func (h *hyperterse) hstr(what string, n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode {
		h.p.errorf(n, "%s must be a string", what)
		return ""
	}
	if n.Tag == "!!null" {
		return ""
	}
	return h.env(what, n, n.Value)
}

// load reads the project in dir.
func (h *hyperterse) load(dir string) {
	p := h.p
	h.proj = hyperProject{dir: dir, app: filepath.Join(dir, "app")}
	root := filepath.Join(dir, HyperterseRoot)
	if _, err := os.Stat(root); err == nil {
		if n := h.read(root); n != nil {
			h.root(n)
		}
	}
	if h.proj.adapters == "" {
		h.proj.adapters = filepath.Join(h.proj.app, "adapters")
	}
	if h.proj.tools == "" {
		h.proj.tools = filepath.Join(h.proj.app, "tools")
	}
	p.file = h.shown
	if st, err := os.Stat(h.proj.app); err != nil || !st.IsDir() {
		p.errorf(nil, "not a Hyperterse project: there is no %s directory", h.name(h.proj.app))
		return
	}
	p.cfg.watch(h.proj.app, nil)
	h.adapterFile = map[string]string{}
	for _, f := range h.discover(h.proj.adapters, func(name string) bool { return strings.EqualFold(filepath.Ext(name), ".terse") }) {
		h.adapter(f)
	}
	files := h.discover(h.proj.tools, func(name string) bool { return strings.EqualFold(name, "config.terse") })
	if len(files) == 0 {
		p.file = h.shown
		p.errorf(nil, "the project has no tool: a tool is a %s file", h.name(filepath.Join(h.proj.tools, "NAME", "config.terse")))
	}
	for _, f := range files {
		h.tool(f)
	}
	// What spans files, checked tool by tool at each tool's file.
	tools := p.cfg.Tools
	for _, t := range tools {
		p.file = h.toolFiles[t]
		if !h.checkUse(t) || t.Kind == "" {
			continue // reported
		}
		p.cfg.Tools = []*Tool{t}
		p.pendingSets = nil
		p.check()
	}
	p.cfg.Tools = tools
}

// discover lists the files under dir that keep says are wanted, sorted.
func (h *hyperterse) discover(dir string, keep func(string) bool) []string {
	var out []string
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	n := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if n++; n > maxStampedEntries {
			return filepath.SkipAll
		}
		if keep(d.Name()) {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// root reads the root file: the discovery directories (root,
// tools.directory, adapters.directory) and the cache defaults
// (tools.cache, or server.queries.cache). The rest (name, version, the
// port, the log level, build) is the command line's business: ignored,
// as Hyperterse ignores fields it does not know.
func (h *hyperterse) root(n *yaml.Node) {
	dirOf := func(base string, v *yaml.Node, what string) string {
		s := h.hstr(what, v)
		if s == "" || filepath.IsAbs(s) {
			return s
		}
		return filepath.Join(base, s)
	}
	cache := func(c *yaml.Node, what string) {
		h.p.fields(what, c, func(key string, _, v *yaml.Node) bool {
			switch key {
			case "enabled":
				h.proj.cacheEnabled, h.proj.cacheEnabledSet = h.p.boolean(what+" enabled", v), true
			case "ttl":
				h.proj.cacheTTL = time.Duration(h.p.integer(what+" ttl", v)) * time.Second
			default:
				return false
			}
			return true
		})
	}
	if v := lookup(n, "root"); v != nil {
		h.proj.app = dirOf(h.proj.dir, v, "root")
	}
	if t := lookup(n, "tools"); t != nil {
		if v := lookup(t, "directory"); v != nil {
			h.proj.tools = dirOf(h.proj.app, v, "tools directory")
		}
		if c := lookup(t, "cache"); c != nil {
			cache(c, "tools cache")
		}
	}
	if a := lookup(n, "adapters"); a != nil {
		if v := lookup(a, "directory"); v != nil {
			h.proj.adapters = dirOf(h.proj.app, v, "adapters directory")
		}
	}
	if c := lookup(lookup(lookup(n, "server"), "queries"), "cache"); c != nil {
		cache(c, "server queries cache")
	}
}

// adapter reads one adapter file: a source named by the file (or its
// name field).
func (h *hyperterse) adapter(path string) {
	p := h.p
	body := h.read(path)
	if body == nil {
		return
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var connector, conn, nameNode *yaml.Node
	var options map[string]string
	var optionsNode *yaml.Node
	p.fields("adapter", body, func(key string, k, v *yaml.Node) bool {
		switch key {
		case "name":
			nameNode = v
		case "connector":
			connector = v
		case "connection_string":
			conn = v
		case "options":
			optionsNode = v
			options = map[string]string{}
			if v.Kind != yaml.MappingNode {
				p.errorf(v, "adapter options must be a mapping")
				return true
			}
			for i := 0; i+1 < len(v.Content); i += 2 {
				options[v.Content[i].Value] = h.hstr("adapter option "+v.Content[i].Value, v.Content[i+1])
			}
		default:
			return false
		}
		return true
	})
	if nameNode != nil {
		name = h.hstr("adapter name", nameNode)
	}
	what := "adapter " + strconv.Quote(name)
	at := body
	if nameNode != nil {
		at = nameNode
	}
	if _, dup := p.cfg.Sources[name]; dup {
		p.errorf(at, "%s is defined twice", what)
		return
	}
	if _, dup := h.adapterNodes[name]; dup {
		p.errorf(at, "%s is defined twice", what)
		return
	}
	h.adapterFile[name] = p.file
	if connector == nil {
		p.errorf(body, "%s needs a connector", what)
		return
	}
	if conn == nil {
		p.errorf(body, "%s needs a connection_string", what)
		return
	}
	s := &Source{Name: name, Line: connector.Line}
	cs := h.hstr(what+" connection_string", conn)
	switch kind := connector.Value; kind {
	case "postgres":
		h.postgres(what, conn, cs, options, s)
	case "mysql":
		h.mysql(what, conn, cs, options, s)
	case "sqlite":
		h.sqlite(what, conn, optionsNode, cs, options, s)
	case "redis":
		h.redis(what, conn, cs, options, s)
	case "mongodb":
		h.mongodb(what, conn, cs, options, s)
	default:
		p.errorf(connector, "%s: connector %s is not one of postgres, mysql, sqlite, redis, mongodb", what, p.show(kind))
		h.adapterNodes[name] = connector
		return
	}
	p.cfg.Sources[name] = s
}

// poolOptions are the adapter options that set the pool's size.
var poolOptions = map[string]bool{"max_connections": true, "maxPoolSize": true, "pool_size": true, "max_open_conns": true}

// pool reads a pool size option into s; it reports whether key is one.
func (h *hyperterse) pool(what, key, v string, conn *yaml.Node, s *Source) bool {
	if !poolOptions[key] {
		return false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		h.p.errorf(conn, "%s: option %s must be a positive number, not %s", what, key, h.p.show(v))
		return true
	}
	s.MaxOpenConns = n
	return true
}

// postgres reads a postgres connection string: a URL
// (postgres://user:password@host:port/database?param=value) or key=value
// pairs (host=... dbname=...); the options are connection parameters.
func (h *hyperterse) postgres(what string, conn *yaml.Node, cs string, options map[string]string, s *Source) {
	p := h.p
	s.Kind, s.Port, s.QueryParams = KindPostgres, "5432", map[string]string{}
	if strings.HasPrefix(cs, "postgres://") || strings.HasPrefix(cs, "postgresql://") {
		u, err := url.Parse(cs)
		if err != nil || u.Hostname() == "" {
			p.errorf(conn, "%s: connection_string is not a postgres URL (postgres://user:password@host:port/database)", what)
			return
		}
		fromURL(u, s)
	} else {
		for _, kv := range strings.Fields(cs) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				p.errorf(conn, "%s: connection_string is neither a postgres URL nor key=value pairs", what)
				return
			}
			v = strings.Trim(v, "'")
			switch k {
			case "host":
				s.Host = v
			case "port":
				s.Port = v
			case "user":
				s.User = v
			case "password":
				s.Password = v
			case "dbname":
				s.Database = v
			default:
				s.QueryParams[k] = v
			}
		}
	}
	for k, v := range options {
		if !h.pool(what, k, v, conn, s) {
			s.QueryParams[k] = v
		}
	}
	for _, f := range []struct{ name, v string }{{"a host", s.Host}, {"a database", s.Database}, {"a user", s.User}} {
		if f.v == "" {
			p.errorf(conn, "%s: connection_string needs %s", what, f.name)
		}
	}
	if n, err := strconv.Atoi(s.Port); err != nil || n <= 0 || n > 65535 {
		p.errorf(conn, "%s: port %s is not a port number", what, p.show(s.Port))
	}
}

// fromURL sets s's host, port (when the URL has one), user, password,
// database and query parameters (the last value of each) from a database
// URL.
func fromURL(u *url.URL, s *Source) {
	s.Host, s.User, s.Database = u.Hostname(), u.User.Username(), strings.TrimPrefix(u.Path, "/")
	s.Password, _ = u.User.Password()
	if port := u.Port(); port != "" {
		s.Port = port
	}
	for k, vs := range u.Query() {
		if len(vs) > 0 {
			s.QueryParams[k] = vs[len(vs)-1]
		}
	}
}

// mysql reads a mysql connection string: the driver's DSN
// (user:password@tcp(host:port)/database?param=value) or a URL
// (mysql://user:password@host:port/database); the options are DSN
// parameters.
func (h *hyperterse) mysql(what string, conn *yaml.Node, cs string, options map[string]string, s *Source) {
	p := h.p
	s.Kind, s.Port, s.QueryParams = KindMySQL, "3306", map[string]string{}
	if strings.HasPrefix(cs, "mysql://") {
		u, err := url.Parse(cs)
		if err != nil || u.Hostname() == "" {
			p.errorf(conn, "%s: connection_string is not a mysql URL (mysql://user:password@host:port/database)", what)
			return
		}
		fromURL(u, s)
	} else {
		c, err := mysql.ParseDSN(cs)
		if err != nil || c.Net != "tcp" {
			p.errorf(conn, "%s: connection_string is not a mysql DSN (user:password@tcp(host:port)/database) or URL", what)
			return
		}
		host, port, err := splitHostPort(c.Addr)
		if err != nil {
			p.errorf(conn, "%s: connection_string's address is not host:port", what)
			return
		}
		s.Host, s.User, s.Password, s.Database = host, c.User, c.Passwd, c.DBName
		if port != "" {
			s.Port = port
		}
		// The DSN's parameters as written: the source's DSN is made
		// from them again.
		if _, q, ok := strings.Cut(cs, "?"); ok {
			vals, _ := url.ParseQuery(q)
			for k, vs := range vals {
				if len(vs) > 0 {
					s.QueryParams[k] = vs[len(vs)-1]
				}
			}
		}
	}
	for k, v := range options {
		if !h.pool(what, k, v, conn, s) {
			s.QueryParams[k] = v
		}
	}
	p.mysqlSource(what, conn, s)
}

func splitHostPort(addr string) (string, string, error) {
	if !strings.Contains(addr, ":") {
		return addr, "", nil
	}
	u, err := url.Parse("//" + addr)
	if err != nil {
		return "", "", err
	}
	return u.Hostname(), u.Port(), nil
}

// sqlite reads a sqlite connection string: :memory:, a path (relative to
// the project), or file:PATH. Remote libSQL and Turso databases are
// problems: toolexec's SQLite is a local file.
func (h *hyperterse) sqlite(what string, conn, optionsNode *yaml.Node, cs string, options map[string]string, s *Source) {
	p := h.p
	s.Kind = KindSQLite
	for _, scheme := range []string{"libsql:", "http:", "https:", "ws:", "wss:"} {
		if strings.HasPrefix(strings.ToLower(cs), scheme) {
			p.errorf(conn, "%s: a remote libSQL or Turso database is not supported by toolexec: connection_string must be :memory:, a file path or file:PATH", what)
			return
		}
	}
	if len(options) > 0 {
		p.errorf(optionsNode, "%s: options are for remote libSQL databases, which toolexec does not serve", what)
	}
	path := strings.TrimPrefix(cs, "file:")
	if q := strings.IndexByte(path, '?'); q >= 0 {
		p.errorf(conn, "%s: connection_string's parameters (after ?) are not supported", what)
		path = path[:q]
	}
	switch {
	case path == "":
		p.errorf(conn, "%s: connection_string needs a database (:memory: or a file path)", what)
	case path == ":memory:":
	case !filepath.IsAbs(path):
		path = filepath.Join(h.proj.dir, path)
	}
	s.Database = path
}
