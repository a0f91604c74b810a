// Package external runs MCP servers as processes of their own, for the
// side-by-side comparison of `toolexec serve` with googleapis/mcp-toolbox
// in cmd/benchtable: BuildToolexec builds the toolexec command of this
// repository, InstallToolbox installs the pinned mcp-toolbox server from
// npm under .cache/, and Binary.Start runs either on a free loopback port
// and times its start-up. WriteSQLite and WritePostgres (against
// StartPostgres's throw-away server) write the same tools file for both,
// CallRequest is the call both answer and CheckAnswer and QuickCheck check
// their answers. CPUTime, TreeCPUTime and ReadMemory read a process's
// figures from /proc.
//
// Servers listen on 127.0.0.1 only, with a minimal environment, and die
// with the benchmark.
package external
