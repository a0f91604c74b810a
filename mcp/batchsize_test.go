package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

func batchOf(n int, element string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(element+",", n), ",") + "]"
}

func TestBatchOverTheLimitIsRefusedBeforeAnyCallRuns(t *testing.T) {
	var ran atomic.Int64
	count := func(next toolexec.CallFunc) toolexec.CallFunc {
		return func(ctx context.Context, c *toolexec.Call) (*toolexec.CallToolResult, error) {
			ran.Add(1)
			return next(ctx, c)
		}
	}
	h := newHandler(t, []toolexec.Option{toolexec.WithInterceptors(count)}, mcp.WithMaxBatchSize(3))
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Rome"}}}`

	rec := post(t, h, batchOf(4, call), "MCP-Protocol-Version", "2025-03-26")
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	var reply rpcReply
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &reply))
	assert.Equal(t, mcp.CodeInvalidRequest, reply.Error.Code)
	assert.Contains(t, reply.Error.Message, "at most 3 messages")
	assert.Zero(t, ran.Load(), "nothing of a refused batch runs")

	rec = post(t, h, batchOf(3, call), "MCP-Protocol-Version", "2025-03-26")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.EqualValues(t, 3, ran.Load())
}

func TestDefaultBatchLimit(t *testing.T) {
	h := newHandler(t, nil)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	assert.Equal(t, http.StatusOK, post(t, h, batchOf(mcp.DefaultMaxBatchSize, ping)).Code)
	assert.Equal(t, http.StatusBadRequest, post(t, h, batchOf(mcp.DefaultMaxBatchSize+1, ping)).Code)
}
