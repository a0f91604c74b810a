package main

import (
	"encoding/json"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/toolexec/toolexec"
)

func main() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "text/upper",
		Description: "Returns the text in upper case.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		text, ok := args["text"].(string)
		if !ok {
			return []toolexec.Content{toolexec.Text(`"text" must be a string`)}, true, "", nil
		}
		return []toolexec.Content{toolexec.Text(strings.ToUpper(text))}, false, "", nil
	})

	// Execution is off by default: turn it on deliberately.
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", toolexec.NewHandler(x)))

	srv := &http.Server{Addr: ":8080", Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}
