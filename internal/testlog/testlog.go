// Package testlog gives toolexec's tests a log destination that many
// goroutines may write to at once, as a server's do, and that a test reads
// back without upsetting the race detector.
package testlog

import (
	"bytes"
	"log/slog"
	"sync"
)

// Buffer collects what a slog.Logger writes. The zero value is ready.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p; it is safe for concurrent use.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logger returns a text logger that writes to b from the info level up,
// slog's default.
func (b *Buffer) Logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, nil))
}
