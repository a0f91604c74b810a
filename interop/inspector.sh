#!/usr/bin/env bash
# Lists and calls the fixture tools with the MCP Inspector CLI (npm package
# @modelcontextprotocol/inspector, TypeScript SDK client) against the mcp
# handler, served by ./cmd/fixture-server on a loopback port.
#
#   ./interop/inspector.sh            # from the repository root, or from interop/
#
# Needs Go, Node and npx. `make test` does not run it. The Inspector's newest
# releases need Node >= 22; on older Node the script uses 0.15.0, the last
# release that runs there. INSPECTOR_PKG overrides the choice.
set -euo pipefail

cd "$(dirname "$0")"

if [[ -z "${INSPECTOR_PKG:-}" ]]; then
	node_major=$(node -p 'process.versions.node.split(".")[0]')
	if ((node_major >= 22)); then
		INSPECTOR_PKG=@modelcontextprotocol/inspector@latest
	else
		INSPECTOR_PKG=@modelcontextprotocol/inspector@0.15.0
	fi
fi

workdir=$(mktemp -d)
server_pid=
cleanup() {
	if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
	rm -rf "$workdir"
}
trap cleanup EXIT

go build -o "$workdir/fixture-server" ./cmd/fixture-server
"$workdir/fixture-server" >"$workdir/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 50); do
	[[ -s "$workdir/server.out" ]] && break
	sleep 0.1
done
url=$(head -n1 "$workdir/server.out")
echo "fixture server: $url (inspector: $INSPECTOR_PKG)"

# The Inspector 2.x speaks MCP 2026-07-28 ("modern") and the 2025 versions
# ("legacy"); every check runs in each era it has.
eras=("")
if [[ "$INSPECTOR_PKG" != *@0.* ]]; then
	eras=(modern legacy)
fi
era=""

inspect() {
	local args=(--cli "$url" --transport http)
	if [[ -n "$era" ]]; then args+=(--protocol-era "$era"); fi
	npx --yes "$INSPECTOR_PKG" "${args[@]}" "$@" 2>&1 | grep -v '^npm warn' || true
}

failures=0
# expect DESCRIPTION PATTERN ARGS...: run the Inspector with ARGS and check
# its output matches the extended regular expression PATTERN.
expect() {
	local what=$1 pattern=$2
	shift 2
	local out
	out=$(inspect "$@")
	if grep -Eq -- "$pattern" <<<"$out"; then
		echo "ok   ${era:+$era: }$what"
	else
		echo "FAIL ${era:+$era: }$what: no match for /$pattern/ in:"
		echo "$out" | sed 's/^/     /'
		failures=$((failures + 1))
	fi
}

for era in "${eras[@]}"; do
	expect "tools/list names every tool" '"name": "explode"' --method tools/list
	expect "tools/list shows the output schema" '"outputSchema"' --method tools/list
	expect "typed tool: structured content" '"temperatureC": 21.5' --method tools/call --tool-name forecast --tool-arg city=Oslo
	expect "failing tool: isError result" 'upstream unavailable' --method tools/call --tool-name fail
	expect "panicking tool: isError result" '"text": "kaboom"' --method tools/call --tool-name explode
	expect "invalid arguments: isError result" "/city: missing property 'city'" --method tools/call --tool-name forecast
	# Inspector 2.x refuses a tool its tools/list did not show before calling.
	expect "unknown tool: JSON-RPC -32602" '\-32602.*Unknown tool: nope|Tool .nope. not found on server' --method tools/call --tool-name nope
done

if ((failures > 0)); then
	echo "$failures check(s) failed"
	exit 1
fi
echo "all Inspector checks passed"
