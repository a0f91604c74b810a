package explorer_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/explorer"
	"github.com/toolexec/toolexec/mcp"
)

// The explorer page is mounted with the REST handler: GET /api/ is the page,
// GET /api/tools and the other REST routes answer as before.
func Example() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "text_upper",
		Description: "Returns the text in upper case.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
	}, func(_ string, args map[string]any) ([]toolexec.Content, bool, string, error) {
		text, _ := args["text"].(string)
		return []toolexec.Content{toolexec.Text(strings.ToUpper(text))}, false, "", nil
	})
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	api := explorer.Wrap(x, toolexec.NewHandler(x),
		explorer.WithTitle("Acme tools"),
		explorer.WithProjectLink("Acme on GitHub", "https://github.com/acme/tools"),
		explorer.WithExecute(true), // let the page's Call button run tools
	)
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", api))

	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/api/", "/api/tools"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			panic(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		fmt.Println(path, res.StatusCode, res.Header.Get("Content-Type"))
	}
	// Output:
	// /api/ 200 text/html; charset=utf-8
	// /api/tools 200 application/json
}

// With WithMCP the page runs its calls through the MCP endpoint the host
// mounts beside REST, as an MCP client does: progress bars, log messages,
// Cancel and input forms. The page finds the endpoint at the path given,
// on its own server.
func ExampleWithMCP() {
	reg := toolexec.NewRegistry()
	reg.MustAdd(toolexec.Tool{
		Name:        "import",
		Description: "Imports three files, reporting progress.",
		InputSchema: json.RawMessage(`{"type":"object"}`),
	}, toolexec.ToolCallHandlerFunc(func(ctx context.Context, _ string, _ map[string]any) ([]toolexec.Content, bool, string, error) {
		for i := 1; i <= 3; i++ {
			_ = toolexec.ReportProgress(ctx, toolexec.Progress{Progress: float64(i), Total: 3, Message: fmt.Sprintf("file %d of 3", i)})
		}
		return []toolexec.Content{toolexec.Text("imported")}, false, "", nil
	}))
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))

	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewHandler(x))
	mux.Handle("/api/", http.StripPrefix("/api", explorer.Wrap(x, toolexec.NewHandler(x),
		explorer.WithExecute(true),
		explorer.WithMCP("/mcp"), // the page calls over MCP
	)))

	srv := httptest.NewServer(mux)
	defer srv.Close()
	res, err := http.Get(srv.URL + "/api/")
	if err != nil {
		panic(err)
	}
	page, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	fmt.Println(res.StatusCode, strings.Contains(string(page), `"mcp":"/mcp"`))
	// Output:
	// 200 true
}
