// Command conformance-server serves, at /mcp, every tool the official MCP
// conformance suite's server scenarios call, registered with toolexec's
// public API, so that `make conformance` can run the suite
// (@modelcontextprotocol/conformance) against toolexec's MCP handler at
// every protocol version it speaks:
//
//	cd interop && go run ./cmd/conformance-server -addr 127.0.0.1:3001
//
// It prints the endpoint's URL on its first line of output and serves until
// killed. Its handler runs with the defaults a host gets, DNS-rebinding
// defense included.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/mcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()

	reg := toolexec.NewRegistry()
	addTools(reg)
	// The tools that report progress and log messages or ask the client
	// for input mid-call (logging, progress, sampling, elicitation,
	// input_required, tool-set changes).
	addStreamingTools(reg)
	// The tools of the tasks extension's scenarios (MCP 2026-07-28).
	addTaskTools(reg)

	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	h := mcp.NewHandler(x,
		mcp.WithServerInfo("toolexec-conformance", "1.0.0"),
		mcp.WithCacheHints(5*time.Minute, mcp.CachePublic))
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s/mcp\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}
