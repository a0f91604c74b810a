package mcp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

func TestABatchStopsWhenTheClientGoes(t *testing.T) {
	var runs atomic.Int64
	started := make(chan struct{})
	sawCancel := make(chan error, 1)
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "slow"}, toolexec.ToolCallHandlerFunc(
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			if runs.Add(1) == 1 {
				close(started)
				<-ctx.Done() // the client goes while the first call runs
				sawCancel <- ctx.Err()
			}
			return []toolexec.Content{toolexec.Text("done")}, false, "", nil
		}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	srv := httptest.NewServer(mcp.NewHandler(x))
	defer srv.Close()

	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{}}}`, i)
	}
	b.WriteString("]")

	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(b.String()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-03-26")
	errc := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	<-started
	cancel()
	assert.Error(t, <-errc, "the client gave up")
	assert.ErrorIs(t, <-sawCancel, context.Canceled, "the running call sees its context cancelled")
	srv.Close() // waits for the handler to return
	assert.EqualValues(t, 1, runs.Load(), "no call of the batch starts after the client has gone")
}
