// Command ferretdb runs FerretDB 1.24 (github.com/FerretDB/FerretDB,
// embedded, with its SQLite backend) for the toolexec command's tests, as
// a MongoDB wire-protocol server: it listens on 127.0.0.1 at a free port,
// keeps its data in the directory given by -dir, prints its MongoDB URI
// as one line on standard output once it accepts connections, and stops
// when its standard input ends (the test that started it is done, or has
// died) or on SIGTERM or SIGINT. It is a module of its own, so that the
// command's module does not depend on FerretDB; mongotest builds it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	dir := flag.String("dir", "", "the directory FerretDB keeps its SQLite databases in")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb: -dir is required")
		os.Exit(2)
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: "127.0.0.1:0"},
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/",
		Logger:    logger,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // returns when the parent closes it or exits
		stop()
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = f.Run(ctx) // returns once ctx ends and the listener is closed
	}()
	fmt.Println(f.MongoDBURI()) // waits until the listener is ready
	<-done
}
