package main

import (
	"context"
	"log"
	"net/http"
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

	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
