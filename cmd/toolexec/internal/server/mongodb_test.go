package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/cmd/toolexec/internal/mongotest"
)

// mongoTools is a tools file of mongodb tools on the server at uri.
func mongoTools(uri string) string {
	return fmt.Sprintf(`
sources:
  m:
    kind: mongodb
    uri: %q
tools:
  by-city:
    kind: mongodb-find
    source: m
    description: Customers of a city, by name.
    database: crm
    collection: customers
    filterPayload: '{"city": {{json .city}}}'
    filterParams: [{name: city, type: string, description: the city}]
    projectPayload: '{"_id": 0, "name": 1, "city": 1, "age": 1}'
    sortPayload: '{"name": {{json .order}}}'
    sortParams: [{name: order, type: integer, description: 1 or -1, default: 1}]
  by-tags:
    kind: mongodb-find
    source: m
    description: Customers with any of the tags.
    database: crm
    collection: customers
    filterPayload: '{"tags": {"$in": {{json .tags}}}}'
    filterParams: [{name: tags, type: array, description: tags, items: {name: t, type: string, description: a tag}}]
    projectPayload: '{"_id": 0, "name": 1}'
    sortPayload: '{"name": 1}'
  by-attrs:
    kind: mongodb-find
    source: m
    description: Customers whose attrs are exactly these.
    database: crm
    collection: customers
    filterPayload: '{"attrs": {{json .attrs}}}'
    filterParams: [{name: attrs, type: map, description: attributes}]
    projectPayload: '{"_id": 0, "name": 1}'
  one:
    kind: mongodb-find-one
    source: m
    description: One customer by name.
    database: crm
    collection: customers
    filterPayload: '{"name": {{json .name}}}'
    filterParams: [{name: name, type: string, description: the name}]
    projectPayload: '{"_id": 0}'
  all:
    kind: mongodb-find
    source: m
    description: Everyone, three at most.
    database: crm
    collection: customers
    filterPayload: '{}'
    sortPayload: '{"name": 1}'
    projectPayload: '{"_id": 0, "name": 1}'
    maxRows: 3
  wide:
    kind: mongodb-find
    source: m
    description: Everyone, 80 bytes at most.
    database: crm
    collection: customers
    filterPayload: '{}'
    sortPayload: '{"name": 1}'
    projectPayload: '{"_id": 0, "name": 1, "city": 1}'
    maxBytes: 80
  per-city:
    kind: mongodb-aggregate
    source: m
    description: How many customers per city, with at least a minimum age.
    database: crm
    collection: customers
    readOnly: true
    pipelinePayload: |
      [
        {"$match": {"age": {"$gte": {{json .min_age}}}}},
        {"$group": {"_id": "$city", "n": {"$sum": 1}}},
        {"$sort": {"_id": 1}}
      ]
    pipelineParams: [{name: min_age, type: integer, description: the minimum age}]
  staged:
    kind: mongodb-aggregate
    source: m
    description: Runs a stage the caller gives.
    database: crm
    collection: customers
    readOnly: true
    pipelinePayload: '[{"$match": {}}, {{json .stage}}]'
    pipelineParams: [{name: stage, type: map, description: a stage}]
  anywhere:
    kind: mongodb-find
    source: m
    description: Counts documents of a collection the caller names.
    database: crm
    collectionAllowedValues: [customers, orders]
    filterPayload: '{}'
    projectPayload: '{"_id": 0}'
  add:
    kind: mongodb-insert-one
    source: m
    description: Adds a customer.
    database: crm
    collection: customers
  add-many:
    kind: mongodb-insert-many
    source: m
    description: Adds customers.
    database: crm
    collection: customers
  move:
    kind: mongodb-update-many
    source: m
    description: Moves every customer of a city to another.
    database: crm
    collection: customers
    filterPayload: '{"city": {{json .from}}}'
    filterParams: [{name: from, type: string, description: from}]
    updatePayload: '{"$set": {"city": {{json .to}}}}'
    updateParams: [{name: to, type: string, description: to}]
  birthday:
    kind: mongodb-update-one
    source: m
    description: One year older.
    database: crm
    collection: customers
    filterPayload: '{"name": {{json .name}}}'
    filterParams: [{name: name, type: string, description: the name}]
    updatePayload: '{"$inc": {"age": 1}}'
  forget:
    kind: mongodb-delete-many
    source: m
    description: Forgets a city's customers.
    database: crm
    collection: customers
    filterPayload: '{"city": {{json .city}}}'
    filterParams: [{name: city, type: string, description: the city}]
  forget-one:
    kind: mongodb-delete-one
    source: m
    description: Forgets a customer.
    database: crm
    collection: customers
    filterPayload: '{"name": {{json .name}}}'
    filterParams: [{name: name, type: string, description: the name}]
toolsets:
  reads: [by-city, one]
`, uri)
}

// mongoClient is a client of the server at uri, disconnected when the
// test ends.
func mongoClient(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.Disconnect(context.Background()) })
	return client
}

// mongoServer starts a FerretDB with customers in crm.customers and
// builds the mongodb tools on it.
func mongoServer(t *testing.T) (*Set, *mongo.Collection) {
	t.Helper()
	srv := mongotest.New(t)
	client := mongoClient(t, srv.URI)
	coll := client.Database("crm").Collection("customers")
	_, err := coll.InsertMany(context.Background(), []any{
		bson.D{{Key: "name", Value: "Ada"}, {Key: "city", Value: "Oslo"}, {Key: "age", Value: 36}, {Key: "tags", Value: bson.A{"vip"}}, {Key: "attrs", Value: bson.D{{Key: "tier", Value: "gold"}}}},
		bson.D{{Key: "name", Value: "Bo"}, {Key: "city", Value: "Oslo"}, {Key: "age", Value: 19}, {Key: "tags", Value: bson.A{"new"}}},
		bson.D{{Key: "name", Value: "Cy"}, {Key: "city", Value: "Rome"}, {Key: "age", Value: 52}, {Key: "tags", Value: bson.A{"vip", "old"}}},
		bson.D{{Key: "name", Value: "Di"}, {Key: "city", Value: "Lima"}, {Key: "age", Value: 41}},
	})
	require.NoError(t, err)
	return build(t, mongoTools(srv.URI), nil, nil), coll
}

func TestMongo_FindAnswersAsToolbox(t *testing.T) {
	set, _ := mongoServer(t)
	x := executor(set, Options{})
	res, err := call(t, x, "by-city", map[string]any{"city": "Oslo"})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{
		{"age": float64(36), "city": "Oslo", "name": "Ada"},
		{"age": float64(19), "city": "Oslo", "name": "Bo"},
	}, rows(t, res))
	assert.Equal(t, []string{`{"age":36,"city":"Oslo","name":"Ada"}`, `{"age":19,"city":"Oslo","name":"Bo"}`}, texts(t, res),
		"one text block per document, members by name, as toolbox answers")
	res, err = call(t, x, "by-city", map[string]any{"city": "Oslo", "order": -1})
	require.NoError(t, err)
	assert.Equal(t, "Bo", rows(t, res)[0]["name"], "the sort from its parameter")

	res, err = call(t, x, "by-tags", map[string]any{"tags": []any{"vip"}})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"name": "Ada"}, {"name": "Cy"}}, rows(t, res))

	res, err = call(t, x, "one", map[string]any{"name": "Cy"})
	require.NoError(t, err)
	r := rows(t, res)
	require.Len(t, r, 1)
	assert.Equal(t, "Rome", r[0]["city"])
	res, err = call(t, x, "one", map[string]any{"name": "Nobody"})
	require.NoError(t, err)
	assert.Empty(t, rows(t, res), "no document is no row, not an error")
	assert.Empty(t, res.Content)

	res, err = call(t, x, "per-city", map[string]any{"min_age": 30})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"_id": "Lima", "n": float64(1)}, {"_id": "Oslo", "n": float64(1)}, {"_id": "Rome", "n": float64(1)}}, rows(t, res))
}

// Arguments are values in the filter, never text in it: a string that
// holds an operator, quotes or JavaScript matches only itself, and a
// map's keys may not be operators.
func TestMongo_ArgumentsAreValuesNeverQueryText(t *testing.T) {
	set, coll := mongoServer(t)
	x := executor(set, Options{})
	for _, city := range []string{
		`{"$gt": ""}`,
		`{"$ne": null}`,
		`Oslo"}, "$where": "true`,
		`this.city == 'Oslo' || true`,
		`$where`,
	} {
		res, err := call(t, x, "by-city", map[string]any{"city": city})
		require.NoError(t, err)
		assert.Empty(t, rows(t, res), "%q matches nothing: it is one string value", city)
	}
	// Stored as a plain string, the same text matches itself.
	_, err := coll.InsertOne(context.Background(), bson.D{{Key: "name", Value: "Eve"}, {Key: "city", Value: `{"$gt": ""}`}})
	require.NoError(t, err)
	res, err := call(t, x, "by-city", map[string]any{"city": `{"$gt": ""}`})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"city": `{"$gt": ""}`, "name": "Eve"}}, rows(t, res))

	res, err = call(t, x, "by-tags", map[string]any{"tags": []any{`{"$exists": true}`, "$where"}})
	require.NoError(t, err)
	assert.Empty(t, rows(t, res), "array items are values too")

	res, err = call(t, x, "by-attrs", map[string]any{"attrs": map[string]any{"tier": "gold"}})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"name": "Ada"}}, rows(t, res), "a map is a document value")
	for _, key := range []string{"$where", "$gt", "$ne"} {
		res, err = call(t, x, "by-attrs", map[string]any{"attrs": map[string]any{key: ""}})
		assert.Contains(t, errorText(t, res, err), `argument "attrs": key "`+key+`" is refused: a key may not start with $`)
	}
	// A map cannot bring a writing stage into a read-only pipeline.
	res, err = call(t, x, "staged", map[string]any{"stage": map[string]any{"$out": "stolen"}})
	assert.Contains(t, errorText(t, res, err), `key "$out" is refused`)
	n, err := coll.Database().Collection("stolen").CountDocuments(context.Background(), bson.D{})
	require.NoError(t, err)
	assert.Zero(t, n)
}

func TestMongo_CapsCutTheResult(t *testing.T) {
	set, _ := mongoServer(t)
	x := executor(set, Options{})
	res, err := call(t, x, "all", nil)
	require.NoError(t, err)
	sc := structured(t, res)
	assert.Equal(t, float64(3), sc["rowCount"])
	assert.Equal(t, true, sc["truncated"])
	assert.Equal(t, "more than 3 rows; only the first 3 are returned", sc["message"])
	assert.Equal(t, "[truncated: more than 3 rows; only the first 3 are returned]", texts(t, res)[3])

	res, err = call(t, x, "wide", nil)
	require.NoError(t, err)
	sc = structured(t, res)
	assert.Equal(t, true, sc["truncated"])
	assert.Equal(t, "the rows exceed 80 bytes; only the first 2 rows are returned", sc["message"])
	assert.Equal(t, float64(2), sc["rowCount"])
}

func TestMongo_WritesAnswerAsToolbox(t *testing.T) {
	set, coll := mongoServer(t)
	x := executor(set, Options{})
	ctx := context.Background()

	res, err := call(t, x, "add", map[string]any{"data": `{"name": "Fay", "city": "Kyiv", "since": {"$date": "2020-01-02T00:00:00Z"}}`})
	require.NoError(t, err)
	id, ok := structured(t, res)["insertedId"].(map[string]any)
	require.True(t, ok, "an ObjectID, as relaxed Extended JSON: %v", res.StructuredContent)
	assert.Len(t, id["$oid"], 24)
	var fay bson.M
	require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "name", Value: "Fay"}}).Decode(&fay))
	assert.IsType(t, bson.DateTime(0), fay["since"], "Extended JSON in the data: a date")

	res, err = call(t, x, "add-many", map[string]any{"data": `[{"_id": 1, "name": "Gus"}, {"_id": 2, "name": "Hal"}]`})
	require.NoError(t, err)
	assert.Equal(t, []string{`[1,2]`}, texts(t, res))
	assert.Equal(t, float64(2), structured(t, res)["insertedCount"])

	res, err = call(t, x, "add", map[string]any{"data": `[1, 2]`})
	assert.Contains(t, errorText(t, res, err), `argument "data" must be a JSON object`)
	res, err = call(t, x, "add-many", map[string]any{"data": `{"a": 1`})
	assert.Contains(t, errorText(t, res, err), `argument "data" must be a JSON array of objects`)
	// The driver's parser recurses once per level: 400,000 levels would
	// overflow the stack and end the process.
	deep := `{"a": ` + strings.Repeat("[", 400000) + strings.Repeat("]", 400000) + `}`
	res, err = call(t, x, "add", map[string]any{"data": deep})
	assert.Contains(t, errorText(t, res, err), `argument "data" is nested deeper than 100 levels, MongoDB's limit`)
	res, err = call(t, x, "add-many", map[string]any{"data": `[{"_id": 1, "name": "again"}]`})
	assert.Contains(t, errorText(t, res, err), "query failed: document 0: ", "a duplicate key is the server's error")

	res, err = call(t, x, "move", map[string]any{"from": "Oslo", "to": "Bergen"})
	require.NoError(t, err)
	assert.Equal(t, []string{`[2,0,2]`}, texts(t, res), "modified, upserted, matched: toolbox's list")
	assert.Equal(t, map[string]any{"matchedCount": float64(2), "modifiedCount": float64(2), "upsertedCount": float64(0)}, structured(t, res))

	res, err = call(t, x, "birthday", map[string]any{"name": "Cy"})
	require.NoError(t, err)
	assert.Equal(t, []string{`1`}, texts(t, res))
	var cy bson.M
	require.NoError(t, coll.FindOne(ctx, bson.D{{Key: "name", Value: "Cy"}}).Decode(&cy))
	assert.EqualValues(t, 53, cy["age"])

	res, err = call(t, x, "forget", map[string]any{"city": "Bergen"})
	require.NoError(t, err)
	assert.Equal(t, []string{`2`}, texts(t, res))
	res, err = call(t, x, "forget", map[string]any{"city": `{"$ne": null}`})
	require.NoError(t, err)
	assert.Equal(t, []string{`0`}, texts(t, res), "an operator in a string deletes nothing")
	res, err = call(t, x, "forget-one", map[string]any{"name": "Di"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"deletedCount": float64(1)}, structured(t, res))
	n, err := coll.CountDocuments(ctx, bson.D{})
	require.NoError(t, err)
	assert.EqualValues(t, 4, n, "Cy, Fay, Gus and Hal are left")
}

func TestMongo_CollectionParameter(t *testing.T) {
	set, _ := mongoServer(t)
	x := executor(set, Options{})
	res, err := call(t, x, "anywhere", map[string]any{"collection": "customers"})
	require.NoError(t, err)
	assert.Len(t, rows(t, res), 4)
	res, err = call(t, x, "anywhere", map[string]any{"collection": "system.users"})
	e, ok := toolexec.AsError(err)
	require.True(t, ok, "refused by validation: %v %v", res, err)
	assert.Equal(t, toolexec.CodeInvalidArguments, e.Code)
}

// The tools over every HTTP surface: REST, MCP and its HandsAI route,
// OXP, mcp-toolbox's native API, a toolset's routes.
func TestMongo_EverySurface(t *testing.T) {
	set, _ := mongoServer(t)
	h, _ := Handler(NewProvider(set), Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	want := []any{map[string]any{"age": float64(52), "city": "Rome", "name": "Cy"}}

	code, body := restCall(t, srv, "by-city", map[string]any{"city": "Rome"})
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, want, body["structuredContent"].(map[string]any)["rows"])
	code, body = restCall(t, srv, "by-city", map[string]any{"city": 5})
	assert.Equal(t, http.StatusUnprocessableEntity, code, "a wrong type is refused before the database: %v", body)

	res := mcpCall(t, srv, "by-city", map[string]any{"city": "Rome"})
	assert.Equal(t, false, res["isError"])
	assert.Equal(t, `{"age":52,"city":"Rome","name":"Cy"}`, mcpText(res))

	_, body = postJSON(t, srv.URL+"/mcp/tools/call", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"by-city","arguments":{"city":"Rome"}}}`)
	assert.Contains(t, fmt.Sprint(body["result"]), "Cy")

	code, body = postJSON(t, srv.URL+"/oxp/tools/call", `{"tool_id":"Tools.by-city","input":{"city":"Rome"}}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, true, body["success"])
	assert.Equal(t, want, body["value"].(map[string]any)["rows"])

	code, body = postJSON(t, srv.URL+"/api/tool/by-city/invoke", `{"city": "Rome"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, `[{"age":52,"city":"Rome","name":"Cy"}]`, body["result"], "toolbox's native API answers the documents as a JSON array")
	code, body = postJSON(t, srv.URL+"/api/tool/forget-one/invoke", `{"name": "Cy"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Equal(t, `1`, body["result"], "a write answers toolbox's value")

	code, body = postJSON(t, srv.URL+"/toolsets/reads/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, code, body)
	assert.Len(t, body["result"].(map[string]any)["tools"], 2)

	_, body = postJSON(t, srv.URL+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	hints := map[string]map[string]any{}
	for _, tl := range body["result"].(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		hints[m["name"].(string)], _ = m["annotations"].(map[string]any)
	}
	assert.Equal(t, true, hints["by-city"]["readOnlyHint"])
	assert.Equal(t, true, hints["per-city"]["readOnlyHint"])
	assert.Equal(t, false, hints["add"]["readOnlyHint"])
	assert.Equal(t, true, hints["forget"]["destructiveHint"])
}

func TestMongo_UnreachableSourceNamesNoPassword(t *testing.T) {
	cfg := loadTools(t, mongoTools("mongodb://app:pw-SECRET-9999@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300"), nil)
	start := time.Now()
	_, err := Build(context.Background(), cfg, nil)
	require.Error(t, err)
	assert.Less(t, time.Since(start), 15*time.Second)
	assert.Contains(t, err.Error(), `source "m": cannot reach MongoDB at 127.0.0.1:1`)
	assert.NotContains(t, err.Error(), "pw-SECRET-9999")
}

// A call past its timeout ends then: the driver gives up at the call's
// deadline (and sends the time left as maxTimeMS), and the source serves
// the next call.
func TestMongo_TimeoutEndsTheCall(t *testing.T) {
	srv := mongotest.New(t)
	client := mongoClient(t, srv.URI)
	ctx := context.Background()
	coll := client.Database("crm").Collection("big")
	docs := make([]any, 0, 5000)
	for i := range 20000 {
		docs = append(docs, bson.D{{Key: "i", Value: i}, {Key: "s", Value: fmt.Sprintf("value-%d-abcdefghij", i)}})
		if len(docs) == cap(docs) {
			_, err := coll.InsertMany(ctx, docs)
			require.NoError(t, err)
			docs = docs[:0]
		}
	}
	set := build(t, fmt.Sprintf(`
sources:
  m: {kind: mongodb, uri: %q}
tools:
  scan:
    kind: mongodb-aggregate
    source: m
    description: A slow scan (FerretDB matches a regular expression on every document).
    database: crm
    collection: big
    pipelinePayload: '[{"$match": {"s": {"$regex": {{json .re}}}}}, {"$count": "n"}]'
    pipelineParams: [{name: re, type: string, description: a regular expression}]
    timeout: 200ms
  count:
    kind: mongodb-aggregate
    source: m
    description: Counts.
    database: crm
    collection: big
    pipelinePayload: '[{"$match": {"i": {"$lt": 3}}}, {"$count": "n"}]'
`, srv.URI), nil, nil)
	x := executor(set, Options{})
	start := time.Now()
	_, err := call(t, x, "scan", map[string]any{"re": "9.*j$"})
	took := time.Since(start)
	e, ok := toolexec.AsError(err)
	require.True(t, ok, "%v", err)
	assert.Equal(t, toolexec.CodeTimeout, e.Code, "%v", err)
	assert.Less(t, took, time.Second, "the call ended at its timeout")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		res, err := call(t, x, "count", nil)
		if assert.NoError(c, err) && assert.False(c, res.IsError, res.Text()) {
			assert.Equal(c, []string{`{"n":3}`}, texts(t, res))
		}
	}, 20*time.Second, 100*time.Millisecond, "the source serves the next call")
}
