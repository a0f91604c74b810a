package server

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/toolexec/toolexec/cmd/toolexec/internal/pgtest"
)

// pgShim stands between the command and the test's PostgreSQL server as an
// older server or a connection pooler would: it passes every byte on,
// except that, in hide mode, it drops the server's report of
// default_transaction_read_only (as servers before PostgreSQL 14 never
// send it) and, in refuse mode, it refuses a session that asks for that
// setting at start-up, as PgBouncer refuses a startup parameter it does
// not know. It listens on 127.0.0.1 and is closed at the end of the test.
type pgShim struct {
	ln     net.Listener
	target string
	refuse bool
	wg     sync.WaitGroup
}

func startPGShim(t *testing.T, s *pgtest.Server, refuse bool) *pgShim {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	sh := &pgShim{ln: ln, target: net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), refuse: refuse}
	sh.wg.Go(sh.serve)
	t.Cleanup(func() {
		ln.Close()
		// The test's sources are closed by now (cleanups run last
		// first): a session still open was leaked.
		done := make(chan struct{})
		go func() { sh.wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("a session through the shim was left open after its source was closed")
		}
	})
	return sh
}

func (sh *pgShim) port() int { return sh.ln.Addr().(*net.TCPAddr).Port }

func (sh *pgShim) serve() {
	for {
		c, err := sh.ln.Accept()
		if err != nil {
			return
		}
		sh.wg.Go(func() { sh.session(c) })
	}
}

func (sh *pgShim) session(client net.Conn) {
	defer client.Close()
	// The startup message: its length, then the protocol version and the
	// parameters (the client sends no SSL request: sslmode=disable).
	var size [4]byte
	if _, err := io.ReadFull(client, size[:]); err != nil {
		return
	}
	startup := make([]byte, binary.BigEndian.Uint32(size[:])-4)
	if _, err := io.ReadFull(client, startup); err != nil {
		return
	}
	if sh.refuse && bytes.Contains(startup, []byte("default_transaction_read_only\x00")) {
		msg := []byte("SFATAL\x00C08P01\x00Munsupported startup parameter: default_transaction_read_only\x00\x00")
		out := append([]byte{'E'}, binary.BigEndian.AppendUint32(nil, uint32(len(msg)+4))...)
		_, _ = client.Write(append(out, msg...))
		return
	}
	server, err := net.Dial("tcp", sh.target)
	if err != nil {
		return
	}
	defer server.Close()
	if _, err := server.Write(append(size[:], startup...)); err != nil {
		return
	}
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(server, client)
		server.Close()
		close(done)
	}()
	// The server's messages: a type byte, a length, the body; a
	// ParameterStatus ('S') naming the setting is dropped.
	for {
		var head [5]byte
		if _, err := io.ReadFull(server, head[:]); err != nil {
			break
		}
		body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
		if _, err := io.ReadFull(server, body); err != nil {
			break
		}
		if head[0] == 'S' && bytes.HasPrefix(body, []byte("default_transaction_read_only\x00")) {
			continue
		}
		if _, err := client.Write(append(head[:], body...)); err != nil {
			break
		}
	}
	client.Close()
	<-done
}
