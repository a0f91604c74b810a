package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// stdioClient is the client end of a ServeStdio run: it writes lines to
// the server's input and reads the lines of its output.
type stdioClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

// startStdio runs ServeStdio on x until the test ends (or the client
// closes the input).
func startStdio(t *testing.T, x *toolexec.Executor, opts ...mcp.Option) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{t: t, in: inW, lines: make(chan string, 64), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		c.done <- mcp.ServeStdio(ctx, x, inR, outW, opts...)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return")
		}
	})
	return c
}

func (c *stdioClient) send(line string) {
	c.t.Helper()
	_, err := io.WriteString(c.in, line+"\n")
	require.NoError(c.t, err)
}

// next returns the next message the server wrote, decoded; every line must
// be one JSON object in compact form.
func (c *stdioClient) next() map[string]any {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		require.True(c.t, ok, "the output ended")
		var buf bytes.Buffer
		require.NoError(c.t, json.Compact(&buf, []byte(line)), line)
		assert.Equal(c.t, buf.String(), line, "one message a line, in compact JSON")
		var m map[string]any
		require.NoError(c.t, json.Unmarshal([]byte(line), &m), line)
		assert.Equal(c.t, "2.0", m["jsonrpc"], line)
		return m
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message from the server")
		return nil
	}
}

// quiet checks that the server writes nothing for a while.
func (c *stdioClient) quiet() {
	c.t.Helper()
	select {
	case line := <-c.lines:
		c.t.Errorf("unexpected message: %s", line)
	case <-time.After(100 * time.Millisecond):
	}
}

// result returns the result of an answer to id, failing on an error.
func result(t *testing.T, m map[string]any, id float64) map[string]any {
	t.Helper()
	require.Equal(t, id, m["id"], "%v", m)
	require.Nil(t, m["error"], "%v", m)
	res, ok := m["result"].(map[string]any)
	require.True(t, ok, "%v", m)
	return res
}

func textOf(t *testing.T, res map[string]any) string {
	t.Helper()
	content := res["content"].([]any)
	require.NotEmpty(t, content)
	return content[0].(map[string]any)["text"].(string)
}

const init2025 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestServeStdio_2025SessionListCallPing(t *testing.T) {
	c := startStdio(t, newExecutor(), mcp.WithServerInfo("stdio-test", "1.0.0"))
	c.send(init2025)
	res := result(t, c.next(), 1)
	assert.Equal(t, "2025-11-25", res["protocolVersion"])
	assert.Equal(t, "stdio-test", res["serverInfo"].(map[string]any)["name"])

	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	res = result(t, c.next(), 2)
	assert.NotEmpty(t, res["tools"])

	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Quito"}}}`)
	res = result(t, c.next(), 3)
	assert.Equal(t, false, res["isError"])
	assert.Contains(t, textOf(t, res), "Partly cloudy")

	// The same validation as over HTTP: a missing required argument is a
	// tool error the model can read.
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"weather_get","arguments":{}}}`)
	res = result(t, c.next(), 4)
	assert.Equal(t, true, res["isError"])

	c.send(`{"jsonrpc":"2.0","id":"five","method":"ping"}`)
	m := c.next()
	assert.Equal(t, "five", m["id"])
	assert.Equal(t, map[string]any{}, m["result"])

	// An unknown tool is -32602, as over HTTP.
	c.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	m = c.next()
	assert.EqualValues(t, -32602, m["error"].(map[string]any)["code"])
	c.quiet()
}

func TestServeStdio_BadInputIsAnsweredAndTheSessionGoesOn(t *testing.T) {
	reg := fixtureRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()), toolexec.WithMaxBodyBytes(1024))
	c := startStdio(t, x)

	c.send(`{"jsonrpc":"2.0","id":1,"method":`)
	m := c.next()
	assert.Nil(t, m["id"])
	assert.EqualValues(t, mcp.CodeParseError, m["error"].(map[string]any)["code"])

	// A line over the body limit is answered without being held.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"` + strings.Repeat("x", 4096) + `"}}`)
	m = c.next()
	assert.Nil(t, m["id"])
	assert.Contains(t, m["error"].(map[string]any)["message"], "at most 1024 bytes")

	// Blank lines and CRLF line ends are fine.
	c.send("")
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\r")
	assert.Equal(t, float64(3), c.next()["id"])

	// Batches are 2025-03-26's, as over HTTP: before any initialize the
	// server assumes that version.
	c.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	select {
	case line := <-c.lines:
		var batch []map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &batch), line)
		require.Len(t, batch, 2)
		assert.Equal(t, float64(4), batch[0]["id"])
		assert.Equal(t, float64(5), batch[1]["id"])
	case <-time.After(10 * time.Second):
		t.Fatal("no answer to the batch")
	}
}

func TestServeStdio_2026RequestsCarryTheirVersion(t *testing.T) {
	reg := fixtureRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "regional",
		Description: "mirrors region into a header on HTTP",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}},"required":["region"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("region=" + args["region"].(string))}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	c := startStdio(t, x)
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

	c.send(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`)
	res := result(t, c.next(), 1)
	assert.Contains(t, res["supportedVersions"], "2026-07-28")

	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`)
	res = result(t, c.next(), 2)
	assert.Equal(t, "complete", res["resultType"])

	// No header layer on stdio: the Mcp-Name and Mcp-Param-* checks of
	// Streamable HTTP have nothing to check, and the call runs.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"regional","arguments":{"region":"Zürich\nNord","n":7},` + meta + `}}`)
	res = result(t, c.next(), 3)
	assert.Equal(t, "region=Zürich\nNord", textOf(t, res))

	// initialize is gone from 2026-07-28, and a request that asks for a
	// version the server does not speak is told which it does.
	c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	m := c.next()
	assert.EqualValues(t, mcp.CodeUnsupportedProtocolVersion, m["error"].(map[string]any)["code"])
}

func TestServeStdio_ProgressAndElicitationTravelOnTheSameLines(t *testing.T) {
	reg := fixtureRegistry()
	reg.MustAdd(toolexec.Tool{Name: "ask", Description: "asks the user's name"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1, Total: 2, Message: "asking"})
			res, err := toolexec.Elicit(ctx, "name", toolexec.ElicitRequest{
				Message:         "Your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}},
			})
			if err != nil {
				return nil, false, "", err
			}
			return []toolexec.Content{toolexec.Text("hello " + res.Content["name"].(string))}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	c := startStdio(t, x)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}`)
	result(t, c.next(), 1)
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ask","arguments":{},"_meta":{"progressToken":"p1"}}}`)
	progress := c.next()
	assert.Equal(t, "notifications/progress", progress["method"])
	assert.Equal(t, "p1", progress["params"].(map[string]any)["progressToken"])
	ask := c.next()
	require.Equal(t, "elicitation/create", ask["method"], "%v", ask)
	require.NotNil(t, ask["id"])
	answer, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": ask["id"],
		"result": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}})
	c.send(string(answer))
	res := result(t, c.next(), 2)
	assert.Equal(t, "hello Ada", textOf(t, res))
}

func TestServeStdio_CancelledRequestsStopAndAreNotAnswered(t *testing.T) {
	reg := fixtureRegistry()
	started := make(chan struct{}, 1)
	stopped := make(chan error, 1)
	reg.MustAdd(toolexec.Tool{Name: "slow", Description: "waits until cancelled"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			started <- struct{}{}
			<-ctx.Done()
			stopped <- ctx.Err()
			return nil, false, "", ctx.Err()
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	c := startStdio(t, x)
	c.send(init2025)
	result(t, c.next(), 1)

	c.send(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{}}}`)
	<-started
	// Requests run concurrently: another is answered meanwhile.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	assert.Equal(t, float64(2), c.next()["id"])

	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`)
	select {
	case err := <-stopped:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled")
	}
	c.quiet() // nothing for the cancelled request
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, float64(3), c.next()["id"])
}

func TestServeStdio_EndOfInputLetsRunningCallsFinish(t *testing.T) {
	reg := fixtureRegistry()
	release := make(chan struct{})
	reg.MustAdd(toolexec.Tool{Name: "wait", Description: "waits to be released"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			<-release
			return []toolexec.Content{toolexec.Text("done")}, false, "", nil
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	c := startStdio(t, x)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.in.Close())
	select {
	case err := <-c.done:
		t.Fatalf("returned (%v) while a call was running", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	res := result(t, c.next(), 1)
	assert.Equal(t, "done", textOf(t, res))
	select {
	case err := <-c.done:
		assert.NoError(t, err, "the end of the input is a clean exit")
		c.done <- err // for the cleanup
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return at the end of its input")
	}
}

func TestServeStdio_ToolChangesReach2025Clients(t *testing.T) {
	reg := fixtureRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	require.True(t, x.SurfaceKit().NotifiesToolsChanged())
	c := startStdio(t, x)
	c.send(init2025)
	res := result(t, c.next(), 1)
	assert.Equal(t, true, res["capabilities"].(map[string]any)["tools"].(map[string]any)["listChanged"],
		"over stdio there is a channel to send the notification on")
	reg.MustAdd(toolexec.Tool{Name: "added", Description: "new"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	})
	m := c.next()
	assert.Equal(t, "notifications/tools/list_changed", m["method"])
	assert.Nil(t, m["id"])

	// The subscription does not keep the server from ending with its input.
	require.NoError(t, c.in.Close())
	select {
	case err := <-c.done:
		assert.NoError(t, err)
		c.done <- err
	case <-time.After(3 * time.Second):
		t.Fatal("ServeStdio did not return promptly at the end of its input")
	}
}

// The writer is the only one to write to the output, one message at a
// time, however many calls answer at once.
func TestServeStdio_ConcurrentAnswersAreWholeLines(t *testing.T) {
	c := startStdio(t, newExecutor())
	c.send(init2025)
	result(t, c.next(), 1)
	const n = 100
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < n; i++ {
			c.send(`{"jsonrpc":"2.0","id":` + itoa(i+10) + `,"method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Quito"}}}`)
		}
	}()
	seen := map[float64]bool{}
	for i := 0; i < n; i++ {
		m := c.next()
		seen[m["id"].(float64)] = true
	}
	wg.Wait()
	assert.Len(t, seen, n)
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestServeStdio_ListenStreamsOnTheSameLinesAndEndsWithTheInput(t *testing.T) {
	reg := fixtureRegistry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	c := startStdio(t, x)
	c.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	ack := c.next()
	require.Equal(t, "notifications/subscriptions/acknowledged", ack["method"], "%v", ack)
	reg.MustAdd(toolexec.Tool{Name: "added", Description: "new"}, func(string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return nil, false, "", nil
	})
	m := c.next()
	assert.Equal(t, "notifications/tools/list_changed", m["method"])
	assert.Equal(t, "sub", m["params"].(map[string]any)["_meta"].(map[string]any)["io.modelcontextprotocol/subscriptionId"])

	require.NoError(t, c.in.Close())
	select {
	case err := <-c.done:
		assert.NoError(t, err)
		c.done <- err
	case <-time.After(3 * time.Second):
		t.Fatal("an open listen stream kept ServeStdio from ending with its input")
	}
}

// A host that lists the Host names it serves over HTTP still serves stdio:
// the messages carry no Host or Origin to check.
func TestServeStdio_RebindingListsDoNotApply(t *testing.T) {
	x := newExecutor(toolexec.WithRebindingProtection(toolexec.RebindingProtection{
		AllowedHosts: []string{"api.example.com"}, AllowedOrigins: []string{"https://app.example.com"}}))
	c := startStdio(t, x, mcp.WithAllowedHosts("tools.example.com"))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"weather_get","arguments":{"location":"Quito"}}}`)
	res := result(t, c.next(), 1)
	assert.Equal(t, false, res["isError"])
}

// A stream over stdio is not resumable (there is no connection to lose
// and come back to): the end of the input cancels a 2025 call whose
// stream has started as it cancels any other, without a resume window.
func TestServeStdio_StreamsAreNotResumable(t *testing.T) {
	reg := fixtureRegistry()
	ended := make(chan error, 1)
	reg.MustAdd(toolexec.Tool{Name: "report_then_wait", Description: "reports progress, then waits for its end"},
		func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: 1})
			<-ctx.Done()
			ended <- ctx.Err()
			return nil, false, "", ctx.Err()
		})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	c := startStdio(t, x, mcp.WithResumeWindow(time.Hour))
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"report_then_wait","arguments":{},"_meta":{"progressToken":"p"}}}`)
	progress := c.next()
	assert.Equal(t, "notifications/progress", progress["method"])
	require.NoError(t, c.in.Close())
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(30 * time.Second):
		t.Fatal("the call ran on after the end of the input, as if its stream could be resumed")
	}
}
