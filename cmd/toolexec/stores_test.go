package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	goredis "github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/mongotest"
	"github.com/toolexec/toolexec/redis/redistest"
)

// storeTools has a redis tool and a mongodb tool, on servers at redisAddr
// and mongoURI.
func storeTools(redisAddr, mongoURI string) string {
	return fmt.Sprintf(`
sources:
  cache: {kind: redis, address: [%s]}
  docs: {kind: mongodb, uri: %q}
tools:
  greeting:
    kind: redis
    source: cache
    description: Reads a greeting.
    commands: [[GET, $key]]
    parameters: [{name: key, type: string, description: the key}]
  by-city:
    kind: mongodb-find
    source: docs
    description: Customers of a city.
    database: crm
    collection: customers
    filterPayload: '{"city": {{json .city}}}'
    filterParams: [{name: city, type: string, description: the city}]
    projectPayload: '{"_id": 0, "name": 1}'
`, redisAddr, mongoURI)
}

// `toolexec serve --stdio` serves redis and mongodb tools to an MCP client
// that starts it as a subprocess.
func TestServeStdio_RedisAndMongoDBTools(t *testing.T) {
	rds := redistest.New(t)
	rdb := goredis.NewClient(&goredis.Options{Addr: rds.Addr})
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	require.NoError(t, rdb.Set(ctx, "hello", "world", 0).Err())
	mdb := mongotest.New(t)
	mc, err := mongo.Connect(options.Client().ApplyURI(mdb.URI))
	require.NoError(t, err)
	defer func() { _ = mc.Disconnect(context.Background()) }()
	_, err = mc.Database("crm").Collection("customers").InsertOne(ctx, bson.D{{Key: "name", Value: "Ada"}, {Key: "city", Value: "Oslo"}})
	require.NoError(t, err)

	path := filepath.Join(t.TempDir(), "tools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(storeTools(rds.Addr, mdb.URI)), 0o600))
	cmd, stderr := commandFor(t, nil, "serve", "--config", path, "--stdio")
	client := sdk.NewClient(&sdk.Implementation{Name: "stdio-test", Version: "1"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 20 * time.Second}, nil)
	require.NoError(t, err, stderr.String())
	defer session.Close()

	tools, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 2)
	assert.True(t, tools.Tools[0].Annotations.ReadOnlyHint)

	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "greeting", Arguments: map[string]any{"key": "hello"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, `"world"`, res.Content[0].(*sdk.TextContent).Text)

	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "by-city", Arguments: map[string]any{"city": "Oslo"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Equal(t, `{"name":"Ada"}`, res.Content[0].(*sdk.TextContent).Text)
	res, err = session.CallTool(ctx, &sdk.CallToolParams{Name: "by-city", Arguments: map[string]any{"city": `{"$ne": null}`}})
	require.NoError(t, err)
	assert.Empty(t, res.Content, "an operator in a string argument matches nothing")
}

// validate reports what a redis or mongodb tool may not do, at the line
// and column of the command or the pipeline's stage, without connecting.
func TestValidate_ReadOnlyStoreToolsThatWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tools.yaml")
	src := strings.Join([]string{
		/* 1 */ "sources:",
		/* 2 */ "  cache: {kind: redis, address: ['127.0.0.1:1']}",
		/* 3 */ "  docs: {kind: mongodb, uri: 'mongodb://127.0.0.1:1'}",
		/* 4 */ "tools:",
		/* 5 */ "  count:",
		/* 6 */ "    kind: redis",
		/* 7 */ "    source: cache",
		/* 8 */ "    description: Counts visits.",
		/* 9 */ "    commands: [[INCR, visits], [FLUSHDB]]",
		/* 10 */ "  report:",
		/* 11 */ "    kind: mongodb-aggregate",
		/* 12 */ "    source: docs",
		/* 13 */ "    description: A report.",
		/* 14 */ "    database: crm",
		/* 15 */ "    collection: orders",
		/* 16 */ "    readOnly: true",
		/* 17 */ "    pipelinePayload: |",
		/* 18 */ `      [{"$group": {"_id": "$city"}},`,
		/* 19 */ `       {"$out": "report"}]`,
	}, "\n")
	require.NoError(t, os.WriteFile(path, []byte(src), 0o600))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"validate", "--config", path}, func(string) (string, bool) { return "", false }, nil, &out, &errOut)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut.String(), path+`:9:17: tool "count" commands[0]: INCR writes, and the tool is read-only (the default of a redis tool): declare readOnly: false`)
	assert.Contains(t, errOut.String(), path+`:9:33: tool "count" commands[1]: Redis command FLUSHDB is refused: it erases a whole database`)
	assert.Contains(t, errOut.String(), path+`:19:9: tool "report" pipelinePayload: $out writes, and the tool is declared read-only`)
}
