package mcp_test

import (
	"bufio"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

// TestAListenStreamCostsFewGoroutinesAndKilobytes measures what one open
// subscriptions/listen stream holds on the server (docs/security.md quotes
// the figures): its clients are raw TCP connections, which add no
// goroutine to the process, each having read its acknowledgement.
func TestAListenStreamCostsFewGoroutinesAndKilobytes(t *testing.T) {
	const n = 200
	reg := streamRegistry(t)
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true), toolexec.WithLogger(quietLogger()))
	srv, _ := watchedServer(t, mcp.NewHandler(x, mcp.WithListenLimits(n, n)))

	settle := func() (goroutines int, bytes uint64) {
		var ms runtime.MemStats
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return runtime.NumGoroutine(), ms.HeapInuse + ms.StackInuse
	}
	g0, b0 := settle()
	conns := make([]net.Conn, 0, n)
	for range n {
		conn := rawPost(t, srv, listenBody(`"cost"`), headers2026("subscriptions/listen", "")...)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(generous)))
		rd := bufio.NewReader(conn)
		for { // through the acknowledgement: the stream is open
			line, err := rd.ReadString('\n')
			require.NoError(t, err)
			if len(line) > 5 && line[:5] == "data:" {
				break
			}
		}
		conns = append(conns, conn)
	}
	g1, b1 := settle()
	perGoroutines := float64(g1-g0) / n
	perBytes := float64(int64(b1)-int64(b0)) / n
	t.Logf("per open listen stream: %.2f goroutines, %.1f KiB (heap in use and stacks, %d streams)", perGoroutines, perBytes/1024, n)
	assert.LessOrEqual(t, perGoroutines, 3.0)
	for _, c := range conns {
		c.Close()
	}
}
