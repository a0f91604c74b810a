// Command fixture-server serves the interoperability fixture tools over MCP
// on a loopback port, for clients that cannot run inside go test (the MCP
// Inspector CLI: see ../../inspector.sh). It prints the MCP endpoint's URL on
// its first line of output and serves until killed.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/toolexec/toolexec"
	"github.com/toolexec/toolexec/interop/fixture"
	"github.com/toolexec/toolexec/mcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()

	reg := fixture.Registry()
	x := toolexec.New(reg, reg, toolexec.WithAllowExecute(true))
	mux := http.NewServeMux()
	h := mcp.NewHandler(x, mcp.WithServerInfo("toolexec-fixture", "1.0.0"))
	mux.Handle("/mcp", h)
	mux.Handle("/mcp/", h)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
