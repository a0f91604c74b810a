//lint:file-ignore SA1019 the stream carries log messages as long as MCP does

package mcp_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// generous bounds every wait of these tests: long enough on a loaded
// machine, short enough that a hang fails the test instead of the run.
const generous = 60 * time.Second

// stallWriteTimeout keeps the stall tests short; the default is
// mcp.DefaultStreamWriteTimeout.
const stallWriteTimeout = 250 * time.Millisecond

// stallResumeWindow keeps them short on 2025 versions too, where a stream
// is resumable: a call whose client stopped reading runs on for the resume
// window (mcp.DefaultResumeWindow by default), in case the client resumes
// the stream, and is cancelled then.
const stallResumeWindow = 250 * time.Millisecond

// rawPost opens a TCP connection to srv, sends one POST of body with hdr,
// and returns the connection without reading anything from it: a client
// that asked for a stream and stopped reading. Its receive buffer is made
// small so the server's writes fill the socket sooner.
func rawPost(t *testing.T, srv *httptest.Server, body string, hdr ...string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n",
		srv.Listener.Addr().String(), len(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", hdr[i], hdr[i+1])
	}
	b.WriteString("\r\n")
	b.WriteString(body)
	_, err = conn.Write([]byte(b.String()))
	require.NoError(t, err)
	return conn
}

// floodServer serves "flood", which sends large progress reports or log
// messages (as its "kind" says) until its context ends, and "quick", under
// a concurrency limit of one call at a time. ended receives flood's
// context's error when flood returns; the channel returned reports the
// connections the server closes (see watchedServer).
func floodServer(t *testing.T, ended chan<- error, opts ...mcp.Option) (*httptest.Server, <-chan string) {
	t.Helper()
	return floodServerWith(t, ended, (*httptest.Server).Start, opts...)
}

// floodServerWith is floodServer, started by start.
func floodServerWith(t *testing.T, ended chan<- error, start func(*httptest.Server), opts ...mcp.Option) (*httptest.Server, <-chan string) {
	t.Helper()
	opts = append([]mcp.Option{mcp.WithResumeWindow(stallResumeWindow)}, opts...)
	big := strings.Repeat("x", 64<<10)
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{Name: "flood_progress"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		for i := 1; ctx.Err() == nil; i++ {
			if toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(i), Message: big}) != nil {
				<-ctx.Done() // the stream is gone: only the context's end is awaited
			}
		}
		ended <- ctx.Err()
		return nil, false, "", ctx.Err()
	})
	reg.MustAdd(toolexec.Tool{Name: "flood_log"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		for ctx.Err() == nil {
			if toolexec.Log(ctx, toolexec.LogMessage{Level: toolexec.LogWarning, Data: big}) != nil {
				<-ctx.Done()
			}
		}
		ended <- ctx.Err()
		return nil, false, "", ctx.Err()
	})
	reg.MustAdd(toolexec.Tool{Name: "flood_elicit"}, func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		// One input request larger than any socket buffer.
		_, err := toolexec.Elicit(ctx, "", toolexec.ElicitRequest{Message: strings.Repeat(big, 256),
			RequestedSchema: []byte(`{"type":"object","properties":{}}`)})
		if err != nil && ctx.Err() == nil {
			<-ctx.Done()
		}
		ended <- ctx.Err()
		return nil, false, "", ctx.Err()
	})
	reg.MustAdd(toolexec.Tool{Name: "quick"}, func(context.Context, string, map[string]any) ([]toolexec.Content, bool, string, error) {
		return []toolexec.Content{toolexec.Text("quick")}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()),
		toolexec.WithConcurrencyLimit(toolexec.ConcurrencyLimit{Max: 1}))
	return watchedServerWith(t, mcp.NewHandler(x, opts...), start)
}

// watchedServer serves h on a real server and reports the remote address
// of each connection the server closes.
func watchedServer(t *testing.T, h http.Handler) (*httptest.Server, <-chan string) {
	t.Helper()
	return watchedServerWith(t, h, (*httptest.Server).Start)
}

// watchedServerWith is watchedServer, started by start.
func watchedServerWith(t *testing.T, h http.Handler, start func(*httptest.Server)) (*httptest.Server, <-chan string) {
	t.Helper()
	closed := make(chan string, 64)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			select {
			case closed <- c.RemoteAddr().String():
			default:
			}
		}
	}
	start(srv)
	t.Cleanup(srv.Close)
	return srv, closed
}

// awaitDropped waits until the server has closed conn.
func awaitDropped(t *testing.T, closed <-chan string, conn net.Conn) {
	t.Helper()
	timeout := time.After(generous)
	for {
		select {
		case addr := <-closed:
			if addr == conn.LocalAddr().String() {
				return
			}
		case <-timeout:
			t.Fatal("the server never dropped the stalled connection")
		}
	}
}

// TestAStalledReaderIsDroppedAndItsCallCancelled: a client that asks for
// progress (or log messages) and never reads fills the socket; the write
// that blocks ends at its deadline, the stream is dropped, the call's
// context is cancelled, and its concurrency slot serves the next client.
func TestAStalledReaderIsDroppedAndItsCallCancelled(t *testing.T) {
	for _, v := range mcp.SupportedProtocolVersions() {
		for _, tc := range []struct{ tool, meta string }{
			{"flood_progress", `"progressToken":"p"`},
			{"flood_log", `"io.modelcontextprotocol/logLevel":"info"`},
		} {
			t.Run(v+"/"+tc.tool, func(t *testing.T) {
				ended := make(chan error, 1)
				srv, closed := floodServer(t, ended, mcp.WithStreamWriteTimeout(stallWriteTimeout))
				body, hdr := versionCall(v, tc.tool, tc.meta)
				conn := rawPost(t, srv, body, hdr...)
				select {
				case err := <-ended:
					assert.ErrorIs(t, err, context.Canceled, "the stalled call's context is cancelled")
				case <-time.After(generous):
					t.Fatal("the stalled call was never cancelled")
				}
				awaitDropped(t, closed, conn)
				assertQuickCallServed(t, srv, v)
			})
		}
	}
}

// TestAStalledReaderOfAnInputRequestIsDropped: on 2025 versions an input
// request goes out on the call's stream; one the client does not read
// ends the same way.
func TestAStalledReaderOfAnInputRequestIsDropped(t *testing.T) {
	for _, v := range mcp.SupportedProtocolVersions() {
		if v == "2026-07-28" {
			continue // input requests are never sent on a stream there
		}
		t.Run(v, func(t *testing.T) {
			ended := make(chan error, 1)
			srv, closed := floodServer(t, ended, mcp.WithStreamWriteTimeout(stallWriteTimeout))
			token := initialize(t, srv.URL, `{"elicitation":{}}`)
			body, hdr := versionCall(v, "flood_elicit", "")
			conn := rawPost(t, srv, body, append(hdr, "Mcp-Session-Id", token)...)
			select {
			case err := <-ended:
				assert.ErrorIs(t, err, context.Canceled)
			case <-time.After(generous):
				t.Fatal("the stalled call was never cancelled")
			}
			awaitDropped(t, closed, conn)
			assertQuickCallServed(t, srv, v)
		})
	}
}

// TestAStalledHTTP2ReaderIsDropped: over HTTP/2 a client that does not
// read stops granting flow-control window; the write that waits for it
// ends at its deadline as well.
func TestAStalledHTTP2ReaderIsDropped(t *testing.T) {
	for _, v := range mcp.SupportedProtocolVersions() {
		t.Run(v, func(t *testing.T) {
			ended := make(chan error, 1)
			srv, _ := floodServerWith(t, ended, func(srv *httptest.Server) {
				srv.EnableHTTP2 = true
				srv.StartTLS()
			}, mcp.WithStreamWriteTimeout(stallWriteTimeout))
			ctx, cancel := context.WithTimeout(context.Background(), generous)
			defer cancel()
			body, hdr := versionCall(v, "flood_progress", `"progressToken":"p"`)
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close() // never read
			require.Equal(t, 2, resp.ProtoMajor)
			select {
			case err := <-ended:
				assert.ErrorIs(t, err, context.Canceled)
			case <-ctx.Done():
				t.Fatal("the stalled call was never cancelled")
			}
			assertQuickCallServedBy(t, srv.Client(), srv, v)
		})
	}
}

// assertQuickCallServed calls "quick" as a well-behaved client would,
// waiting for the one concurrency slot as long as the test allows.
func assertQuickCallServed(t *testing.T, srv *httptest.Server, v string) {
	t.Helper()
	assertQuickCallServedBy(t, http.DefaultClient, srv, v)
}

func assertQuickCallServedBy(t *testing.T, client *http.Client, srv *httptest.Server, v string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), generous)
	defer cancel()
	body, hdr := versionCall(v, "quick", "")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	rec := httptest.NewRecorder()
	rec.Code = resp.StatusCode
	_, _ = rec.Body.ReadFrom(resp.Body)
	res := callResult(t, rec)
	require.False(t, res.IsError, "%+v", res)
	assert.Equal(t, "quick", res.Content[0].(*toolexec.TextContent).Text)
}

// opaqueWriter is a host's middleware wrapper that passes Flush on but
// hides the connection (no Unwrap): write deadlines cannot be set through
// it.
type opaqueWriter struct{ w http.ResponseWriter }

func (o opaqueWriter) Header() http.Header         { return o.w.Header() }
func (o opaqueWriter) Write(p []byte) (int, error) { return o.w.Write(p) }
func (o opaqueWriter) WriteHeader(code int)        { o.w.WriteHeader(code) }
func (o opaqueWriter) Flush()                      { o.w.(http.Flusher).Flush() }

// TestAStalledReaderBehindAWriterWithoutDeadlinesStillEndsTheCall: when
// the connection's deadline cannot be set, the call still ends at the
// deadline (its context cancelled, its slot freed); only the blocked write
// waits, until the connection fails.
func TestAStalledReaderBehindAWriterWithoutDeadlinesStillEndsTheCall(t *testing.T) {
	ended := make(chan error, 1)
	srv, _ := floodServerWith(t, ended, func(srv *httptest.Server) {
		inner := srv.Config.Handler
		srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			inner.ServeHTTP(opaqueWriter{w}, r)
		})
		srv.Start()
	}, mcp.WithStreamWriteTimeout(stallWriteTimeout))
	body, hdr := versionCall("2025-11-25", "flood_progress", `"progressToken":"p"`)
	rawPost(t, srv, body, hdr...)
	select {
	case err := <-ended:
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(generous):
		t.Fatal("the stalled call was never cancelled")
	}
	assertQuickCallServed(t, srv, "2025-11-25")
}
