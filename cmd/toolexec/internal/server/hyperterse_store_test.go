package server

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/mongotest"
	"github.com/toolexec/toolexec/redis/redistest"
)

// A Hyperterse redis adapter's tool sends its statement's words, a word
// holding a placeholder as one word, whatever the value holds.
func TestHyperterse_RedisAdapter(t *testing.T) {
	srv := redistest.New(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: srv.Addr, DB: 3})
	t.Cleanup(func() { _ = rdb.Close() })
	ctx := context.Background()
	require.NoError(t, rdb.HSet(ctx, "user:7", "name", "Ada", "city", "Oslo").Err())
	require.NoError(t, rdb.Set(ctx, "canary", "alive", 0).Err())
	x := hyperProject(t, map[string]string{
		"app/adapters/cache.terse": "connector: redis\nconnection_string: redis://" + srv.Addr + "/3\n",
		"app/tools/user-field/config.terse": `use: cache
statement: 'HGET user:{{ inputs.id }} {{ inputs.field }}'
inputs:
  id: {type: int}
  field: {type: string}
`,
	}, nil)
	res, err := call(t, x, "user-field", map[string]any{"id": 7, "field": "city"})
	require.NoError(t, err)
	assert.Equal(t, []any{"Oslo"}, results(t, res))
	res, err = call(t, x, "user-field", map[string]any{"id": 7, "field": "name\r\nFLUSHALL\r\n"})
	require.NoError(t, err)
	assert.Equal(t, []any{nil}, results(t, res), "the field is one word")
	assert.Equal(t, "alive", rdb.Get(ctx, "canary").Val())
}

// A Hyperterse mongodb adapter's tools run their statement's operation,
// each placeholder a whole value of its input's type.
func TestHyperterse_MongoDBAdapter(t *testing.T) {
	srv := mongotest.New(t)
	client := mongoClient(t, srv.URI)
	coll := client.Database("shop").Collection("orders")
	_, err := coll.InsertMany(context.Background(), []any{
		bson.D{{Key: "customer", Value: "Ada"}, {Key: "total", Value: 30}},
		bson.D{{Key: "customer", Value: "Ada"}, {Key: "total", Value: 5}},
		bson.D{{Key: "customer", Value: "Bo"}, {Key: "total", Value: 50}},
	})
	require.NoError(t, err)
	x := hyperProject(t, map[string]string{
		"app/adapters/docs.terse": "connector: mongodb\nconnection_string: " + srv.URI + "\n",
		"app/tools/big-orders/config.terse": `use: docs
statement: |
  {"database": "shop", "collection": "orders", "operation": "find",
   "filter": {"customer": "{{ inputs.customer }}", "total": {"$gte": {{ inputs.min }}}},
   "options": {"sort": {"total": -1}, "projection": {"_id": 0}}}
inputs:
  customer: {type: string}
  min: {type: int}
`,
		"app/tools/add-order/config.terse": `use: docs
statement: '{"database": "shop", "collection": "orders", "operation": "insertOne", "document": {"customer": "{{ inputs.customer }}", "total": {{ inputs.total }}}}'
inputs:
  customer: {type: string}
  total: {type: int}
`,
	}, nil)
	res, err := call(t, x, "add-order", map[string]any{"customer": "Ada", "total": 12})
	require.NoError(t, err)
	require.False(t, res.IsError, res.Text())
	res, err = call(t, x, "big-orders", map[string]any{"customer": "Ada", "min": 10})
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{
		{"customer": "Ada", "total": float64(30)},
		{"customer": "Ada", "total": float64(12)},
	}, rows(t, res))
	_, err = call(t, x, "big-orders", map[string]any{"customer": map[string]any{"$ne": ""}, "min": 0})
	assert.ErrorContains(t, err, "want string", "an operator where a string goes is refused")
}
