// Package bench measures toolexec's surfaces against two hand-written
// floors (Floor, a JSON-RPC tools/call handler, and RESTFloor, a POST
// /tools/{name}/call handler) and against the two Go MCP servers users most
// often compare it with: the official SDK
// (github.com/modelcontextprotocol/go-sdk) and github.com/mark3labs/mcp-go.
//
// It is its own module so the library's go.mod never depends on its peers.
//
// Every contender serves the same tools (see tools.go) and answers the same
// requests; Contenders lists them. In-process calls go through a Caller,
// which reuses its request body and ResponseWriter so that the harness
// costs little, and Null, a handler that does nothing, measures what it
// still costs so that it can be subtracted. The package's tests check that
// each contender answers correctly, so a misconfigured contender cannot win
// a benchmark; they time nothing. bench_test.go holds standard testing.B
// benchmarks (for benchstat), and cmd/benchtable runs every scenario in one
// process and prints the tables and the targets (make bench). Package
// external compares the toolexec command with googleapis/mcp-toolbox, each a
// server process of its own.
package bench
