#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance)
# against cmd/conformance-server: version 0.1.16 at protocol 2025-11-25 and
# 0.2.0-alpha.12 at 2026-07-28 (both --suite all), side by side, and the
# ten scenarios of 2026-07-28's tasks extension, which --suite all leaves
# out, each by name. Each run's
# failed checks are compared with its expected-failures file here by
# cmd/conformance-compare, which fails on a new failure or on an entry that
# now passes. The example server (examples/server, as shipped) must pass the
# suite's dns-rebinding-protection scenario at both versions. `make
# conformance` calls this.
#
# Node 22 (the suite needs it; Node 20 cannot run 0.2.0) and the two suite
# versions (package.json and package-lock.json here) are installed with npm
# under the repository's .cache/, once.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cache="${CONFORMANCE_CACHE:-$root/.cache}"
NODE_VERSION=22

command -v npm >/dev/null || { echo "conformance: npm not found (.ci/run installs it)" >&2; exit 1; }

node="$cache/node$NODE_VERSION/node_modules/.bin/node"
if ! "$node" --version 2>/dev/null | grep -q "^v$NODE_VERSION\."; then
	echo "== installing Node $NODE_VERSION into $cache/node$NODE_VERSION"
	npm install --silent --no-audit --no-fund --prefix "$cache/node$NODE_VERSION" "node@$NODE_VERSION" >/dev/null
	"$node" --version | grep -q "^v$NODE_VERSION\." || { echo "conformance: Node $NODE_VERSION did not install" >&2; exit 1; }
fi

# The two suites, pinned with their dependencies by package-lock.json here.
suites="$cache/conformance"
if ! cmp -s "$here/package-lock.json" "$suites/package-lock.json" || [ ! -d "$suites/node_modules/conformance-2026" ]; then
	echo "== installing the pinned @modelcontextprotocol/conformance suites into $suites"
	mkdir -p "$suites"
	cp "$here/package.json" "$here/package-lock.json" "$suites/"
	PATH="$(dirname "$(readlink -f "$node")"):$PATH" npm ci --silent --no-audit --no-fund --prefix "$suites" >/dev/null
fi

work="$(mktemp -d)"
server_pid=""
example_pid=""
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
	if [ -n "$example_pid" ]; then kill "$example_pid" 2>/dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

(cd "$root/interop" && go build -o "$work/conformance-server" ./cmd/conformance-server)
"$work/conformance-server" -addr 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
url=""
for _ in $(seq 100); do
	url="$(head -n1 "$work/server.out" 2>/dev/null || true)"
	[ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { echo "conformance: the server did not start" >&2; cat "$work/server.err" >&2; exit 1; }
echo "== conformance server at $url"

(cd "$root/interop" && go build -o "$work/conformance-compare" ./cmd/conformance-compare)

# The example server, as shipped, must pass dns-rebinding-protection too.
(cd "$root/examples" && go build -o "$work/example-server" ./server)
PORT=0 "$work/example-server" >"$work/example.out" 2>"$work/example.err" &
example_pid=$!
example_url=""
for _ in $(seq 100); do
	example_url="$(grep -oE 'MCP: +http://[^ ]+' "$work/example.out" 2>/dev/null | grep -oE 'http://[^ ]+' || true)"
	[ -n "$example_url" ] && break
	sleep 0.1
done
[ -n "$example_url" ] || { echo "conformance: the example server did not start" >&2; cat "$work/example.err" >&2; exit 1; }

# run NAME PACKAGE ARGS...: one suite run, its results under $work/NAME. The
# suite's own exit status says only that something failed; the comparison
# with the expected failures decides.
run() {
	local name=$1 pkg=$2 target=$3
	shift 3
	(cd "$work" && "$node" "$suites/node_modules/$pkg/dist/index.js" server --url "$target" -o "$work/$name" "$@") \
		>"$work/$name.log" 2>&1 || true
}
run 2025-11-25 conformance-2025 "$url" --suite all --spec-version 2025-11-25 &
p1=$!
run 2026-07-28 conformance-2026 "$url" --suite all --spec-version 2026-07-28 &
p2=$!
run example-2025-11-25 conformance-2025 "$example_url" --scenario dns-rebinding-protection --spec-version 2025-11-25 &
p3=$!
run example-2026-07-28 conformance-2026 "$example_url" --scenario dns-rebinding-protection --spec-version 2026-07-28 &
p4=$!
# The tasks extension's scenarios (io.modelcontextprotocol/tasks, at
# 2026-07-28): --suite all leaves extension scenarios out, so each runs by
# name, forced, one after the other, into one results directory.
tasks_scenarios="tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal tasks-mrtr-input
	tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications tasks-required-task-error tasks-mrtr-composition"
(
	for scenario in $tasks_scenarios; do
		(cd "$work" && "$node" "$suites/node_modules/conformance-2026/dist/index.js" server --url "$url" -o "$work/tasks-2026-07-28" \
			--scenario "$scenario" --spec-version 2026-07-28 --force) >>"$work/tasks-2026-07-28.log" 2>&1 || true
	done
) &
p5=$!
wait "$p1" "$p2" "$p3" "$p4" "$p5"
status=0
for name in 2025-11-25 2026-07-28 tasks-2026-07-28 example-2025-11-25 example-2026-07-28; do
	expected="$here/expected-failures-$name.yml"
	case $name in example-*) expected=/dev/null ;; esac # nothing may fail
	echo "== conformance at $name"
	if ! "$work/conformance-compare" -expected "$expected" "$work/$name"; then
		status=1
		echo "== conformance at $name FAILED; the suite's summary:"
		sed -n '/=== SUMMARY ===/,$p' "$work/$name.log"
	fi
done
exit $status
