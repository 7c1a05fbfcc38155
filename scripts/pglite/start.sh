#!/usr/bin/env bash
# start.sh starts PGlite (PostgreSQL 18 compiled to wasm) with the pgvector
# (`vector`) and `pg_trgm` extensions, served over the PostgreSQL wire
# protocol on 127.0.0.1, and waits until it answers a query. mnemo's tests
# use it as a real pgvector server (internal/pgtest, scripts/pgservers.sh).
#
# Usage: scripts/pglite/start.sh [port [watch-pid]]
#
# port 0 or none picks a free port. With watch-pid, the server is stopped
# once that process has exited, so a test binary that dies leaves nothing
# behind. On success it prints "PID PORT" on stdout and exits; the server runs
# on until killed (SIGTERM). On failure it exits 1 with the reason and the
# server log's tail on stderr.
#
# The packages are pinned by package.json and package-lock.json beside this
# script and installed with `npm ci` once per lock file into
# $MNEMO_PGLITE_DIR (default: ${XDG_CACHE_HOME:-~/.cache}/mnemo/pglite-<lock
# hash>), outside the repository. The data lives in memory and is gone when
# the server stops; its log goes to $MNEMO_PGLITE_LOG (default:
# ${TMPDIR:-/tmp}/mnemo-pglite-PORT.log). MNEMO_PGLITE_START_TIMEOUT (seconds, default 120) bounds
# the wait, in quiet-machine time: it stretches with the load
# (scripts/testwait.sh). The DSN is
#   postgres://postgres:postgres@127.0.0.1:PORT/postgres?sslmode=disable&default_query_exec_mode=simple_protocol
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../testwait.sh
source "$here/../testwait.sh"
port=${1:-0}
watch=${2:-}
timeout=${MNEMO_PGLITE_START_TIMEOUT:-120}

fail() {
	echo "pglite: $*" >&2
	exit 1
}
command -v node >/dev/null || fail "node is not installed (PGlite needs node >= 18)"
command -v npm >/dev/null || fail "npm is not installed"

key=$(sha256sum "$here/package-lock.json" | cut -c1-12)
dir=${MNEMO_PGLITE_DIR:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/mnemo/pglite-$key}
mkdir -p "$dir"

# Install once per lock file; the lock keeps concurrent starts from racing.
(
	flock 9
	if [[ ! -f $dir/installed || $(cat "$dir/installed") != "$key" ]]; then
		cp "$here/package.json" "$here/package-lock.json" "$dir/"
		# --omit=peer: pglite-socket names every PGlite extension as a peer;
		# only pgvector (a direct dependency here) is needed.
		(cd "$dir" && npm ci --omit=peer --no-audit --no-fund --loglevel=error >&2) ||
			fail "npm ci in $dir failed"
		echo "$key" >"$dir/installed"
	fi
) 9>"$dir.lock"

if [[ $port == 0 ]]; then
	port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
fi
# A port already taken would have the readiness probe below answered by
# whatever listens there, not by our server.
node -e 'require("net").createServer().once("error",(e)=>{console.error(e.message);process.exit(1)}).listen(+process.argv[1],"127.0.0.1",function(){this.close()})' "$port" ||
	fail "127.0.0.1:$port is not free"
log=${MNEMO_PGLITE_LOG:-${TMPDIR:-/tmp}/mnemo-pglite-$port.log}

# The extensions must be named at start: PGlite loads them into the wasm
# instance before it opens the database. -m: connections are multiplexed
# onto PGlite's one session (see internal/pgtest's package doc).
"$dir/node_modules/.bin/pglite-server" -h 127.0.0.1 -p "$port" -m 100 \
	-e @electric-sql/pglite-pgvector:vector,pg_trgm </dev/null >"$log" 2>&1 &
pid=$!

if [[ -n $watch ]]; then
	(
		while kill -0 "$watch" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
		kill "$pid" 2>/dev/null || true
	) </dev/null >/dev/null 2>&1 &
	disown $!
fi

# settled: the server answers a query, or has exited.
settled() { node "$here/ready.js" "$port" 2>/dev/null || ! kill -0 "$pid" 2>/dev/null; }
if ! testwait_until "$timeout" settled; then
	kill "$pid" 2>/dev/null || true
	tail -n 20 "$log" >&2
	fail "no answer on 127.0.0.1:$port after ${timeout}s of quiet-machine time (log: $log)"
fi
if ! kill -0 "$pid" 2>/dev/null; then
	tail -n 20 "$log" >&2
	fail "the server exited before it accepted connections (log: $log)"
fi
disown "$pid"
echo "$pid $port"
