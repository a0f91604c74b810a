package main

import (
	"cmp"
	"context"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

// UpperIn is the tool's input: its JSON Schema is inferred from this type.
type UpperIn struct {
	Text string `json:"text" jsonschema:"the text to convert"`
}

// UpperOut is the tool's output: its structured content, and a text block
// holding the same JSON.
type UpperOut struct {
	Upper string `json:"upper"`
}

func main() {
	reg := toolexec.NewRegistry()
	toolexec.MustAddTool(reg, toolexec.Tool{
		Name:        "text_upper",
		Description: "Returns the text in upper case.",
	}, func(_ context.Context, in UpperIn) (UpperOut, error) {
		return UpperOut{Upper: strings.ToUpper(in.Text)}, nil
	})

	// Execution is off by default: turn it on deliberately.
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))

	addr := "localhost:" + cmp.Or(os.Getenv("PORT"), "8080")
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Printf("listening on http://%s/api/tools", addr)
	log.Fatal(srv.ListenAndServe())
}
