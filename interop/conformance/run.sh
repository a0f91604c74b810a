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
# Then the same two suites, and the tasks scenarios, run against three
# replicas of the server sharing a throw-away Redis (-redis), behind HAProxy
# balancing round robin with no stickiness, and must give the same results
# as the one process (the same expected-failures files). CONFORMANCE_CLUSTER=0 leaves that out; without
# redis-server or haproxy it is left out with a note, unless CI is set.
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
cluster_pids=()
cleanup() {
	if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
	if [ -n "$example_pid" ]; then kill "$example_pid" 2>/dev/null || true; fi
	for pid in "${cluster_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	if [ -f "$work/replica.pids" ]; then
		while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$work/replica.pids"
	fi
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
# run_tasks NAME URL: the tasks extension's scenarios (io.modelcontextprotocol/tasks,
# at 2026-07-28), which --suite all leaves out: each by name, forced, one
# after the other, into one results directory.
run_tasks() {
	local name=$1 target=$2 scenario
	for scenario in tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-request-state-removal \
		tasks-mrtr-input tasks-request-headers tasks-dispatch-and-envelope tasks-status-notifications \
		tasks-required-task-error tasks-mrtr-composition; do
		(cd "$work" && "$node" "$suites/node_modules/conformance-2026/dist/index.js" server --url "$target" -o "$work/$name" \
			--scenario "$scenario" --spec-version 2026-07-28 --force) >>"$work/$name.log" 2>&1 || true
	done
}
run_tasks tasks-2026-07-28 "$url" &
p5=$!
wait "$p1" "$p2" "$p3" "$p4" "$p5"
names=(2025-11-25 2026-07-28 tasks-2026-07-28 example-2025-11-25 example-2026-07-28)

# start_server ARGS...: starts a conformance server, prints its URL.
# It runs in a command substitution, a subshell, so it records each pid in
# $work/replica.pids, which cleanup reads: cluster_pids would lose it.
start_server() {
	local out="$work/replica-$(wc -l <"$work/replica.pids" 2>/dev/null || echo 0).out"
	"$work/conformance-server" "$@" >"$out" 2>>"$work/cluster.err" &
	echo $! >>"$work/replica.pids"
	for _ in $(seq 100); do
		if [ -s "$out" ]; then head -n1 "$out"; return 0; fi
		sleep 0.1
	done
	return 1
}

# The cluster: a Redis on a Unix socket in $work, three replicas, HAProxy.
redis_server="$(command -v redis-server || true)"
haproxy="$(command -v haproxy || ls /usr/sbin/haproxy 2>/dev/null || true)"
if [ "${CONFORMANCE_CLUSTER:-1}" = 0 ]; then
	echo "== conformance through a balancer: left out (CONFORMANCE_CLUSTER=0)"
elif [ -z "$redis_server" ] || [ -z "$haproxy" ]; then
	if [ -n "${CI:-}" ]; then
		echo "conformance: redis-server and haproxy are needed (.ci/run installs them)" >&2
		exit 1
	fi
	echo "== conformance through a balancer: left out (apt-get install redis-server haproxy to run it)"
else
	"$redis_server" --port 0 --unixsocket "$work/redis.sock" --save "" --appendonly no --dir "$work" \
		--logfile "$work/redis.log" >/dev/null 2>&1 &
	cluster_pids+=($!)
	for _ in $(seq 100); do [ -S "$work/redis.sock" ] && break; sleep 0.1; done
	backends=""
	for i in 1 2 3; do
		replica="$(start_server -addr 127.0.0.1:0 -redis "unix://$work/redis.sock")" ||
			{ echo "conformance: a replica did not start" >&2; cat "$work/cluster.err" >&2; exit 1; }
		hostport="${replica#http://}"
		backends+="	server r$i ${hostport%/mcp} check inter 200ms fall 1 rise 1"$'\n'
	done
	balancer=""
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		cat >"$work/haproxy.cfg" <<-CFG
		global
		    maxconn 4096
		defaults
		    mode http
		    timeout connect 2s
		    timeout client 10m
		    timeout server 10m
		    timeout http-request 10s
		    retries 3
		    option redispatch 1
		frontend replicas
		    bind 127.0.0.1:$port
		    default_backend replicas
		backend replicas
		    balance roundrobin
		$backends
		CFG
		"$haproxy" -db -f "$work/haproxy.cfg" >>"$work/haproxy.log" 2>&1 &
		hpid=$!
		sleep 0.5
		if kill -0 "$hpid" 2>/dev/null; then
			cluster_pids+=($hpid)
			balancer="http://127.0.0.1:$port/mcp"
			break
		fi
	done
	[ -n "$balancer" ] || { echo "conformance: haproxy did not start" >&2; cat "$work/haproxy.log" >&2; exit 1; }
	echo "== conformance through HAProxy at $balancer (3 replicas sharing a Redis)"
	run cluster-2025-11-25 conformance-2025 "$balancer" --suite all --spec-version 2025-11-25 &
	p1=$!
	run cluster-2026-07-28 conformance-2026 "$balancer" --suite all --spec-version 2026-07-28 &
	p2=$!
	run_tasks cluster-tasks-2026-07-28 "$balancer" &
	p3=$!
	wait "$p1" "$p2" "$p3"
	names+=(cluster-2025-11-25 cluster-2026-07-28 cluster-tasks-2026-07-28)
fi

echo "== what to expect: toolexec serves tools only, so the suite's checks of resources, prompts and"
echo "   completions fail or warn by design (interop/conformance/expected-failures-*.yml list them and"
echo "   why; docs/mcp.md, \"The official conformance suite\"). Only an UNEXPECTED FAILURE or STALE line"
echo "   needs attention; every run below must end with 0 unexpected failures and 0 stale entries."
status=0
for name in "${names[@]}"; do
	expected="$here/expected-failures-${name#cluster-}.yml"
	case $name in example-*) expected=/dev/null ;; esac # nothing may fail
	echo "== conformance at $name"
	if ! "$work/conformance-compare" -expected "$expected" "$work/$name"; then
		status=1
		echo "== conformance at $name FAILED; the suite's summary:"
		sed -n '/=== SUMMARY ===/,$p' "$work/$name.log"
	fi
done
exit $status
