// Package config reads a toolexec tools file: googleapis/mcp-toolbox's
// tools.yaml form (the v1 map form with top-level sources, tools and
// toolsets, and the v2 form of one YAML document per resource with kind,
// name and type) plus toolexec's own extensions. Load reports every problem
// it finds with its file and line, not only the first.
package config

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/sqlstmt"
)

// Config is a parsed, validated tools file.
type Config struct {
	// File is the path the file was read from ("" when parsed from memory).
	File string
	// Dir is the directory relative paths in the file (a sqlite database,
	// an init script) are resolved against.
	Dir string
	// Sources are the connections, by name.
	Sources map[string]*Source
	// Tools are the tools in file order.
	Tools []*Tool
	// Toolsets name groups of tools, by toolset name: the file's
	// toolsets and its groups (toolbox's newer name for them) alike.
	Toolsets map[string][]string
	// ToolsetDescriptions are the descriptions of the groups that have
	// one, by name.
	ToolsetDescriptions map[string]string

	// redactor replaces the values substituted from the environment
	// (those of redactMin bytes or more) with their ${NAME} references.
	redactor *strings.Replacer
	// envValues are the values substituted from the environment.
	envValues []string
	// watched are what Watched returns.
	watched []Watched
}

// EnvValues returns every non-empty value the file took from the
// environment through a ${NAME} reference, longest first: the values an
// http tool treats as secrets (see httptool.WithSecrets).
func (c *Config) EnvValues() []string {
	if c == nil {
		return nil
	}
	return append([]string(nil), c.envValues...)
}

// redactMin is the length from which Redact looks for a value substituted
// from the environment: shorter values (a port digit, "on") are not
// secrets, and replacing them would garble the text.
const redactMin = 4

// Redact returns s with every value the file took from the environment
// (4 bytes or longer) replaced by the ${NAME} reference that produced it.
// Messages built from a loaded file (a driver's error naming a host, a
// path, a user) pass through it before they are shown or logged, so a
// secret misplaced in a variable is never printed.
func (c *Config) Redact(s string) string {
	if c == nil || c.redactor == nil {
		return s
	}
	return c.redactor.Replace(s)
}

// Source kinds.
const (
	KindSQLite   = "sqlite"
	KindPostgres = "postgres"
	KindMySQL    = "mysql"
	KindMariaDB  = "mariadb" // a mysql source by toolbox's other name
	KindHTTP     = "http"
)

// Tool kinds.
const (
	KindSQLiteSQL   = "sqlite-sql"
	KindPostgresSQL = "postgres-sql"
	KindMySQLSQL    = "mysql-sql"
	KindHTTPTool    = "http"
)

// toolKinds are the tool kinds a tools file may declare, as the message
// of an unknown kind lists them.
var toolKinds = slices.Concat(
	[]string{KindSQLiteSQL, KindPostgresSQL, KindMySQLSQL, KindHTTPTool, KindScript, KindRedisTool},
	mongoKinds,
)

// sourceKinds are the source kinds a tools file may declare.
var sourceKinds = []string{KindSQLite, KindPostgres, KindMySQL, KindMariaDB, KindHTTP, KindRedis, KindMongoDB}

// oneOf lists words as "a, b or c".
func oneOf(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Dialect returns the SQL dialect of a database source kind (sqlite,
// postgres, mysql or mariadb).
func Dialect(sourceKind string) sqlstmt.Dialect {
	switch sourceKind {
	case KindPostgres:
		return sqlstmt.PostgreSQL
	case KindMySQL, KindMariaDB:
		return sqlstmt.MySQL
	}
	return sqlstmt.SQLite
}

// Source is one connection: a database (sqlite, postgres, mysql) or an
// HTTP API (http).
type Source struct {
	// Name is the source's name, which tools refer to.
	Name string
	// Kind is sqlite, postgres, mysql or http (a mariadb source is read
	// as mysql).
	Kind string
	// Line is where the source is defined.
	Line int

	// Database is the sqlite file (":memory:" for an in-memory database)
	// or the postgres or mysql database name.
	Database string
	// Init (toolexec extension, sqlite) is a SQL script applied when the
	// database file does not exist yet; resolved against Config.Dir.
	Init string

	// Host, Port, User and Password are the postgres or mysql
	// connection; the password is never logged or shown.
	Host, Port, User, Password string
	// QueryParams are extra postgres or mysql connection parameters
	// (sslmode, tls, ...) or, for http, query parameters added to every
	// request.
	QueryParams map[string]string
	// QueryTimeout (mysql) bounds each call of the source's tools that set
	// no timeout of their own (0: the server's --timeout).
	QueryTimeout time.Duration

	// Pool limits (toolexec extension): 0 means the default.
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration

	// BaseURL is an http source's URL, which tool paths extend.
	BaseURL string
	// Timeout bounds an http source's requests (0: the default, 30s).
	Timeout time.Duration
	// Headers are sent with every request of the source's tools. Values
	// typically hold secrets from the environment: they are never listed
	// or logged.
	Headers map[string]string
	// AllowedHosts (toolexec extension) are the hosts requests and
	// redirects may reach, each "HOST", "*.DOMAIN" or either with ":PORT";
	// an entry without a port allows BaseURL's port only, and every
	// request uses BaseURL's scheme. Empty means the host of BaseURL alone.
	AllowedHosts []string
	// AllowPrivateNetworks (toolexec extension) lets the http source's
	// host names resolve to loopback, private, link-local and other local
	// addresses. Without it such a name is refused when it is dialled; an
	// IP address or localhost written in BaseURL or AllowedHosts is
	// always allowed.
	AllowPrivateNetworks bool

	// The connections of redis and mongodb sources (redis.go, mongodb.go).
	RedisSource
	MongoSource
}

// Tool is one declared tool.
type Tool struct {
	// Name is the tool's name, as clients call it.
	Name string
	// Kind is the tool's kind: sqlite-sql, postgres-sql, mysql-sql, http,
	// script, redis or a mongodb kind (mongodb-find, ...).
	Kind string
	// Source names the source the tool runs on; a script tool's is its
	// script file.
	Source string
	// Description tells a model what the tool does.
	Description string
	// Line is where the tool is defined.
	Line int

	// Statement is the SQL of a sql tool, with placeholders.
	Statement string
	// Parameters are a sql tool's parameters, bound in order.
	Parameters []*Param
	// TemplateParameters are a sql tool's template parameters: their
	// values are spliced into Statement where it says {{.name}} (or
	// {{array .name}}), as quoted identifiers or numbers (see Template).
	TemplateParameters []*Param
	// Template is Statement split at its template parameters; nil when
	// the tool has none.
	Template *Template
	// Class is what the statement does (a sql tool's), as
	// sqlstmt.Classify reads it with its template parameters filled in.
	Class sqlstmt.Class

	// ReadOnly says whether the tool runs read-only, and is announced
	// so: for a sql tool, when its statement only reads (Class), unless
	// the file says otherwise (readOnly, or annotations' readOnlyHint);
	// for an http tool, when its method is GET or HEAD unless the file
	// says otherwise. A read-only sql tool runs in a read-only
	// transaction.
	ReadOnly bool
	// Destructive is the destructiveHint of a tool that writes (the
	// file's destructive, or annotations' destructiveHint); nil leaves
	// MCP's default (true). A sql tool whose statement only locks what it
	// reads gets false unless the file says otherwise.
	Destructive *bool
	// Idempotent is the idempotentHint (the file's idempotent, or
	// annotations' idempotentHint).
	Idempotent *bool
	// OpenWorld is annotations' openWorldHint; nil leaves the kind's
	// default (false for sql tools, true for http tools).
	OpenWorld *bool
	// declaredReadOnly is what the file said of ReadOnly (readOnly or
	// readOnlyHint), nil when it said nothing.
	declaredReadOnly *bool
	// MaxRows and MaxBytes (toolexec extension) cap a result: 0 means the
	// default.
	MaxRows  int
	MaxBytes int
	// Timeout (toolexec extension) bounds each call; 0 means the default.
	Timeout time.Duration
	// MaxConcurrency (toolexec extension) bounds this tool's calls running
	// at once (0: the server's limit applies).
	MaxConcurrency int
	// RateLimit (toolexec extension) bounds how often each caller may
	// call this tool: nil when the file sets none (the server's
	// --rate-limit applies), the zero RateLimit for rateLimit: none (no
	// limit, the server's included).
	RateLimit *RateLimit
	// Cache and CacheTTL (toolexec extension) opt the tool into the
	// library's read-through result cache.
	Cache    bool
	CacheTTL time.Duration
	// Scopes (toolexec extension) are the OAuth scopes a caller's token
	// must grant to call the tool, when the server verifies OAuth tokens
	// (serve --oauth-issuer); without OAuth they are not enforced.
	Scopes []string
	// TaskSupport (toolexec extension) says whether the tool's calls may
	// run as tasks, which the caller polls instead of holding its request
	// open: TaskOptional, TaskRequired, or TaskForbidden ("" means the
	// same: every call holds its request, as without the field).
	TaskSupport TaskSupport
	// ScriptSettings are a script tool's script, and the transforms and
	// fetch hosts of any tool (toolexec extensions).
	ScriptSettings

	// Method and Path are an http tool's request; Path may hold
	// {{.name}} references to PathParams.
	Method string
	Path   string
	// Headers are sent with every request of the tool, after the
	// source's; like them, never listed or logged.
	Headers map[string]string
	// PathParams, QueryParams, HeaderParams and BodyParams are an http
	// tool's parameters, by where their values go.
	PathParams   []*Param
	QueryParams  []*Param
	HeaderParams []*Param
	BodyParams   []*Param
	// RequestBody is an optional text/template of the JSON body.
	RequestBody string

	// What redis and mongodb tools add (redis.go, mongodb.go).
	RedisTool
	MongoTool
}

// AllParams returns every parameter of the tool: the sql parameters and
// template parameters, or the http tool's path, query, header and body
// parameters, in that order, then the parameters its statement does not
// bind (Unbound).
func (t *Tool) AllParams() []*Param {
	var out []*Param
	out = append(out, t.Parameters...)
	out = append(out, t.TemplateParameters...)
	out = append(out, t.PathParams...)
	out = append(out, t.QueryParams...)
	out = append(out, t.HeaderParams...)
	out = append(out, t.BodyParams...)
	out = append(out, t.Unbound...)
	return out
}

// Param types, as mcp-toolbox names them.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeFloat   = "float"
	TypeBoolean = "boolean"
	TypeArray   = "array"
	TypeMap     = "map"
)

// Param is one tool parameter.
type Param struct {
	// Name is the argument's name.
	Name string
	// Type is one of the Type constants.
	Type string
	// Description tells a model what to pass.
	Description string
	// Required is true unless the file says required: false or gives a
	// default (mcp-toolbox's rule).
	Required bool
	// Default is the value used when the argument is absent; HasDefault
	// tells a null default from none.
	Default    any
	HasDefault bool
	// Items is the element of an array parameter.
	Items *Param
	// ValueType is the value type of a typed map parameter ("" any).
	ValueType string
	// AllowedValues restrict the value to these (an enum in the schema),
	// as the file lists them.
	AllowedValues []any
	// AllowedPattern is set when an entry of a string parameter's
	// AllowedValues is a regular expression (see AllowedEntryIsPattern):
	// then the value must match it, which is every entry anchored to the
	// whole value, the regular expressions as RE2 and the other entries
	// literally, joined by "|". It replaces the enum in the schema.
	AllowedPattern *regexp.Regexp
	// ExcludedValues refuse these values (toolbox's field), and
	// ExcludedPattern, set when an entry of a string parameter's list is a
	// regular expression, refuses what matches it (built as
	// AllowedPattern is). The schema says `not` either.
	ExcludedValues  []any
	ExcludedPattern *regexp.Regexp
	// Escape is a string template parameter's escape (toolbox's field):
	// which identifier quotes the file expects; toolexec always quotes
	// with the database's own.
	Escape string
	// MinValue and MaxValue bound a number.
	MinValue, MaxValue *float64
	// Line is where the parameter is declared.
	Line int
}

// Problem is one thing wrong with a tools file, at a line (1-based; 0 when
// the problem is the file as a whole).
type Problem struct {
	// File is the file's name as given to Load or Parse.
	File string
	// Line and Column locate the problem (1-based; 0 when unknown).
	Line, Column int
	// Message says what is wrong.
	Message string
}

// String renders the problem as file:line:column: message, the form
// editors and compilers use.
func (p Problem) String() string {
	file := p.File
	if file == "" {
		file = "<config>"
	}
	switch {
	case p.Line > 0 && p.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", file, p.Line, p.Column, p.Message)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d: %s", file, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", file, p.Message)
}

// Problems is the error Load returns: every problem found, in file order.
type Problems []Problem

// Error joins the problems, one a line.
func (ps Problems) Error() string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += "\n"
		}
		s += p.String()
	}
	return s
}
