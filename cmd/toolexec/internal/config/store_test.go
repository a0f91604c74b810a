package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/rediscmd"
)

// toolbox's documented redis source and tool, with the readOnly: false
// toolexec asks of a tool that writes.
const toolboxRedis = `
kind: sources
name: my-redis-instance
type: redis
address:
  - 127.0.0.1:6379
username: ${MY_USER_NAME}
password: ${MY_AUTH_STRING} # Omit this field if you don't have a password.
# database: 0
# clusterEnabled: false
---
kind: tools
name: user_data_tool
type: redis
source: my-redis-instance
readOnly: false
description: |
  Use this tool to interact with user data stored in Redis.
  It can set, retrieve, and delete user-specific information.
commands:
  - [SADD, userNames, $userNames] # Array will be flattened into multiple arguments.
  - [GET, $userId]
parameters:
  - name: userId
    type: string
    description: The unique identifier for the user.
  - name: userNames
    type: array
    description: The user names to be set.
    items: {name: n, type: string, description: a name}
`

func TestParse_ToolboxRedisExample(t *testing.T) {
	cfg, ps := parse(t, toolboxRedis, map[string]string{"MY_USER_NAME": "app", "MY_AUTH_STRING": "s3cret-pass"})
	require.Empty(t, ps, ps.Error())
	src := cfg.Sources["my-redis-instance"]
	assert.Equal(t, []string{"127.0.0.1:6379"}, src.Address)
	assert.Equal(t, "app", src.Username)
	assert.Equal(t, "s3cret-pass", src.Password)
	tl := cfg.Tools[0]
	assert.False(t, tl.ReadOnly)
	require.Len(t, tl.Commands, 2)
	sadd := tl.Commands[0]
	assert.Equal(t, rediscmd.Writes, sadd.Class.Effect)
	assert.Equal(t, "SADD", sadd.Args[0].Text)
	assert.Equal(t, "userNames", sadd.Args[1].Text)
	require.NotNil(t, sadd.Args[2].Param)
	assert.Equal(t, "userNames", sadd.Args[2].Param.Name)
	get := tl.Commands[1]
	assert.Equal(t, rediscmd.Reads, get.Class.Effect)
	assert.Equal(t, "userId", get.Args[1].Param.Name)
}

func TestParse_RedisProblemsAtTheirWords(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  r: {kind: redis, address: [127.0.0.1:6379]}",
		/* 3 */ "tools:",
		/* 4 */ "  reads:",
		/* 5 */ "    kind: redis",
		/* 6 */ "    source: r",
		/* 7 */ "    description: d",
		/* 8 */ "    commands:",
		/* 9 */ "      - [GET, $key]",
		/* 10 */ "      - [SET, $key, x]",
		/* 11 */ "      - [EVAL, 'return 1', 0]",
		/* 12 */ "      - [GET, 'user:$key']",
		/* 13 */ "      - [GET, $nope]",
		/* 14 */ "      - [$key]",
		/* 15 */ "      - [XREAD, BLOCK, 0, STREAMS, s, $key]",
		/* 16 */ "      - [OBJECT, $key, k]",
		/* 17 */ "    parameters:",
		/* 18 */ "      - {name: key, type: string, description: k}",
		/* 19 */ "      - {name: unused, type: string, description: u}",
		/* 20 */ "  writes:",
		/* 21 */ "    kind: redis",
		/* 22 */ "    source: r",
		/* 23 */ "    description: d",
		/* 24 */ "    readOnly: false",
		/* 25 */ "    commands: [[FLUSHALL], [SET, k, v], [COPY, a, b, DB, 1], [CONFIG, SET, x, y]]",
		/* 26 */ "  declared:",
		/* 27 */ "    kind: redis",
		/* 28 */ "    source: r",
		/* 29 */ "    description: d",
		/* 30 */ "    annotations: {readOnlyHint: true}",
		/* 31 */ "    commands: [[DEL, k]]",
	}, "\n")
	_, ps := parse(t, src, nil)
	assert.Empty(t, at(ps, 9, 10), ps.Error())
	assert.Contains(t, at(ps, 10, 10), `tool "reads" commands[1]: SET writes, and the tool is read-only (the default of a redis tool): declare readOnly: false`, ps.Error())
	assert.Contains(t, at(ps, 11, 10), `commands[2]: Redis command EVAL is refused: it runs a server-side script`, ps.Error())
	assert.Contains(t, at(ps, 12, 15), `"user:$key" would be sent as it is written: a parameter stands for a whole argument ($key)`, ps.Error())
	assert.Contains(t, at(ps, 13, 15), `"$nope" is not a declared parameter`, ps.Error())
	assert.Contains(t, at(ps, 14, 10), `the command's name must be written in the file, not taken from parameter "key"`, ps.Error())
	assert.Contains(t, at(ps, 15, 10), `XREAD BLOCK makes the command wait for data`, ps.Error())
	assert.Contains(t, at(ps, 16, 10), `Redis command OBJECT is refused: its subcommand must be written in the file`, ps.Error())
	assert.Contains(t, ps.Error(), `tools.yaml:19: tool "reads": parameter "unused" is used by no command`)
	assert.Contains(t, at(ps, 25, 17), `Redis command FLUSHALL is refused: it erases a whole database`, ps.Error())
	assert.Empty(t, at(ps, 25, 29), "SET in a tool that writes", ps.Error())
	assert.Contains(t, at(ps, 25, 42), `COPY DB makes COPY write into another database`, ps.Error())
	assert.Contains(t, at(ps, 25, 63), `Redis command CONFIG is refused: it administers the server`, ps.Error())
	assert.Contains(t, at(ps, 31, 17), `DEL writes, and the tool is declared read-only`, ps.Error())

	_, ps = parse(t, "sources:\n  r: {kind: redis, address: 'h:1'}\ntools:\n  t: {kind: redis, source: r, description: d, commands: [[XINFO]]}\n", nil)
	require.Len(t, ps, 1)
	assert.Contains(t, ps[0].Message, `commands[0]: Redis command XINFO needs its subcommand`)
}

func TestParse_RedisSourceProblems(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  none: {kind: redis}",
		/* 3 */ "  iam: {kind: redis, address: 'h:1', useGCPIAM: true}",
		/* 4 */ "  cluster: {kind: redis, address: ['a:1', 'b:2'], clusterEnabled: true, database: 3}",
		/* 5 */ "  many: {kind: redis, address: ['a:1', 'b:2']}",
		/* 6 */ "  host: {kind: redis, address: 'a:1', host: a}",
		/* 7 */ "  lite: {kind: sqlite, database: x.db, address: 'a:1', uri: 'mongodb://x'}",
		/* 8 */ "  port: {kind: redis, address: 'a'}",
	}, "\n")
	_, ps := parse(t, src, nil)
	assert.Contains(t, at(ps, 2, 3), `source "none": redis needs address`, ps.Error())
	assert.Contains(t, at(ps, 3, 49), `useGCPIAM is not supported by toolexec`, ps.Error())
	assert.Contains(t, at(ps, 4, 3), `a Redis Cluster has database 0 only`, ps.Error())
	assert.Contains(t, at(ps, 5, 3), `several addresses are for a Redis Cluster`, ps.Error())
	assert.Contains(t, at(ps, 6, 39), `host is not a field of a redis source`, ps.Error())
	assert.Contains(t, at(ps, 7, 40), `address is only for redis sources`, ps.Error())
	assert.Contains(t, at(ps, 7, 56), `uri is only for mongodb sources`, ps.Error())
	assert.Contains(t, at(ps, 8, 3), `address "a" is not host:port`, ps.Error())
}

// toolbox's documented mongodb source and tools.
const toolboxMongo = `
kind: source
name: my-mongo-source
type: mongodb
uri: "mongodb+srv://username:${MONGO_PW}@host.mongodb.net"
---
kind: tool
name: find_local_customers
type: mongodb-find
source: my-mongo-source
description: Finds customers by city, sorted by last name.
database: crm
collection: customers
limit: 10
filterPayload: |
    { "address.city": {{json .city}} }
filterParams:
  - name: city
    type: string
    description: The city to search for customers in.
projectPayload: |
    { 
      "first_name": 1,
      "last_name": 1,
      "email": 1,
      "_id": 0
    }
sortPayload: |
    { "last_name": {{json .sort_order}} }
sortParams:
  - name: sort_order
    type: integer
    description: The sort order (1 for ascending, -1 for descending).
---
kind: tool
name: get_category_stats
type: mongodb-aggregate
source: my-mongo-source
description: Calculates average price and count of products, grouped by category.
database: ecommerce
collection: products
readOnly: true
pipelinePayload: |
  [
    {
      "$match": {
        "status": {{json .status_filter}}
      }
    },
    {
      "$group": {
        "_id": "$category",
        "average_price": { "$avg": "$price" },
        "item_count": { "$sum": 1 }
      }
    },
    {
      "$sort": {
        "average_price": -1
      }
    }
  ]
pipelineParams:
  - name: status_filter
    type: string
    description: The product status to filter by (e.g., "active").
---
kind: tool
name: insert_customer
type: mongodb-insert-one
source: my-mongo-source
description: Inserts a customer.
database: crm
canonical: false
`

func TestParse_ToolboxMongoExamples(t *testing.T) {
	cfg, ps := parse(t, toolboxMongo, map[string]string{"MONGO_PW": "pw"})
	require.Empty(t, ps, ps.Error())
	find := cfg.Tools[0]
	assert.True(t, find.ReadOnly)
	assert.Equal(t, "crm", find.Database)
	assert.Equal(t, "customers", find.Collection)
	assert.Equal(t, int64(10), find.Limit)
	var names []string
	for _, p := range find.Parameters {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"city", "sort_order"}, names)
	require.NotNil(t, find.Filter.Template)
	require.NotNil(t, find.Project.Template)
	require.NotNil(t, find.Sort.Template)
	agg := cfg.Tools[1]
	assert.True(t, agg.ReadOnly)
	assert.True(t, agg.Pipeline.Template.IsArray())
	insert := cfg.Tools[2]
	assert.False(t, insert.ReadOnly)
	names = nil
	for _, p := range insert.Parameters {
		names = append(names, p.Name)
		assert.True(t, p.Required)
	}
	assert.Equal(t, []string{"data", "collection"}, names, "toolbox's data, then the collection the file does not name")
}

func TestParse_MongoProblemsAtTheirPlaceInThePayload(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  m: {kind: mongodb, uri: 'mongodb://127.0.0.1:27017'}",
		/* 3 */ "tools:",
		/* 4 */ "  report:",
		/* 5 */ "    kind: mongodb-aggregate",
		/* 6 */ "    source: m",
		/* 7 */ "    description: d",
		/* 8 */ "    database: db",
		/* 9 */ "    collection: c",
		/* 10 */ "    readOnly: true",
		/* 11 */ "    pipelinePayload: |",
		/* 12 */ "      [",
		/* 13 */ "        {\"$facet\": {\"a\": [{\"$match\": {}}, {\"$merge\": {\"into\": \"x\"}}]}},",
		/* 14 */ "        {\"$lookup\": {\"from\": \"y\", \"pipeline\": [{\"$out\": \"z\"}], \"as\": \"r\"}}",
		/* 15 */ "      ]",
		/* 16 */ "  find:",
		/* 17 */ "    kind: mongodb-find",
		/* 18 */ "    source: m",
		/* 19 */ "    description: d",
		/* 20 */ "    database: db",
		/* 21 */ "    collection: c",
		/* 22 */ "    filterPayload: '{\"name\": \"^{{json .prefix}}\"}'",
		/* 23 */ "    filterParams: [{name: prefix, type: string, description: p}]",
		/* 24 */ "    limit: 5",
		/* 25 */ "  one:",
		/* 26 */ "    kind: mongodb-find-one",
		/* 27 */ "    source: m",
		/* 28 */ "    description: d",
		/* 29 */ "    database: db",
		/* 30 */ "    collectionAllowedValues: [a, b]",
		/* 31 */ "    limit: 5",
		/* 32 */ "    filterPayload: |",
		/* 33 */ "      {\"a\": {{json .a}}, \"b\": {{json .b}}}",
		/* 34 */ "    filterParams: [{name: a, type: string, description: a}]",
		/* 35 */ "  ins:",
		/* 36 */ "    kind: mongodb-insert-many",
		/* 37 */ "    source: m",
		/* 38 */ "    description: d",
		/* 39 */ "    database: db",
		/* 40 */ "    collection: c",
		/* 41 */ "    readOnly: true",
		/* 42 */ "  del:",
		/* 43 */ "    kind: mongodb-delete-many",
		/* 44 */ "    source: m",
		/* 45 */ "    description: d",
		/* 46 */ "    database: db",
		/* 47 */ "    collection: c",
		/* 48 */ "    filterPayload: '[1, 2]'",
		/* 49 */ "    statement: SELECT 1",
	}, "\n")
	_, ps := parse(t, src, nil)
	assert.Contains(t, at(ps, 13, 44), `tool "report" pipelinePayload: $merge writes, and the tool is declared read-only`, ps.Error())
	assert.Contains(t, at(ps, 14, 49), `tool "report" pipelinePayload: $out writes, and the tool is declared read-only`, ps.Error())
	assert.Contains(t, at(ps, 22, 32), `tool "find" filterPayload: a placeholder inside a string`, ps.Error())
	assert.Contains(t, at(ps, 31, 5), `limit is not a field of a mongodb-find-one tool`, ps.Error())
	assert.Contains(t, at(ps, 33, 31), `{{json .b}}: "b" is not a declared parameter`, ps.Error())
	assert.Contains(t, at(ps, 41, 15), `a mongodb-insert-many tool writes, and readOnly: true refuses it`, ps.Error())
	assert.Contains(t, at(ps, 48, 20), `filterPayload: must be a document`, ps.Error())
	assert.Contains(t, at(ps, 49, 5), `statement is not a field of a mongodb-delete-many tool`, ps.Error())
}

func TestParse_MongoWritingPipelineIsAnnouncedSo(t *testing.T) {
	cfg, ps := parse(t, `
sources:
  m: {kind: mongodb, uri: 'mongodb://127.0.0.1:27017'}
tools:
  copy:
    kind: mongodb-aggregate
    source: m
    description: d
    database: db
    collection: c
    pipelinePayload: '[{"$match": {}}, {"$out": "copy"}]'
`, nil)
	require.Empty(t, ps, ps.Error())
	assert.False(t, cfg.Tools[0].ReadOnly, "a pipeline with $out writes unless the file says otherwise")
}

func TestParse_MongoAllowedCollections(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  m: {kind: mongodb, uri: 'mongodb://h', allowedCollections: [crm.customers, crm.orders, other.x, bad]}",
		/* 3 */ "tools:",
		/* 4 */ "  fixed:",
		/* 5 */ "    kind: mongodb-delete-one",
		/* 6 */ "    source: m",
		/* 7 */ "    description: d",
		/* 8 */ "    database: crm",
		/* 9 */ "    collection: users",
		/* 10 */ "    filterPayload: '{}'",
		/* 11 */ "  any:",
		/* 12 */ "    kind: mongodb-find",
		/* 13 */ "    source: m",
		/* 14 */ "    description: d",
		/* 15 */ "    database: crm",
		/* 16 */ "    filterPayload: '{}'",
		/* 17 */ "  listed:",
		/* 18 */ "    kind: mongodb-find",
		/* 19 */ "    source: m",
		/* 20 */ "    description: d",
		/* 21 */ "    database: crm",
		/* 22 */ "    collectionAllowedValues: [orders, users]",
		/* 23 */ "    filterPayload: '{}'",
	}, "\n")
	_, ps := parse(t, src, nil)
	assert.Contains(t, at(ps, 2, 99), `allowedCollections entry "bad" is not database.collection`, ps.Error())
	assert.Contains(t, at(ps, 9, 17), `collection "users" of database "crm" is not in the allowedCollections of source "m"`, ps.Error())
	assert.Contains(t, at(ps, 22, 30), `collectionAllowedValues names "users", which is not in the allowedCollections`, ps.Error())
	assert.NotContains(t, ps.Error(), `tool "any"`)

	cfg, ps := parse(t, strings.ReplaceAll(strings.ReplaceAll(src, "users", "orders"), ", bad", ""), nil)
	require.Empty(t, ps, ps.Error())
	for _, p := range cfg.Tools[1].Parameters {
		if p.Name == MongoCollectionParam {
			assert.Equal(t, []any{"customers", "orders"}, p.AllowedValues, "the source's collections of the tool's database")
		}
	}
}

func TestParse_StoreFieldsOnOtherKindsAreProblems(t *testing.T) {
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  db: {kind: sqlite, database: x.db}",
		/* 3 */ "tools:",
		/* 4 */ "  q:",
		/* 5 */ "    kind: sqlite-sql",
		/* 6 */ "    source: db",
		/* 7 */ "    description: d",
		/* 8 */ "    statement: SELECT 1",
		/* 9 */ "    commands: [[GET, k]]",
		/* 10 */ "    filterPayload: '{}'",
	}, "\n")
	_, ps := parse(t, src, nil)
	assert.Contains(t, at(ps, 9, 5), `commands is not a field of a sqlite-sql tool`, ps.Error())
	assert.Contains(t, at(ps, 10, 5), `filterPayload is not a field of a sqlite-sql tool`, ps.Error())
}

func TestParse_MongoPipelineCollectionsMustBeAllowed(t *testing.T) {
	_, ps := parse(t, `
sources:
  m: {kind: mongodb, uri: 'mongodb://h', allowedCollections: [crm.orders, crm.customers]}
tools:
  join:
    kind: mongodb-aggregate
    source: m
    description: d
    database: crm
    collection: orders
    pipelinePayload: '[{"$lookup": {"from": "customers", "localField": "c", "foreignField": "_id", "as": "who"}}, {"$unionWith": "secrets"}]'
`, nil)
	require.Len(t, ps, 1, ps.Error())
	assert.Contains(t, ps[0].Message, `the pipeline names collection "secrets" of database "crm", which is not in the allowedCollections of source "m"`)
}
