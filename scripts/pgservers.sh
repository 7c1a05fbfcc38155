#!/usr/bin/env bash
# pgservers.sh runs a command with the PostgreSQL servers mnemo's tests use
# (internal/pgtest): Debian's PostgreSQL 15, started if it is down, and two
# PGlites with pgvector for the whole command, started beside it and stopped
# afterwards whatever the command's outcome. It exports
#   MNEMO_TEST_PG_DSN        PostgreSQL 15 (default: 127.0.0.1:5432, database test)
#   MNEMO_TEST_PGVECTOR_DSN  a PGlite server (pgvector, pg_trgm)
#   MNEMO_TEST_PGVECTOR_DSNS every PGlite server (two; each test binary
#                            claims one: internal/pgtest)
# and installs pgbouncer when it is missing (the tests start their own),
# and exits with the command's status, or 1 with the reason if a server
# cannot start. $PGSERVERS_MEANWHILE, when set, is a shell command run while
# the PGlites start (make unit compiles its tests meanwhile); COMMAND starts
# once it is done, and not at all if it failed. PGSERVERS_EARLY: below.
#
# Usage: [PGSERVERS_MEANWHILE=CMD] scripts/pgservers.sh COMMAND [ARG...]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=testwait.sh
source "$here/testwait.sh"
fail() {
	echo "pgservers: $*" >&2
	exit 1
}
(($# > 0)) || fail "usage: scripts/pgservers.sh COMMAND [ARG...]"
command -v psql >/dev/null || fail "psql is not installed (Debian: apt-get install postgresql-client)"

# PgBouncer, for the tests that run the store behind a transaction-mode
# pooler (internal/pgtest.PgBouncer starts it per test binary): installed
# when missing, as root with apt-get; otherwise those tests skip, loudly.
if ! command -v pgbouncer >/dev/null && [[ ! -x /usr/sbin/pgbouncer ]]; then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "pgservers: installing pgbouncer" >&2
		bash "$here/apt-install.sh" pgbouncer >/dev/null ||
			echo "pgservers: apt-get install pgbouncer failed: the PgBouncer tests will skip" >&2
	else
		echo "pgservers: pgbouncer is not installed (Debian: apt-get install pgbouncer): the PgBouncer tests will skip" >&2
	fi
fi

export MNEMO_TEST_PG_DSN=${MNEMO_TEST_PG_DSN:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
start=$SECONDS

# PostgreSQL 15: the machine starts it at boot; start it again if it is down
# (as root there is no systemd to redirect to, hence --skip-systemctl-redirect).
pg_answers() { psql "$MNEMO_TEST_PG_DSN" -Atqc 'SELECT 1' >/dev/null 2>&1; }
if ! pg_answers; then
	[[ $MNEMO_TEST_PG_DSN =~ @(127\.0\.0\.1|localhost):([0-9]+)/ ]] ||
		fail "no answer from $MNEMO_TEST_PG_DSN, and it is not a local server to start"
	port=${BASH_REMATCH[2]}
	read -r ver name _ < <(pg_lsclusters --no-header | awk -v p="$port" '$3 == p') ||
		fail "no answer on port $port and no Debian cluster there (pg_lsclusters)"
	pg_ctlcluster --skip-systemctl-redirect "$ver" "$name" start ||
		fail "pg_ctlcluster $ver $name start failed"
	testwait_until 60 pg_answers || fail "PostgreSQL $ver/$name started but does not answer: $(psql "$MNEMO_TEST_PG_DSN" -c 'SELECT 1' 2>&1)"
fi

# PGlites: go test runs several test binaries at a time, and each claims a
# server of its own (internal/pgtest), rather than all taking turns on one
# PGlite session. MNEMO_TEST_PGLITES sets how many (default two). They
# start in the background, on ports chosen here, while PGSERVERS_MEANWHILE
# runs; COMMAND starts once they answer, or at once with PGSERVERS_EARLY
# set, for go test: most tests need none, and pgtest waits for a server's
# first answer (or for the reason it did not start, in
# $TMPDIR/mnemo-pglite-PORT.failed).
n=${MNEMO_TEST_PGLITES:-2}
mapfile -t ports < <(node -e '
	const net = require("net"), n = +process.argv[1], ss = [];
	for (let i = 0; i < n; i++) ss.push(new Promise((ok) => { const s = net.createServer().listen(0, "127.0.0.1", () => ok(s)); }));
	Promise.all(ss).then((ss) => { for (const s of ss) { console.log(s.address().port); s.close(); } });
' "$n") || fail "no free ports for the PGlites"
((${#ports[@]} == n)) || fail "no free ports for the PGlites"
tmp=${TMPDIR:-/tmp}
starts=() dsns=()
for port in "${ports[@]}"; do
	rm -f "$tmp/mnemo-pglite-$port.failed" "$tmp/mnemo-pglite-$port.pid"
	(
		if out=$("$here/pglite/start.sh" "$port" $$ 2>"$tmp/mnemo-pglite-$port.err"); then
			echo "${out%% *}" >"$tmp/mnemo-pglite-$port.pid"
		else
			mv "$tmp/mnemo-pglite-$port.err" "$tmp/mnemo-pglite-$port.failed"
			[[ -z ${PGSERVERS_EARLY:-} ]] || echo "pgservers: PGlite (pgvector) on port $port did not start: $(tail -n 1 "$tmp/mnemo-pglite-$port.failed")" >&2
		fi
		rm -f "$tmp/mnemo-pglite-$port.err"
	) &
	starts+=($!)
	dsns+=("postgres://postgres:postgres@127.0.0.1:$port/postgres?sslmode=disable&default_query_exec_mode=simple_protocol")
done
# On exit: stop the PGlites, and drop pgtest's lock files for them.
cleanup() {
	kill "${starts[@]}" 2>/dev/null || true
	for p in "${ports[@]}"; do
		if [[ -f $tmp/mnemo-pglite-$p.pid ]]; then kill "$(cat "$tmp/mnemo-pglite-$p.pid")" 2>/dev/null || true; fi
		rm -f "$tmp/mnemo-pgtest-127.0.0.1_$p.lock"{,.claim} "$tmp/mnemo-pglite-$p".{pid,failed,err}
	done
	return 0
}
trap cleanup EXIT
export MNEMO_TEST_PGVECTOR_DSN=${dsns[0]} MNEMO_TEST_PGVECTOR_DSNS="${dsns[*]}"
if [[ -n ${PGSERVERS_MEANWHILE:-} ]]; then
	sh -c "$PGSERVERS_MEANWHILE" || fail "$PGSERVERS_MEANWHILE: exit $?"
fi
if [[ -n ${PGSERVERS_EARLY:-} ]]; then
	echo "pgservers: PostgreSQL 15 up, $n PGlites (pgvector) starting on ports ${ports[*]}, set-up $((SECONDS - start))s" >&2
else
	wait "${starts[@]}"
	for port in "${ports[@]}"; do
		[[ ! -f $tmp/mnemo-pglite-$port.failed ]] || fail "PGlite (pgvector) did not start: $(cat "$tmp/mnemo-pglite-$port.failed")"
	done
	echo "pgservers: PostgreSQL 15 up, $n PGlites (pgvector) on ports ${ports[*]}, set-up $((SECONDS - start))s" >&2
fi

status=0
"$@" || status=$?
for port in "${ports[@]}"; do
	if [[ -f $tmp/mnemo-pglite-$port.failed ]]; then
		echo "pgservers: PGlite (pgvector) on port $port did not start:" >&2
		cat "$tmp/mnemo-pglite-$port.failed" >&2
		((status != 0)) || status=1
	fi
done
exit "$status"
