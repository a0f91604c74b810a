package mcp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

func TestAResumedStreamWhoseReplicaDiedEndsWithAnError(t *testing.T) {
	store := toolexec.NewMemoryStore()
	reg := toolexec.NewRegistry()
	x := toolexec.New(reg, reg, toolexec.WithStore(store))
	window := 150 * time.Millisecond
	srv := httptest.NewServer(NewHandler(x, WithResumeWindow(window)))
	defer srv.Close()

	// What a replica that died mid-call leaves: the header, one event, and
	// no keep-alive after them.
	stream := streamIDPrefix + "0123456789abcdef-" + strings.Repeat("ab", 16)
	ctx := context.Background()
	_, err := store.AppendEvent(ctx, streamLog(stream), []byte(headerEvent+`{"id":42}`), time.Minute)
	require.NoError(t, err)
	first, err := store.AppendEvent(ctx, streamLog(stream), []byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`), time.Minute)
	require.NoError(t, err)

	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Last-Event-ID", stream+eventIDSep+first)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	var data []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	require.Len(t, data, 1, "the stream ends after one message")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":42,"error":{"code":-32603,"message":"Internal error: the server running the call stopped before it answered"}}`, data[0])
}
