// Package bench measures toolexec's surfaces against a hand-written floor
// and against the two Go MCP servers users most often compare it with: the
// official SDK (github.com/modelcontextprotocol/go-sdk) and
// github.com/mark3labs/mcp-go.
//
// It is its own module so the library's go.mod never depends on its peers.
//
// Every contender serves the same tools (see tools.go) and answers the same
// requests; Contenders lists them. The package's tests check that each
// contender answers correctly, so a misconfigured contender cannot win a
// benchmark. bench_test.go holds standard testing.B benchmarks (for
// benchstat), and cmd/benchtable runs every scenario in one process and
// prints one table (make bench).
package bench
