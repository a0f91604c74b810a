package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// redis reads a redis adapter's connection string,
// redis://user:password@host:port/db (rediss:// for TLS), into s, a redis
// source; the pool options set its pool's size, and no other option is
// read.
func (h *hyperterse) redis(what string, conn *yaml.Node, cs string, options map[string]string, s *Source) {
	p := h.p
	s.Kind = KindRedis
	u, err := url.Parse(cs)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Hostname() == "" {
		p.errorf(conn, "%s: connection_string is not a redis URL (redis://user:password@host:port/db, rediss:// for TLS)", what)
		return
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	s.Address = []string{net.JoinHostPort(u.Hostname(), port)}
	s.Username = u.User.Username()
	s.Password, _ = u.User.Password()
	s.TLS = u.Scheme == "rediss"
	s.Database = strings.TrimPrefix(u.Path, "/")
	for k, v := range options {
		if !h.pool(what, k, v, conn, s) {
			p.errorf(conn, "%s: option %s is not one toolexec reads for redis (the pool's size is: max_connections)", what, p.show(k))
		}
	}
	p.redisSource(what, conn, s)
}

// mongodb reads a mongodb adapter's connection string (mongodb:// or
// mongodb+srv://) into s, a mongodb source; the options other than the
// pool's size are added to its query, as Hyperterse does.
func (h *hyperterse) mongodb(what string, conn *yaml.Node, cs string, options map[string]string, s *Source) {
	p := h.p
	s.Kind, s.URI = KindMongoDB, cs
	extra := url.Values{}
	for k, v := range options {
		if !h.pool(what, k, v, conn, s) {
			extra.Set(k, v)
		}
	}
	if len(extra) > 0 {
		u, err := url.Parse(cs)
		if err != nil {
			p.errorf(conn, "%s: connection_string is not a mongodb URI (mongodb://... or mongodb+srv://...)", what)
			return
		}
		q := u.Query()
		for k, vs := range extra {
			q[k] = vs
		}
		u.RawQuery = q.Encode()
		s.URI = u.String()
	}
	p.mongoSource(what, conn, s)
}

// redisTool makes t a redis tool of one command, the statement's words
// (split at spaces): a word that is a placeholder is the input's value,
// one that holds placeholders is one word made of its text and the
// inputs' values.
func (h *hyperterse) redisTool(what string, n *yaml.Node, t *Tool, stmt string, inputs []*Param) {
	p := h.p
	t.Kind = KindRedisTool
	t.Parameters, t.Unbound = splitUsed(inputs, stmt)
	byName := map[string]*Param{}
	for _, in := range inputs {
		byName[in.Name] = in
	}
	c := &RedisCommand{Line: n.Line, Column: n.Column, bound: true, label: what + " statement"}
	ok := true
	for _, w := range redisWords(stmt) {
		arg, wok := h.redisWord(what, n, w, byName)
		ok = ok && wok
		c.Args = append(c.Args, arg)
		c.nodes = append(c.nodes, n)
	}
	if !ok {
		t.Kind = "" // reported: nothing more to check
		return
	}
	t.Commands = []*RedisCommand{c}
	p.redisTool(what, n, t)
}

// splitUsed splits inputs into those a placeholder of stmt uses and the
// others, which are in the tool's schema but bound nowhere, as a SQL
// statement's are.
func splitUsed(inputs []*Param, stmt string) (used, unused []*Param) {
	names := map[string]bool{}
	for _, m := range hyperInputAny.FindAllStringSubmatch(stmt, -1) {
		names[m[1]] = true
	}
	for _, in := range inputs {
		if names[in.Name] {
			used = append(used, in)
		} else {
			unused = append(unused, in)
		}
	}
	return used, unused
}

// redisWords splits a redis statement at its spaces, those inside a
// {{ ... }} placeholder aside.
func redisWords(stmt string) []string {
	var words []string
	start, depth := -1, 0
	for i := 0; i < len(stmt); i++ {
		switch {
		case strings.HasPrefix(stmt[i:], "{{"):
			depth++
		case strings.HasPrefix(stmt[i:], "}}") && depth > 0:
			depth--
		}
		space := stmt[i] == ' ' || stmt[i] == '\t' || stmt[i] == '\n' || stmt[i] == '\r'
		switch {
		case space && depth == 0 && start >= 0:
			words = append(words, stmt[start:i])
			start = -1
		case !space && start < 0:
			start = i
		}
	}
	if start >= 0 {
		words = append(words, stmt[start:])
	}
	return words
}

// redisWord is word w of a redis statement; ok is false when one of its
// placeholders is not a declared input (reported at n).
func (h *hyperterse) redisWord(what string, n *yaml.Node, w string, byName map[string]*Param) (arg RedisArg, ok bool) {
	p := h.p
	ok = true
	if !strings.Contains(w, "{{") {
		return RedisArg{Text: w}, true
	}
	for i := 0; i < len(w); {
		m := hyperInput.FindStringSubmatchIndex(w[i:])
		if m == nil {
			if o := hyperOther.FindString(w[i:]); o != "" && strings.HasPrefix(w[i:], "{{") {
				p.errorf(n, "%s: %s is not a placeholder toolexec knows: {{ inputs.NAME }} and {{ env.NAME }} are", what, o)
				ok = false
			}
			j := strings.Index(w[i+1:], "{{")
			if j < 0 {
				j = len(w) - i - 1
			}
			arg.Parts = append(arg.Parts, RedisArg{Text: w[i : i+1+j]})
			i += 1 + j
			continue
		}
		name := w[i+m[2] : i+m[3]]
		prm := byName[name]
		if prm == nil {
			p.errorf(n, "%s: the statement uses {{ inputs.%s }}, which inputs does not declare", what, name)
			ok = false
		}
		arg.Parts = append(arg.Parts, RedisArg{Param: prm})
		i += m[1]
	}
	switch {
	case len(arg.Parts) == 1 && arg.Parts[0].Param != nil:
		return RedisArg{Param: arg.Parts[0].Param}, ok
	case arg.param() == nil && ok:
		return RedisArg{Text: w}, true // braces, no placeholder
	}
	return arg, ok
}

// hyperMongoOps are the operations of a Hyperterse MongoDB statement
// toolexec serves, as mongodb tool kinds.
var hyperMongoOps = map[string]string{
	"find": KindMongoFind, "findOne": KindMongoFindOne, "aggregate": KindMongoAggregate,
	"insertOne": KindMongoInsertOne, "insertMany": KindMongoInsertMany,
	"updateOne": KindMongoUpdateOne, "updateMany": KindMongoUpdateMany,
	"deleteOne": KindMongoDeleteOne, "deleteMany": KindMongoDeleteMany,
}

// hyperPlaceholderValue is a placeholder standing for a whole JSON value:
// quoted, or bare.
var hyperPlaceholderValue = regexp.MustCompile(`"\{\{\s*inputs\.(\w+)\s*\}\}"|\{\{\s*inputs\.(\w+)\s*\}\}`)

// hyperMongoStatement is a Hyperterse MongoDB statement, a JSON object;
// the payloads stay raw text.
type hyperMongoStatement struct {
	Database   string          `json:"database"`
	Collection string          `json:"collection"`
	Operation  string          `json:"operation"`
	Filter     json.RawMessage `json:"filter"`
	Document   json.RawMessage `json:"document"`
	Documents  json.RawMessage `json:"documents"`
	Update     json.RawMessage `json:"update"`
	Pipeline   json.RawMessage `json:"pipeline"`
	Options    struct {
		Limit      *int64          `json:"limit"`
		Sort       json.RawMessage `json:"sort"`
		Projection json.RawMessage `json:"projection"`
		Upsert     bool            `json:"upsert"`
	} `json:"options"`
}

// mongoTool makes t a mongodb tool of the statement, a JSON object
// naming the database, the collection and the operation, with the
// operation's filter, update, pipeline, document or documents and options
// (limit, sort, projection, upsert). Each {{ inputs.NAME }} standing for a
// whole value becomes the parameter's value; the payloads are then checked
// as a tools file's are.
func (h *hyperterse) mongoTool(what string, n *yaml.Node, t *Tool, stmt string, inputs []*Param) {
	p := h.p
	t.Parameters, t.Unbound = splitUsed(inputs, stmt)
	// Each placeholder becomes a string no statement holds, so that the
	// statement reads as JSON; the payloads get it back as {{json .NAME}}.
	const mark = "\x60toolexec-input\x60"
	text := hyperPlaceholderValue.ReplaceAllStringFunc(stmt, func(s string) string {
		m := hyperPlaceholderValue.FindStringSubmatch(s)
		return strconv.Quote(mark + m[1] + m[2] + mark)
	})
	if hyperInputAny.MatchString(text) {
		p.errorf(n, "%s: a placeholder inside a string: {{ inputs.NAME }} stands for a whole value, never for part of a string", what)
		return
	}
	var st hyperMongoStatement
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		p.errorf(n, "%s: the statement is not a MongoDB statement, a JSON object of database, collection, operation and its fields: %s", what, cleanJSONError(err))
		return
	}
	kind, ok := hyperMongoOps[st.Operation]
	if !ok {
		p.errorf(n, "%s: operation %s is not one toolexec serves (find, findOne, aggregate, insertOne, insertMany, updateOne, updateMany, deleteOne, deleteMany)", what, p.show(st.Operation))
		return
	}
	if st.Collection == "" {
		p.errorf(n, "%s: the statement needs a collection", what)
	}
	t.Kind, t.Database, t.Collection = kind, st.Database, st.Collection
	t.Upsert = st.Options.Upsert
	if st.Options.Limit != nil {
		t.Limit = *st.Options.Limit
	}
	payload := func(field string, raw json.RawMessage) *Payload {
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 || string(raw) == "null" {
			return nil
		}
		s := string(raw)
		for _, in := range inputs {
			s = strings.ReplaceAll(s, strconv.Quote(mark+in.Name+mark), "{{json ."+in.Name+"}}")
		}
		// An undeclared input is left as a placeholder the checks name.
		s = strings.ReplaceAll(strings.ReplaceAll(s, `"`+mark, "{{json ."), mark+`"`, "}}")
		return &Payload{Text: s, node: n, label: what + " statement " + field}
	}
	t.Filter = payload("filter", st.Filter)
	t.Update = payload("update", st.Update)
	t.Pipeline = payload("pipeline", st.Pipeline)
	t.Sort = payload("options.sort", st.Options.Sort)
	t.Project = payload("options.projection", st.Options.Projection)
	switch kind {
	case KindMongoInsertOne:
		t.Documents = payload("document", st.Document)
	case KindMongoInsertMany:
		t.Documents = payload("documents", st.Documents)
	}
	if (kind == KindMongoInsertOne || kind == KindMongoInsertMany) && t.Documents == nil {
		p.errorf(n, "%s: operation %s needs %s", what, st.Operation, map[string]string{KindMongoInsertOne: "document", KindMongoInsertMany: "documents"}[kind])
		t.Kind = ""
		return
	}
	if t.Filter == nil && kind != KindMongoAggregate && kind != KindMongoInsertOne && kind != KindMongoInsertMany {
		t.Filter = &Payload{Text: "{}", node: n, label: what + " statement filter"} // Hyperterse's: every document
	}
	p.mongoTool(what, n, nil, t)
}

// cleanJSONError is err without Go's type names.
func cleanJSONError(err error) string {
	if te := (*json.UnmarshalTypeError)(nil); errors.As(err, &te) {
		return "field " + te.Field + " has the wrong type"
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}
