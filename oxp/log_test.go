package oxp_test

import (
	"io"
	"log/slog"

	"github.com/toolexec/toolexec/internal/testlog"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// logBuffer is a concurrency-safe log sink for tests that read the log.
type logBuffer = testlog.Buffer
