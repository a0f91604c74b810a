#!/usr/bin/env bash
# Starts, on this machine, the deployment docs/scale.md describes: three
# replicas of `toolexec serve --redis` (serving examples/declarative's
# tools), a Redis they share, and HAProxy balancing them round robin with
# no stickiness. Every client (MCP at any version, REST, OXP, the explorer
# page) uses the balancer's address and gets one server. Ctrl-C stops it all.
#
#   examples/cluster/run.sh          (or: make cluster)
#
# Needs redis-server and haproxy (Debian: apt-get install redis-server
# haproxy) and Go. Ports: LB_PORT (5000) for the balancer, REDIS_PORT
# (6390) for Redis, and the three after LB_PORT for the replicas.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
lb_port="${LB_PORT:-5000}"
redis_port="${REDIS_PORT:-6390}"

for bin in redis-server haproxy; do
	command -v "$bin" >/dev/null || [ -x "/usr/sbin/$bin" ] || { echo "cluster: $bin not found (apt-get install redis-server haproxy)" >&2; exit 1; }
done
haproxy="$(command -v haproxy || echo /usr/sbin/haproxy)"

work="$(mktemp -d)"
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "== building toolexec"
(cd "$root/cmd/toolexec" && go build -o "$work/toolexec" .)

echo "== Redis on 127.0.0.1:$redis_port"
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir "$work" \
	--logfile "$work/redis.log" &
pids+=($!)
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$redis_port") 2>/dev/null && break; sleep 0.1; done

backends=""
for i in 1 2 3; do
	port=$((lb_port + i))
	# Each replica has its own copy of the example (its SQLite database is
	# created from schema.sql on first run); what they share is in Redis.
	cp -r "$root/examples/declarative" "$work/replica$i"
	"$work/toolexec" serve --config "$work/replica$i/tools.yaml" --addr "127.0.0.1:$port" \
		--redis "redis://127.0.0.1:$redis_port/0" \
		>"$work/replica$i.out" 2>"$work/replica$i.log" &
	pids+=($!)
	backends+="    server replica$i 127.0.0.1:$port check inter 1s fall 2 rise 1"$'\n'
done

cat >"$work/haproxy.cfg" <<CFG
global
    maxconn 4096
defaults
    mode http
    timeout connect 2s
    # MCP's SSE streams and long calls: no shorter than the longest call.
    timeout client 10m
    timeout server 10m
    timeout http-request 10s
    retries 3
    option redispatch 1
    # A reload lets the old process answer the next request on each idle
    # connection before closing it, so a reload drops no request.
    option idle-close-on-response
frontend toolexec
    bind 127.0.0.1:$lb_port
    default_backend replicas
backend replicas
    balance roundrobin
$backends
CFG
"$haproxy" -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)
sleep 1

base="http://127.0.0.1:$lb_port"
cat <<MSG
== three replicas behind HAProxy at $base
  REST:     $base/api/tools
  MCP:      $base/mcp
  OXP:      $base/oxp/tools
  Explorer: $base/api/ (open it in a browser)
  logs:     $work/replica{1,2,3}.log, $work/haproxy.log
Ctrl-C stops everything.
MSG
wait -n "${pids[@]}" || true
echo "cluster: a process exited; stopping" >&2
