package config

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/bsontmpl"
)

// The mongodb source kind and tool kinds (mcp-toolbox's names).
const (
	KindMongoDB         = "mongodb"
	KindMongoFind       = "mongodb-find"
	KindMongoFindOne    = "mongodb-find-one"
	KindMongoAggregate  = "mongodb-aggregate"
	KindMongoInsertOne  = "mongodb-insert-one"
	KindMongoInsertMany = "mongodb-insert-many"
	KindMongoUpdateOne  = "mongodb-update-one"
	KindMongoUpdateMany = "mongodb-update-many"
	KindMongoDeleteOne  = "mongodb-delete-one"
	KindMongoDeleteMany = "mongodb-delete-many"
)

// mongoKinds are the mongodb tool kinds, in toolbox's order.
var mongoKinds = []string{
	KindMongoFind, KindMongoFindOne, KindMongoAggregate,
	KindMongoInsertOne, KindMongoInsertMany,
	KindMongoUpdateOne, KindMongoUpdateMany,
	KindMongoDeleteOne, KindMongoDeleteMany,
}

// mongoToolKinds are the mongodb tool kinds, as a set.
var mongoToolKinds = func() map[string]bool {
	m := make(map[string]bool, len(mongoKinds))
	for _, k := range mongoKinds {
		m[k] = true
	}
	return m
}()

// mongoKindFields are the mongodb fields each mongodb tool kind takes.
var mongoKindFields = func() map[string][]string {
	base := []string{"database", "collection", "collectionAllowedValues"}
	filter := []string{"filterPayload", "filterParams"}
	project := []string{"projectPayload", "projectParams"}
	sort := []string{"sortPayload", "sortParams"}
	update := []string{"updatePayload", "updateParams", "canonical", "upsert"}
	return map[string][]string{
		KindMongoFind:       slices.Concat(base, filter, project, sort, []string{"limit"}),
		KindMongoFindOne:    slices.Concat(base, filter, project, sort),
		KindMongoAggregate:  slices.Concat(base, []string{"pipelinePayload", "pipelineParams", "canonical"}),
		KindMongoInsertOne:  slices.Concat(base, []string{"canonical"}),
		KindMongoInsertMany: slices.Concat(base, []string{"canonical"}),
		KindMongoUpdateOne:  slices.Concat(base, filter, update),
		KindMongoUpdateMany: slices.Concat(base, filter, update),
		KindMongoDeleteOne:  slices.Concat(base, filter),
		KindMongoDeleteMany: slices.Concat(base, filter),
	}
}()

// mongoToolFieldNames are every mongodb tool field.
var mongoToolFieldNames = []string{
	"database", "collection", "collectionAllowedValues",
	"filterPayload", "filterParams", "projectPayload", "projectParams",
	"sortPayload", "sortParams", "pipelinePayload", "pipelineParams",
	"updatePayload", "updateParams", "limit", "canonical", "upsert",
}

// MongoWriteKind reports whether a mongodb tool kind writes (the insert,
// update and delete kinds).
func MongoWriteKind(kind string) bool {
	return mongoToolKinds[kind] && kind != KindMongoFind && kind != KindMongoFindOne && kind != KindMongoAggregate
}

// MongoSource is what a mongodb source adds to Source.
type MongoSource struct {
	// URI is the connection string (uri): mongodb://... or
	// mongodb+srv://...; it usually holds a password, and is never
	// shown.
	URI string
	// AllowedCollections (allowedCollections) restrict every tool of the
	// source to these collections, each "database.collection"; empty:
	// any collection.
	AllowedCollections []string
}

// mongoSourceFields are the fields of a mongodb source beside kind, type
// and name.
var mongoSourceFields = map[string]bool{"uri": true, "allowedCollections": true, "maxOpenConns": true}

// MongoTool is what a mongodb tool adds to Tool. Its parameters are
// Tool.Parameters: filterParams, projectParams, sortParams,
// pipelineParams and updateParams in that order, then the parameters
// toolbox adds: data (the document, or documents, an insert tool
// inserts) and collection (when the file names none).
type MongoTool struct {
	// Database is the database the tool works on (database).
	Database string
	// Collection is the collection (collection); "" when a caller names
	// it in the collection parameter.
	Collection string
	// CollectionAllowedValues (collectionAllowedValues) are the
	// collections the collection parameter may name.
	CollectionAllowedValues []string
	// Filter, Project, Sort, Pipeline and Update are the payloads
	// (filterPayload, ...), nil when the file gives none.
	Filter, Project, Sort, Pipeline, Update *Payload
	// Limit (limit, mongodb-find) caps the documents found (0: none but
	// maxRows).
	Limit int64
	// Canonical (canonical) reads the payloads and the documents to
	// insert as canonical Extended JSON, not relaxed.
	Canonical bool
	// Upsert (upsert) inserts a document when an update matches none.
	Upsert bool
	// Documents is what an insert tool inserts when its declaration
	// writes it (a Hyperterse statement's documents, with placeholders):
	// the document of an insert-one, the array of documents of an
	// insert-many. A tools file has no such field: nil, and the tool
	// takes the data argument, as toolbox's do.
	Documents *Payload

	// mongoParams are the parameter lists by field, in file order.
	mongoParams map[string][]*Param
}

// Payload is one payload of a mongodb tool: Extended JSON with
// {{json .name}} placeholders (see bsontmpl).
type Payload struct {
	// Text is the payload as the file writes it.
	Text string
	// Template is the parsed payload; nil when it did not parse.
	Template *bsontmpl.Template
	node     *yaml.Node
	// label, when set, names the payload in problems: a payload cut
	// from a Hyperterse statement, whose problems are placed at the
	// statement (node).
	label string
}

// The parameters toolbox adds to mongodb tools.
const (
	// MongoDataParam is the insert tools' parameter: the document (a JSON
	// object), or for insert-many the documents (a JSON array), as
	// Extended JSON text.
	MongoDataParam = "data"
	// MongoCollectionParam names the collection of a tool whose file
	// names none.
	MongoCollectionParam = "collection"
)

// mongoSourceField reads a field only a mongodb source has; false for any
// other key.
func (p *parser) mongoSourceField(what, key string, v *yaml.Node, s *Source) bool {
	switch key {
	case "uri":
		s.URI = p.str(what+" uri", v)
	case "allowedCollections":
		s.AllowedCollections = p.strlist(what+" allowedCollections", v)
		for i, c := range s.AllowedCollections {
			db, coll, ok := strings.Cut(c, ".")
			if !ok || db == "" || coll == "" {
				p.errorf(v.Content[i], "%s: allowedCollections entry %s is not database.collection", what, p.show(c))
			}
		}
	default:
		return false
	}
	return true
}

// mongoSource checks a mongodb source: a mongodb:// or mongodb+srv://
// URI. The URI is never shown: it usually holds a password.
func (p *parser) mongoSource(what string, nameNode *yaml.Node, s *Source) {
	switch {
	case s.URI == "":
		p.errorf(nameNode, "%s: mongodb needs uri (mongodb://... or mongodb+srv://...)", what)
	case !strings.HasPrefix(s.URI, "mongodb://") && !strings.HasPrefix(s.URI, "mongodb+srv://"):
		p.errorf(nameNode, "%s: uri must start with mongodb:// or mongodb+srv://", what)
	}
}

// mongoToolField reads a field only mongodb tools have; false for any
// other key.
func (p *parser) mongoToolField(what, key string, v *yaml.Node, t *Tool) bool {
	payload := func() *Payload {
		return &Payload{Text: p.str(what+" "+key, v), node: v}
	}
	switch key {
	case "database":
		t.Database = p.str(what+" database", v)
	case "collection":
		t.Collection = p.str(what+" collection", v)
	case "collectionAllowedValues":
		t.CollectionAllowedValues = p.strlist(what+" collectionAllowedValues", v)
	case "filterPayload":
		t.Filter = payload()
	case "projectPayload":
		t.Project = payload()
	case "sortPayload":
		t.Sort = payload()
	case "pipelinePayload":
		t.Pipeline = payload()
	case "updatePayload":
		t.Update = payload()
	case "filterParams", "projectParams", "sortParams", "pipelineParams", "updateParams":
		if t.mongoParams == nil {
			t.mongoParams = map[string][]*Param{}
		}
		t.mongoParams[key] = p.params(what+" "+key, v)
	case "limit":
		t.Limit = int64(p.integer(what+" limit", v))
	case "canonical":
		t.Canonical = p.boolean(what+" canonical", v)
	case "upsert":
		t.Upsert = p.boolean(what+" upsert", v)
	default:
		return false
	}
	return true
}

// mongoTool checks a mongodb tool once its fields are read: the kind's
// fields only, its database and collection, its payloads (Extended JSON
// whose placeholders name declared parameters and stand for whole
// values), every parameter used, and whether it writes: a write kind, or
// an aggregation with $out or $merge at any depth, is refused when the
// tool is declared read-only.
func (p *parser) mongoTool(what string, nameNode, body *yaml.Node, t *Tool) {
	allowed := mongoKindFields[t.Kind]
	for _, f := range mongoToolFieldNames {
		if k := keyNode(body, f); k != nil && !slices.Contains(allowed, f) {
			p.errorf(k, "%s: %s is not a field of a %s tool", what, f, t.Kind)
		}
	}
	if t.Database == "" {
		p.errorf(nameNode, "%s needs database", what)
	}
	if t.Collection != "" && len(t.CollectionAllowedValues) > 0 {
		p.errorf(keyNode(body, "collectionAllowedValues"), "%s: give collection or collectionAllowedValues, not both", what)
	}
	required := map[string]*Payload{}
	switch t.Kind {
	case KindMongoFind, KindMongoFindOne, KindMongoDeleteOne, KindMongoDeleteMany:
		required["filterPayload"] = t.Filter
	case KindMongoUpdateOne, KindMongoUpdateMany:
		required["filterPayload"] = t.Filter
		required["updatePayload"] = t.Update
	case KindMongoAggregate:
		required["pipelinePayload"] = t.Pipeline
	}
	for name, pl := range required {
		if pl == nil || strings.TrimSpace(pl.Text) == "" {
			p.errorf(nameNode, "%s needs %s", what, name)
		}
	}
	// The parameters, in toolbox's order, then those toolbox adds.
	for _, f := range []string{"filterParams", "projectParams", "sortParams", "pipelineParams", "updateParams"} {
		t.Parameters = append(t.Parameters, t.mongoParams[f]...)
	}
	switch {
	case t.Documents != nil: // the declaration writes the documents
	case t.Kind == KindMongoInsertOne:
		t.Parameters = append(t.Parameters, &Param{Name: MongoDataParam, Type: TypeString, Required: true, Line: t.Line,
			Description: "The document to insert, as a JSON object (MongoDB Extended JSON)."})
	case t.Kind == KindMongoInsertMany:
		t.Parameters = append(t.Parameters, &Param{Name: MongoDataParam, Type: TypeString, Required: true, Line: t.Line,
			Description: "The documents to insert, as a JSON array of objects (MongoDB Extended JSON)."})
	}
	if t.Collection == "" {
		prm := &Param{Name: MongoCollectionParam, Type: TypeString, Required: true, Line: t.Line,
			Description: "The name of the collection to operate on."}
		for _, c := range t.CollectionAllowedValues {
			prm.AllowedValues = append(prm.AllowedValues, c)
		}
		t.Parameters = append(t.Parameters, prm)
	}
	declared := map[string]bool{}
	for _, prm := range t.Parameters {
		declared[prm.Name] = true
	}
	used := map[string]bool{MongoDataParam: true, MongoCollectionParam: true}
	writes := false
	documents := "document"
	if t.Kind == KindMongoInsertMany {
		documents = "documents"
	}
	for _, pl := range []struct {
		field string
		pl    *Payload
		want  string // "document", "documents", "pipeline" or "update"
	}{
		{"filterPayload", t.Filter, "document"},
		{"projectPayload", t.Project, "document"},
		{"sortPayload", t.Sort, "document"},
		{"pipelinePayload", t.Pipeline, "pipeline"},
		{"updatePayload", t.Update, "update"},
		{"documents", t.Documents, documents},
	} {
		if pl.pl == nil || strings.TrimSpace(pl.pl.Text) == "" {
			continue
		}
		if pl.pl.label != "" {
			pl.field = pl.pl.label
		}
		tmpl, err := bsontmpl.Compile(pl.pl.Text, t.Canonical)
		if err != nil {
			var e *bsontmpl.Error
			if errors.As(err, &e) {
				p.payloadProblem(pl.pl, e.Offset, "%s %s: %s", what, pl.field, e.Message)
			}
			continue
		}
		pl.pl.Template = tmpl
		switch {
		case pl.want == "document" && !tmpl.IsDocument():
			p.payloadProblem(pl.pl, -1, "%s %s: must be a document, {...}", what, pl.field)
		case pl.want == "pipeline" && !tmpl.IsArray():
			p.payloadProblem(pl.pl, -1, "%s %s: must be an array of stages, [{...}, ...]", what, pl.field)
		case pl.want == "update" && !tmpl.IsDocument() && !tmpl.IsArray():
			p.payloadProblem(pl.pl, -1, "%s %s: must be an update document, {...}, or an update pipeline, [...]", what, pl.field)
		case pl.want == "documents" && !tmpl.IsArray():
			p.payloadProblem(pl.pl, -1, "%s %s: must be an array of documents, [{...}, ...]", what, pl.field)
		}
		for _, ph := range tmpl.Placeholders() {
			used[ph.Param] = true
			if !declared[ph.Param] {
				p.payloadProblem(pl.pl, ph.Offset, "%s %s: {{json .%s}}: %s is not a declared parameter", what, pl.field, ph.Param, p.show(ph.Param))
			}
		}
		if pl.pl != t.Pipeline {
			continue
		}
		for _, k := range tmpl.Keys() {
			if k.Name != "$out" && k.Name != "$merge" {
				continue
			}
			writes = true
			if t.declaredReadOnly != nil && *t.declaredReadOnly {
				p.payloadProblem(pl.pl, k.Offset, "%s %s: %s writes, and the tool is declared read-only (readOnly: true refuses $out and $merge, at any depth)", what, pl.field, k.Name)
			}
		}
	}
	for _, prm := range t.Parameters {
		if !used[prm.Name] {
			p.problems = append(p.problems, Problem{File: p.file, Line: prm.Line, Message: fmt.Sprintf("%s: parameter %s is used by no payload (write {{json .%s}} where its value goes)", what, p.show(prm.Name), prm.Name)})
		}
	}
	switch {
	case MongoWriteKind(t.Kind):
		if t.declaredReadOnly != nil && *t.declaredReadOnly {
			p.toolProblem(t, "readOnly", "%s: a %s tool writes, and readOnly: true refuses it", what, t.Kind)
		}
		t.ReadOnly = false
	case t.declaredReadOnly != nil:
		t.ReadOnly = *t.declaredReadOnly
	default:
		t.ReadOnly = !writes
	}
}

// payloadProblem reports a problem of a payload at byte offset off of its
// text (-1: the payload as a whole), at the line and column the file
// writes that byte when that can be told: in a literal block (|), and in
// a one-line plain or quoted scalar; elsewhere at the payload.
func (p *parser) payloadProblem(pl *Payload, off int, format string, args ...any) {
	if pl.label != "" {
		off = -1 // Text is not the statement's text
	}
	line, col := p.scalarPosition(pl.node, pl.Text, off)
	p.problems = append(p.problems, Problem{File: p.file, Line: line, Column: col, Message: fmt.Sprintf(format, args...)})
}

// scalarPosition is where byte off of value, the value of the scalar n,
// is written in the file.
func (p *parser) scalarPosition(n *yaml.Node, value string, off int) (int, int) {
	if n == nil {
		return 0, 0
	}
	if _, fromEnv := p.envTexts[value]; off < 0 || off > len(value) || fromEnv {
		return n.Line, n.Column
	}
	switch {
	case n.Style == yaml.LiteralStyle:
		lineIdx := strings.Count(value[:off], "\n")
		start := strings.LastIndexByte(value[:off], '\n') + 1
		lines := strings.Split(string(p.data), "\n")
		rawLine := n.Line + 1 + lineIdx // the block's content starts below its |
		if rawLine-1 >= len(lines) {
			return n.Line, n.Column
		}
		raw := lines[rawLine-1]
		valueLine := value[start:]
		if i := strings.IndexByte(valueLine, '\n'); i >= 0 {
			valueLine = valueLine[:i]
		}
		indent := len(raw) - len(valueLine)
		if indent < 0 || !strings.HasSuffix(raw, valueLine) {
			return n.Line, n.Column
		}
		return rawLine, indent + (off - start) + 1
	case !strings.Contains(value, "\n") && n.Style == 0:
		return n.Line, n.Column + off
	case !strings.Contains(value, "\n") && (n.Style == yaml.SingleQuotedStyle || n.Style == yaml.DoubleQuotedStyle):
		return n.Line, n.Column + 1 + off
	}
	return n.Line, n.Column
}

// checkStore checks a redis or mongodb tool against its source: a
// mongodb tool's collection against the source's allowedCollections.
func (p *parser) checkStore(t *Tool, src *Source) {
	if !mongoToolKinds[t.Kind] || len(src.AllowedCollections) == 0 {
		return
	}
	what := "tool " + strconv.Quote(t.Name)
	allowed := func(db, coll string) bool { return slices.Contains(src.AllowedCollections, db+"."+coll) }
	if t.Pipeline != nil && t.Pipeline.Template != nil {
		for _, ref := range t.Pipeline.Template.Collections(t.Database) {
			if !allowed(ref.Database, ref.Collection) {
				p.payloadProblem(t.Pipeline, -1, "%s pipelinePayload: the pipeline names collection %s of database %s, which is not in the allowedCollections of source %s", what, p.show(ref.Collection), p.show(ref.Database), p.show(src.Name))
			}
		}
	}
	var inDB []string
	for _, c := range src.AllowedCollections {
		if db, coll, _ := strings.Cut(c, "."); db == t.Database {
			inDB = append(inDB, coll)
		}
	}
	switch {
	case t.Collection != "":
		if !slices.Contains(inDB, t.Collection) {
			p.toolProblem(t, "collection", "%s: collection %s of database %s is not in the allowedCollections of source %s", what, p.show(t.Collection), p.show(t.Database), p.show(src.Name))
		}
	case len(t.CollectionAllowedValues) > 0:
		for _, c := range t.CollectionAllowedValues {
			if !slices.Contains(inDB, c) {
				p.toolProblem(t, "collectionAllowedValues", "%s: collectionAllowedValues names %s, which is not in the allowedCollections of source %s for database %s", what, p.show(c), p.show(src.Name), p.show(t.Database))
			}
		}
	default:
		if len(inDB) == 0 {
			p.toolProblem(t, "database", "%s: the allowedCollections of source %s name no collection of database %s", what, p.show(src.Name), p.show(t.Database))
			return
		}
		// The collection parameter may name only what the source allows.
		for _, prm := range t.Parameters {
			if prm.Name == MongoCollectionParam {
				for _, c := range inDB {
					prm.AllowedValues = append(prm.AllowedValues, c)
				}
			}
		}
	}
}
