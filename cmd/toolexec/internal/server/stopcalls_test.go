package server

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
)

// StopCalls ends the running calls of the tools whose calls may run as
// tasks, and those that start later, with a tool error saying so; the
// calls of other tools are left to their own contexts.
func TestProvider_StopCallsEndsTheCallsOfTaskTools(t *testing.T) {
	const countTo = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT count(*) AS n FROM c`
	set := build(t, `
sources:
  db: {kind: sqlite, database: db.sqlite, init: init.sql}
tools:
  task:
    kind: sqlite-sql
    source: db
    description: Counts to n.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: `+countTo+`
    taskSupport: optional
  plain:
    kind: sqlite-sql
    source: db
    description: Counts to n.
    parameters: [{name: n, type: integer, description: How far.}]
    statement: `+countTo+`
`, map[string]string{"init.sql": "CREATE TABLE t (x INTEGER);"}, nil)
	// The task tool's handler says when a call is in it: StopCalls then
	// ends a call that runs (its query counts for days), whatever the
	// load of the machine.
	i := set.byName["task"]
	handler, entered := set.handlers[i], make(chan struct{})
	var calls atomic.Int32
	set.handlers[i] = func(ctx context.Context, args map[string]any) (*toolexec.CallToolResult, error) {
		if calls.Add(1) == 1 {
			close(entered)
		}
		return handler(ctx, args)
	}
	p := NewProvider(set)
	view := p.View("")

	done := make(chan error, 1)
	go func() {
		_, err := view.HandleCallResult(context.Background(), "task", map[string]any{"n": 1e15})
		done <- err
	}()
	<-entered
	p.StopCalls()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the call ran on after StopCalls")
	}
	var te *toolexec.ToolError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, "The server stopped while the call ran.", te.Message)
	assert.True(t, te.CanRetry)

	// A call that starts later is stopped at once, before it runs: even
	// one that would end in a moment.
	for range 50 {
		res, err := p.HandleCallResult(context.Background(), "task", map[string]any{"n": 1})
		require.ErrorAs(t, err, &te, "a call that starts later is stopped at once (it answered %v)", res)
		assert.Equal(t, "The server stopped while the call ran.", te.Message)
	}
	assert.Equal(t, int32(1), calls.Load(), "no later call reached the handler")
	p.StopCalls() // again: nothing more happens

	res, err := p.HandleCallResult(context.Background(), "plain", map[string]any{"n": 3})
	require.NoError(t, err, "another tool's calls run on")
	assert.Equal(t, []map[string]any{{"n": 3.0}}, rows(t, res))
}
