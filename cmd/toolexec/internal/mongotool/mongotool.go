// Package mongotool runs the mongodb tools of the toolexec command with
// the official Go driver: mongodb-find, mongodb-find-one and
// mongodb-aggregate, which read, and mongodb-insert-one,
// mongodb-insert-many, mongodb-update-one, mongodb-update-many,
// mongodb-delete-one and mongodb-delete-many, which write. A call fills
// the tool's payloads (parsed once, see bsontmpl) with its arguments as
// BSON values, so a filter is built from the arguments as a document,
// never by string concatenation: a string argument stays one string
// value, whatever it holds.
package mongotool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/bsontmpl"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/config"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/params"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/tooldef"
)

// Connection settings.
const (
	// DefaultPoolSize is a source's pool size when it sets no
	// maxOpenConns.
	DefaultPoolSize = 10
	// openTimeout bounds connecting and the first ping.
	openTimeout = 10 * time.Second
	// batchSize is the most documents a reply of the server holds: with
	// the server's own cap of 16 MiB a reply, what a call holds at once.
	batchSize = 100
)

// Source is an open mongodb source: a client with its connection pool.
type Source struct {
	client  *mongo.Client
	allowed map[string]bool // database.collection; empty: any
}

// Open connects to src and checks the connection with a ping. Its error
// never shows the URI, which usually holds a password.
func Open(ctx context.Context, src *config.Source) (*Source, error) {
	pool := src.MaxOpenConns
	if pool == 0 {
		pool = DefaultPoolSize
	}
	opts := options.Client().ApplyURI(src.URI).SetAppName("toolexec").
		SetMaxPoolSize(uint64(pool)).SetConnectTimeout(openTimeout).
		// A write is never sent twice: retryable writes would resend one
		// that may have been applied.
		SetRetryWrites(false)
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("source %q: the uri is not a MongoDB connection string the driver accepts", src.Name)
	}
	pctx, cancel := context.WithTimeout(ctx, openTimeout)
	defer cancel()
	if err := client.Ping(pctx, nil); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("source %q: cannot reach MongoDB at %s: %s", src.Name, hosts(src.URI), withoutURI(err, src.URI))
	}
	s := &Source{client: client, allowed: map[string]bool{}}
	for _, c := range src.AllowedCollections {
		s.allowed[c] = true
	}
	return s, nil
}

// hosts is the host list of a connection string, without its user and
// password.
func hosts(uri string) string {
	rest := uri[strings.Index(uri, "://")+3:]
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		rest = rest[i+1:]
	}
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// withoutURI is err's message with the connection string taken out.
func withoutURI(err error, uri string) string {
	return strings.ReplaceAll(err.Error(), uri, hosts(uri))
}

// Close disconnects the source's connections (waiting 10 s at most).
func (s *Source) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return s.client.Disconnect(ctx)
}

// Tool is one mongodb tool bound to its source; Handle is its handler,
// safe for concurrent use.
type Tool struct {
	tooldef.Base
	src *Source
}

// New binds t to src. logger receives what callers are not shown
// (connection errors).
func New(t *config.Tool, src *Source, logger *slog.Logger) *Tool {
	return &Tool{Base: tooldef.NewBase(t, logger), src: src}
}

// Definition returns the toolexec.Tool clients see (tooldef.Definition):
// openWorldHint false and a tool that writes destructive unless the file
// says otherwise.
func (t *Tool) Definition() toolexec.Tool {
	return tooldef.Definition(t.Cfg, tooldef.Kind{Destructive: true})
}

// callError is a problem with a call's arguments or payloads, answered
// as an isError result.
type callError struct{ msg string }

func (e *callError) Error() string { return e.msg }

func callErrorf(format string, args ...any) error {
	return &callError{msg: fmt.Sprintf(format, args...)}
}

// Handle runs the tool with args. The documents found (find, find-one,
// aggregate) are answered as SQL tools answer rows: one text block per
// document, the document as relaxed Extended JSON, and structuredContent
// {rows, rowCount, truncated, message?}, cut at maxRows documents and
// maxBytes of text. A write answers what toolbox answers as text (the
// inserted id or ids, the counts), and the same with names in
// structuredContent.
func (t *Tool) Handle(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
	res, err := t.handle(ctx, args)
	if err == nil {
		return res, nil
	}
	var ce *callError
	if errors.As(err, &ce) {
		return toolexec.ErrorResult(ce.msg), nil
	}
	return nil, t.fail(ctx, err)
}

func (t *Tool) handle(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
	coll, err := t.collection(args)
	if err != nil {
		return nil, err
	}
	fill := func(pl *config.Payload) (any, error) {
		if pl == nil || pl.Template == nil {
			return nil, nil
		}
		return pl.Template.Fill(func(name string) (any, error) { return t.value(name, args) })
	}
	filter, err := fill(t.Cfg.Filter)
	if err != nil {
		return nil, err
	}
	if filter == nil {
		filter = bson.D{}
	}
	switch t.Cfg.Kind {
	case config.KindMongoFind, config.KindMongoFindOne:
		return t.find(ctx, coll, filter, fill)
	case config.KindMongoAggregate:
		return t.aggregate(ctx, coll, fill)
	case config.KindMongoInsertOne, config.KindMongoInsertMany:
		if t.Cfg.Documents != nil {
			docs, err := fill(t.Cfg.Documents)
			if err != nil {
				return nil, err
			}
			return t.insert(ctx, coll, docs, "the documents")
		}
		docs, err := t.data(args)
		if err != nil {
			return nil, err
		}
		return t.insert(ctx, coll, docs, fmt.Sprintf("argument %q", config.MongoDataParam))
	case config.KindMongoUpdateOne, config.KindMongoUpdateMany:
		update, err := fill(t.Cfg.Update)
		if err != nil {
			return nil, err
		}
		return t.update(ctx, coll, filter, update)
	case config.KindMongoDeleteOne, config.KindMongoDeleteMany:
		return t.delete(ctx, coll, filter)
	}
	return nil, fmt.Errorf("mongotool: kind %q", t.Cfg.Kind)
}

// collection is the call's collection: the file's, or the collection
// argument, which must be one the tool and its source allow.
func (t *Tool) collection(args map[string]any) (*mongo.Collection, error) {
	name := t.Cfg.Collection
	if name == "" {
		name, _ = args[config.MongoCollectionParam].(string)
		if name == "" {
			return nil, callErrorf("argument %q is required: the collection to operate on", config.MongoCollectionParam)
		}
		if l := t.Cfg.CollectionAllowedValues; len(l) > 0 && !slices.Contains(l, name) {
			return nil, callErrorf("collection %q is not one this tool may use (%s)", name, strings.Join(l, ", "))
		}
	}
	if err := t.allowed(t.Cfg.Database, name); err != nil {
		return nil, err
	}
	return t.src.client.Database(t.Cfg.Database).Collection(name), nil
}

// allowed checks a collection against the source's allowedCollections.
func (t *Tool) allowed(db, coll string) error {
	if len(t.src.allowed) > 0 && !t.src.allowed[db+"."+coll] {
		return callErrorf("collection %q of database %q is not one the source allows", coll, db)
	}
	return nil
}

// value is parameter name's argument as a BSON value.
func (t *Tool) value(name string, args map[string]any) (any, error) {
	for _, p := range t.Cfg.Parameters {
		if p.Name != name {
			continue
		}
		v, err := params.Value(p, args)
		if err != nil {
			return nil, callErrorf("%v", err)
		}
		return toBSON(name, v)
	}
	return nil, callErrorf("parameter %q is not declared", name)
}

// toBSON converts an argument (params.Value's model) to a BSON value: a
// string stays a string, an integer is an int64, an array a BSON array, a
// map a document with its keys sorted. A map key that starts with $ (an
// operator: $where, $gt, $expr) or holds a NUL byte is refused: a
// caller's map is data, never a query.
func toBSON(name string, v any) (any, error) {
	switch v := v.(type) {
	case []any:
		out := make(bson.A, len(v))
		for i, e := range v {
			c, err := toBSON(name, e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			if strings.HasPrefix(k, "$") || strings.ContainsRune(k, 0) {
				return nil, callErrorf("argument %q: key %q is refused: a key may not start with $ (an operator) or hold a NUL byte", name, k)
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make(bson.D, len(keys))
		for i, k := range keys {
			c, err := toBSON(name, v[k])
			if err != nil {
				return nil, err
			}
			out[i] = bson.E{Key: k, Value: c}
		}
		return out, nil
	}
	return v, nil // nil, string, int64, float64, bool
}

// find runs a mongodb-find or mongodb-find-one.
func (t *Tool) find(ctx context.Context, coll *mongo.Collection, filter any, fill func(*config.Payload) (any, error)) (*toolexec.CallToolResult, error) {
	projection, err := fill(t.Cfg.Project)
	if err != nil {
		return nil, err
	}
	sort, err := fill(t.Cfg.Sort)
	if err != nil {
		return nil, err
	}
	limit := int64(t.MaxRows) + 1 // one more tells a cut result
	if t.Cfg.Limit > 0 && t.Cfg.Limit < limit {
		limit = t.Cfg.Limit
	}
	if t.Cfg.Kind == config.KindMongoFindOne {
		limit = 1
	}
	opts := options.Find().SetLimit(limit).SetBatchSize(int32(min(limit, batchSize)))
	if projection != nil {
		opts.SetProjection(projection)
	}
	if sort != nil {
		opts.SetSort(sort)
	}
	cur, err := coll.Find(ctx, filter, opts)
	if err != nil {
		return nil, err
	}
	return t.rows(ctx, cur)
}

// aggregate runs a mongodb-aggregate. A read-only tool's pipeline, once
// filled, may not hold $out or $merge at any depth (a map argument could
// not bring one: its keys may not start with $); a read-only pipeline
// gets a last $limit one past maxRows, which stops the server there.
func (t *Tool) aggregate(ctx context.Context, coll *mongo.Collection, fill func(*config.Payload) (any, error)) (*toolexec.CallToolResult, error) {
	v, err := fill(t.Cfg.Pipeline)
	if err != nil {
		return nil, err
	}
	pipeline, ok := v.(bson.A)
	if !ok {
		return nil, callErrorf("the pipeline is not an array of stages")
	}
	writes := bsontmpl.HasKey(pipeline, "$out", "$merge")
	if writes && t.Cfg.ReadOnly {
		return nil, callErrorf("the pipeline writes ($out or $merge), and the tool is read-only")
	}
	for _, ref := range bsontmpl.Collections(pipeline, t.Cfg.Database) {
		if err := t.allowed(ref.Database, ref.Collection); err != nil {
			return nil, err
		}
	}
	if !writes {
		pipeline = append(slices.Clone(pipeline), bson.D{{Key: "$limit", Value: int64(t.MaxRows) + 1}})
	}
	cur, err := coll.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(batchSize))
	if err != nil {
		return nil, err
	}
	return t.rows(ctx, cur)
}

// rows reads a cursor's documents within the caps; a cut cursor is
// closed, which ends it on the server.
func (t *Tool) rows(ctx context.Context, cur *mongo.Cursor) (*toolexec.CallToolResult, error) {
	defer func() { _ = cur.Close(context.WithoutCancel(ctx)) }() // ends the server's cursor; a failure leaves it to time out there
	rows := tooldef.NewRows(t.MaxRows, t.MaxBytes)
	for cur.Next(ctx) {
		text, err := docJSON(cur.Current)
		if err != nil {
			return nil, err
		}
		if !rows.Add(text) {
			break
		}
	}
	if err := cur.Err(); err != nil && !rows.Truncated() {
		return nil, err
	}
	return rows.Result(), nil
}

// docJSON is a document as toolbox answers it: relaxed Extended JSON
// ({"$oid": ...}, {"$date": ...}), members sorted by name. Integers stay
// exact.
func docJSON(doc bson.Raw) ([]byte, error) {
	ext, err := bson.MarshalExtJSON(doc, false, false)
	if err != nil {
		return nil, err
	}
	v, err := decodeJSON(ext)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// valueJSON is a BSON value (an inserted id) as relaxed Extended JSON, in
// encoding/json's model.
func valueJSON(v any) (any, error) {
	ext, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false, false)
	if err != nil {
		return nil, err
	}
	d, err := decodeJSON(ext)
	if err != nil {
		return nil, err
	}
	return d.(map[string]any)["v"], nil
}

func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// data is the data argument of an insert tool: the document (or the
// array of documents), as Extended JSON.
func (t *Tool) data(args map[string]any) (any, error) {
	data, _ := args[config.MongoDataParam].(string)
	if bsontmpl.Depth(data) > bsontmpl.MaxDepth {
		// The driver's parser would recurse once per level: refused
		// before it runs.
		return nil, callErrorf("argument %q is nested deeper than %d levels, MongoDB's limit", config.MongoDataParam, bsontmpl.MaxDepth)
	}
	var wrapped bson.D
	if err := bson.UnmarshalExtJSON([]byte(`{"v":`+data+`}`), t.Cfg.Canonical, &wrapped); err != nil || len(wrapped) != 1 {
		what := "a JSON object"
		if t.Cfg.Kind == config.KindMongoInsertMany {
			what = "a JSON array of objects"
		}
		msg := fmt.Sprintf("argument %q must be %s (MongoDB Extended JSON)", config.MongoDataParam, what)
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &callError{msg: msg}
	}
	return wrapped[0].Value, nil
}

// insert runs a mongodb-insert-one or mongodb-insert-many: v is the
// document (or the array of documents, at most maxRows), from the data
// argument or the tool's own documents, as what names it.
func (t *Tool) insert(ctx context.Context, coll *mongo.Collection, v any, what string) (*toolexec.CallToolResult, error) {
	if t.Cfg.Kind == config.KindMongoInsertOne {
		doc, ok := v.(bson.D)
		if !ok {
			return nil, callErrorf("%s must be a JSON object (MongoDB Extended JSON)", what)
		}
		res, err := coll.InsertOne(ctx, doc)
		if err != nil {
			return nil, err
		}
		id, err := valueJSON(res.InsertedID)
		if err != nil {
			return nil, err
		}
		return written(id, map[string]any{"insertedId": id}), nil
	}
	docs, ok := v.(bson.A)
	if !ok || len(docs) == 0 {
		return nil, callErrorf("%s must be a non-empty JSON array of objects (MongoDB Extended JSON)", what)
	}
	if len(docs) > t.MaxRows {
		return nil, callErrorf("%s holds %d documents; a call inserts at most %d", what, len(docs), t.MaxRows)
	}
	for i, d := range docs {
		if _, ok := d.(bson.D); !ok {
			return nil, callErrorf("%s: element %d is not a JSON object", what, i)
		}
	}
	res, err := coll.InsertMany(ctx, docs)
	if err != nil {
		return nil, err
	}
	ids := make([]any, len(res.InsertedIDs))
	for i, id := range res.InsertedIDs {
		if ids[i], err = valueJSON(id); err != nil {
			return nil, err
		}
	}
	return written(ids, map[string]any{"insertedIds": ids, "insertedCount": float64(len(ids))}), nil
}

// update runs a mongodb-update-one or mongodb-update-many.
func (t *Tool) update(ctx context.Context, coll *mongo.Collection, filter, update any) (*toolexec.CallToolResult, error) {
	var (
		res *mongo.UpdateResult
		err error
	)
	if t.Cfg.Kind == config.KindMongoUpdateOne {
		res, err = coll.UpdateOne(ctx, filter, update, options.UpdateOne().SetUpsert(t.Cfg.Upsert))
	} else {
		res, err = coll.UpdateMany(ctx, filter, update, options.UpdateMany().SetUpsert(t.Cfg.Upsert))
	}
	if err != nil {
		return nil, err
	}
	sc := map[string]any{
		"matchedCount":  tooldef.Number(res.MatchedCount),
		"modifiedCount": tooldef.Number(res.ModifiedCount),
		"upsertedCount": tooldef.Number(res.UpsertedCount),
	}
	if res.UpsertedID != nil {
		id, err := valueJSON(res.UpsertedID)
		if err != nil {
			return nil, err
		}
		sc["upsertedId"] = id
	}
	// toolbox's answers: update-one the modified count, update-many the
	// modified, upserted and matched counts.
	var text any = sc["modifiedCount"]
	if t.Cfg.Kind == config.KindMongoUpdateMany {
		text = []any{sc["modifiedCount"], sc["upsertedCount"], sc["matchedCount"]}
	}
	return written(text, sc), nil
}

// delete runs a mongodb-delete-one or mongodb-delete-many.
func (t *Tool) delete(ctx context.Context, coll *mongo.Collection, filter any) (*toolexec.CallToolResult, error) {
	var (
		res *mongo.DeleteResult
		err error
	)
	if t.Cfg.Kind == config.KindMongoDeleteOne {
		res, err = coll.DeleteOne(ctx, filter)
	} else {
		res, err = coll.DeleteMany(ctx, filter)
	}
	if err != nil {
		return nil, err
	}
	n := tooldef.Number(res.DeletedCount)
	return written(n, map[string]any{"deletedCount": n}), nil
}

// written is a write's result: text as one JSON text block, and sc as
// structuredContent.
func written(text any, sc map[string]any) *toolexec.CallToolResult {
	b, _ := json.Marshal(text) // encoding/json's model always marshals
	return &toolexec.CallToolResult{Content: []toolexec.Content{toolexec.Text(string(b))}, StructuredContent: sc}
}

// fail maps an error of the driver to what the caller sees: the server's
// own error about the operation (a duplicate key, a bad operator, a
// document that fails validation) as a tool error; the call's deadline or
// cancellation as the context's error (the pipeline reports its timeout);
// anything else (the connection, server selection) logged and answered
// with a generic message.
func (t *Tool) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < time.Second && (!time.Now().Before(dl) || mongo.IsTimeout(err)) {
		// The driver gives up at the call's deadline (and the server at
		// the maxTimeMS the driver sends), a moment before the context's
		// timer: wait for it, so that the pipeline sees the deadline and
		// reports the timeout.
		<-ctx.Done()
		return ctx.Err()
	}
	var (
		ce mongo.CommandError
		we mongo.WriteException
		be mongo.BulkWriteException
	)
	switch {
	case errors.As(err, &we) && len(we.WriteErrors) > 0:
		return &toolexec.ToolError{Message: "query failed: " + we.WriteErrors[0].Message, Err: err}
	case errors.As(err, &be) && len(be.WriteErrors) > 0:
		return &toolexec.ToolError{Message: fmt.Sprintf("query failed: document %d: %s", be.WriteErrors[0].Index, be.WriteErrors[0].Message), Err: err}
	case errors.As(err, &ce) && !ce.HasErrorLabel("NetworkError"):
		msg := "query failed: " + ce.Message
		if ce.Name != "" {
			msg += " (" + ce.Name + ")"
		}
		return &toolexec.ToolError{Message: msg, Err: err}
	}
	t.Logger.Warn("mongodb tool failed", "tool", t.Cfg.Name, "error", err.Error())
	return &toolexec.ToolError{Message: "query failed: the database is unavailable or returned an error", CanRetry: true, Err: err}
}
