package config

import (
	"fmt"
	"net"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/rediscmd"
)

// The redis source kind and tool kind (mcp-toolbox's names).
const (
	KindRedis     = "redis"
	KindRedisTool = "redis"
)

// RedisSource is what a redis source adds to Source: the connection to a
// Redis (or Valkey) server or Redis Cluster. Its password is
// Source.Password; its database is Source.Database, read as DB.
type RedisSource struct {
	// Address is the server's host:port (address, a list in toolbox's
	// form), or the nodes a cluster client starts from.
	Address []string
	// Username is the ACL user (username); "" is the default user.
	Username string
	// DB is the database number (database, 0 by default; a cluster has 0
	// only).
	DB int
	// TLS (tlsEnabled) connects with TLS, verifying the server's
	// certificate.
	TLS bool
	// Cluster (clusterEnabled) connects to a Redis Cluster.
	Cluster bool
}

// RedisTool is what a redis tool adds to Tool: its commands, which run in
// order, each on its own (not in a transaction). Its parameters are
// Tool.Parameters.
type RedisTool struct {
	// Commands are the tool's commands (commands).
	Commands []*RedisCommand
}

// RedisCommand is one command of a redis tool: the command's name, then
// its arguments, each a literal or a parameter's value.
type RedisCommand struct {
	// Args are the command's words, the name first.
	Args []RedisArg
	// Class is what the command does (rediscmd.Classify).
	Class rediscmd.Class
	// Line and Column are where the command is written.
	Line, Column int
	// nodes are the YAML nodes of Args, for problems.
	nodes []*yaml.Node
	// bound says the reader bound the parameters already (a Hyperterse
	// statement): a word's Text is literal, never a $name; label names
	// the command in problems when set.
	bound bool
	label string
}

// RedisArg is one word of a command: Text, or when Param is set, the
// value of that parameter ("$name" in the file), sent as one argument (an
// array's items and a map's keys and values as one argument each), or
// when Parts is set, one argument made of its parts in order, each a Text
// or a Param whose value is a single value (a Hyperterse placeholder
// inside a word, such as user:{{ inputs.id }}).
type RedisArg struct {
	Text  string
	Param *Param
	Parts []RedisArg
}

// literal reports whether the word is written in the file, whole.
func (a RedisArg) literal() bool { return a.Param == nil && a.Parts == nil }

// param is the first parameter the word takes a value from, nil for a
// literal word.
func (a RedisArg) param() *Param {
	if a.Param != nil {
		return a.Param
	}
	for _, p := range a.Parts {
		if p.Param != nil {
			return p.Param
		}
	}
	return nil
}

// redisParamRef is a whole argument that names a parameter: $name.
var redisParamRef = regexp.MustCompile(`^\$([A-Za-z_][A-Za-z0-9_]*)$`)

// redisEmbeddedRef finds $name inside a longer argument.
var redisEmbeddedRef = regexp.MustCompile(`\$([A-Za-z_][A-Za-z0-9_]*)`)

// redisSourceFields are the fields of a redis source beside kind, type
// and name.
var redisSourceFields = map[string]bool{
	"address": true, "username": true, "password": true, "database": true,
	"tlsEnabled": true, "clusterEnabled": true, "useGCPIAM": true,
	"maxOpenConns": true, "maxIdleConns": true, "connMaxLifetime": true,
}

// storeSourceField reads a field only redis and mongodb sources have;
// false for any other key.
func (p *parser) storeSourceField(what, key string, v *yaml.Node, s *Source) bool {
	switch key {
	case "address":
		if v.Kind == yaml.ScalarNode {
			s.Address = []string{p.str(what+" address", v)}
		} else {
			s.Address = p.strlist(what+" address", v)
		}
	case "username":
		s.Username = p.str(what+" username", v)
	case "tlsEnabled":
		s.TLS = p.boolean(what+" tlsEnabled", v)
	case "clusterEnabled":
		s.Cluster = p.boolean(what+" clusterEnabled", v)
	case "useGCPIAM":
		if p.boolean(what+" useGCPIAM", v) {
			p.errorf(v, "%s: useGCPIAM is not supported by toolexec (give username and password)", what)
		}
	default:
		return p.mongoSourceField(what, key, v, s)
	}
	return true
}

// storeSourceDone checks a source once its fields are read: a redis or
// mongodb source's own fields, and that no other kind has them.
func (p *parser) storeSourceDone(what string, nameNode, body *yaml.Node, s *Source) {
	switch s.Kind {
	case KindRedis:
		p.onlyFields(what, "a redis source", body, redisSourceFields)
		p.redisSource(what, nameNode, s)
	case KindMongoDB:
		p.onlyFields(what, "a mongodb source", body, mongoSourceFields)
		p.mongoSource(what, nameNode, s)
	default:
		for i := 0; i+1 < len(body.Content); i += 2 {
			k := body.Content[i]
			switch {
			case k.Value == "password" || k.Value == "database" || k.Value == "maxOpenConns" || k.Value == "maxIdleConns" || k.Value == "connMaxLifetime":
			case redisSourceFields[k.Value]:
				p.errorf(k, "%s: %s is only for redis sources", what, k.Value)
			case mongoSourceFields[k.Value]:
				p.errorf(k, "%s: %s is only for mongodb sources", what, k.Value)
			}
		}
	}
}

// onlyFields reports each key of body that is neither common to every
// source or tool (kind, type, name) nor in allowed.
func (p *parser) onlyFields(what, kind string, body *yaml.Node, allowed map[string]bool) {
	if body.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(body.Content); i += 2 {
		k := body.Content[i]
		switch k.Value {
		case "kind", "type", "name":
			continue
		}
		if !allowed[k.Value] {
			p.errorf(k, "%s: %s is not a field of %s", what, k.Value, kind)
		}
	}
}

// redisSource checks a redis source: an address, a database number.
func (p *parser) redisSource(what string, nameNode *yaml.Node, s *Source) {
	if len(s.Address) == 0 {
		p.errorf(nameNode, "%s: redis needs address (host:port)", what)
	}
	for _, a := range s.Address {
		host, port, err := net.SplitHostPort(a)
		if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
			p.errorf(nameNode, "%s: address %s is not host:port", what, p.show(a))
		}
	}
	if len(s.Address) > 1 && !s.Cluster {
		p.errorf(nameNode, "%s: several addresses are for a Redis Cluster (clusterEnabled: true)", what)
	}
	if s.Database != "" {
		n, err := strconv.Atoi(s.Database)
		if err != nil || n < 0 {
			p.errorf(nameNode, "%s: database must be a database number, not %s", what, p.show(s.Database))
		}
		s.DB = n
	}
	if s.Cluster && s.DB != 0 {
		p.errorf(nameNode, "%s: a Redis Cluster has database 0 only", what)
	}
}

// otherKindToolFields are the fields of the sql and http tools, which a
// redis or mongodb tool does not have.
var otherKindToolFields = []string{
	"statement", "templateParameters", "method", "path", "headers",
	"pathParams", "queryParams", "headerParams", "bodyParams", "requestBody",
}

// storeToolField reads a field only redis and mongodb tools have; false
// for any other key. A field a tool's kind does not have is reported once
// the kind is known (storeToolDone).
func (p *parser) storeToolField(what, key string, v *yaml.Node, t *Tool) bool {
	if key != "commands" {
		return p.mongoToolField(what, key, v, t)
	}
	if v.Kind != yaml.SequenceNode {
		p.errorf(v, "%s commands must be a list of commands, each a list of words: [SET, key, $value]", what)
		return true
	}
	t.Commands = []*RedisCommand{}
	for _, c := range v.Content {
		if c.Kind != yaml.SequenceNode {
			p.errorf(c, "%s: a command must be a list of words, the command's name first: [GET, $key]", what)
			continue
		}
		cmd := &RedisCommand{Line: c.Line, Column: c.Column}
		for _, w := range c.Content {
			if w.Kind != yaml.ScalarNode {
				p.errorf(w, "%s: a command's words must be strings or numbers", what)
				continue
			}
			cmd.Args = append(cmd.Args, RedisArg{Text: p.str(what+" command", w)})
			cmd.nodes = append(cmd.nodes, w)
		}
		t.Commands = append(t.Commands, cmd)
	}
	return true
}

// storeToolDone checks a tool once its fields are read: a redis or
// mongodb tool's own fields and what they say, and that no other kind has
// them.
func (p *parser) storeToolDone(what string, nameNode, body *yaml.Node, t *Tool) {
	switch {
	case t.Kind == KindRedisTool:
		p.notFields(what, "redis", body, otherKindToolFields)
		p.notFields(what, "redis", body, mongoToolFieldNames)
		p.redisTool(what, nameNode, t)
	case mongoToolKinds[t.Kind]:
		p.notFields(what, t.Kind, body, otherKindToolFields)
		p.notFields(what, t.Kind, body, []string{"commands", "parameters"})
		p.mongoTool(what, nameNode, body, t)
	default:
		p.notFields(what, t.Kind, body, []string{"commands"})
		p.notFields(what, t.Kind, body, mongoToolFieldNames)
	}
}

// notFields reports each of fields that body has: a field of another
// kind of tool.
func (p *parser) notFields(what, kind string, body *yaml.Node, fields []string) {
	for _, f := range fields {
		if k := keyNode(body, f); k != nil {
			p.errorf(k, "%s: %s is not a field of a %s tool", what, f, kind)
		}
	}
}

// keyNode is the key node of key in mapping m, nil when it has none.
func keyNode(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i]
		}
	}
	return nil
}

// redisTool checks a redis tool's commands: each names a command the
// allow-list has (rediscmd), one that writes only in a tool declared to
// write (readOnly: false, or annotations' readOnlyHint: false); each
// $name is a declared parameter and stands for a whole argument; every
// parameter is used.
func (p *parser) redisTool(what string, nameNode *yaml.Node, t *Tool) {
	t.ReadOnly = t.declaredReadOnly == nil || *t.declaredReadOnly
	if t.Commands == nil {
		p.errorf(nameNode, "%s needs commands, a list of commands such as [GET, $key]", what)
		return
	}
	if len(t.Commands) == 0 {
		p.errorf(nameNode, "%s: commands is empty", what)
	}
	byName := map[string]*Param{}
	for _, prm := range t.Parameters {
		byName[prm.Name] = prm
	}
	used := map[string]bool{}
	for i, c := range t.Commands {
		label := fmt.Sprintf("%s commands[%d]", what, i)
		if c.label != "" {
			label = c.label
		}
		if len(c.Args) == 0 {
			p.problems = append(p.problems, Problem{File: p.file, Line: c.Line, Column: c.Column, Message: label + ": a command needs at least its name"})
			continue
		}
		known := make([]string, len(c.Args))
		for j := range c.Args {
			a := &c.Args[j]
			known[j] = a.Text
			if c.bound {
				if !a.literal() {
					known[j] = rediscmd.Unknown
				}
				for _, part := range append([]RedisArg{*a}, a.Parts...) {
					if part.Param != nil {
						used[part.Param.Name] = true
					}
				}
				continue
			}
			if m := redisParamRef.FindStringSubmatch(a.Text); m != nil {
				prm, ok := byName[m[1]]
				if !ok {
					p.errorf(c.nodes[j], "%s: %s is not a declared parameter", label, p.show(a.Text))
					continue
				}
				a.Param, a.Text = prm, ""
				known[j] = rediscmd.Unknown
				used[prm.Name] = true
				continue
			}
			for _, m := range redisEmbeddedRef.FindAllStringSubmatch(a.Text, -1) {
				if _, ok := byName[m[1]]; ok {
					p.errorf(c.nodes[j], "%s: %s would be sent as it is written: a parameter stands for a whole argument ($%s), never for part of one", label, p.show(a.Text), m[1])
					used[m[1]] = true
				}
			}
		}
		if prm := c.Args[0].param(); prm != nil {
			p.errorf(c.nodes[0], "%s: the command's name must be written in the file, not taken from parameter %s", label, p.show(prm.Name))
			continue
		}
		sub, hasSub := "", len(c.Args) > 1 && c.Args[1].literal()
		if hasSub {
			sub = c.Args[1].Text
		}
		c.Class = rediscmd.Classify(c.Args[0].Text, sub, hasSub)
		switch {
		case c.Class.Subcommand && len(c.Args) == 1:
			p.errorf(c.nodes[0], "%s: Redis command %s needs its subcommand", label, c.Class.Name)
			continue
		case c.Class.Effect == rediscmd.Refused:
			p.errorf(c.nodes[0], "%s: Redis command %s is refused: %s", label, c.Class.Name, c.Class.Why)
			continue
		case c.Class.Effect == rediscmd.Writes && t.ReadOnly:
			declared := "read-only (the default of a redis tool)"
			if t.declaredReadOnly != nil {
				declared = "declared read-only"
			}
			p.errorf(c.nodes[0], "%s: %s writes, and the tool is %s: declare readOnly: false (or annotations: {readOnlyHint: false}) to let it write", label, c.Class.Name, declared)
		}
		if err := rediscmd.CheckArgs(c.Args[0].Text, known[1:]); err != nil {
			p.errorf(c.nodes[0], "%s: %s %v", label, c.Class.Name, err)
		}
	}
	for _, prm := range t.Parameters {
		if !used[prm.Name] {
			p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: fmt.Sprintf("%s: parameter %s is used by no command (write $%s where its value goes)", what, p.show(prm.Name), prm.Name)})
		}
	}
}
