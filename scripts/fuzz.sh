#!/usr/bin/env bash
# Runs each fuzzer (pkg:FuzzName) for $FUZZTIME past its seed corpus.
#
# With FUZZCOVER=1 the fuzzers are guided by the coverage of mnemo's own
# packages; without (the default, make test's short runs) they mutate
# blind. Guidance pays over minutes: in a run of a few seconds the engine
# spends its time measuring and minimising what each new input covers
# (FuzzWrite: about 500 inputs in 3 s guided, 35,000 blind), and the blind
# runs are what found the bugs its seeds now keep. The blind binaries are
# plain test builds, from the plain build's cache.
#
# $FUZZJOBS fuzzers (default 2, one a core here) run at once, each with one
# worker (-parallel 1): the same CPU as one fuzzer with two workers at a
# time, in half the wall time, and one worker per core never starves the
# engine's coordinator. Each fuzzer's output is printed whole, in list order.
# The fuzzers run niced (10): beside other work (make test runs the unit
# tests at the same time) they take the cores those leave idle, and the
# builds before them run at the usual priority, so that they are ready early.
#
# Go 1.26's fuzz coordinator can end a run that found nothing with a bare
# "context deadline exceeded" at the -fuzztime boundary (go.dev/issue/75804,
# fixed in Go 1.27), more often on a busy machine. A finding always writes
# its input ("Failing input written to …"), so a run that failed with that
# message alone and wrote nothing is run once more, and if it ends the same
# way again it counts as passed, saying so: it fuzzed for its whole time and
# found nothing. Any other failure fails at once. A fuzzer the list names
# but the package no longer has fails too ("no fuzz tests").
set -uo pipefail
go=${GO:-go}
fuzztime=${FUZZTIME:-5s}
jobs=${FUZZJOBS:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Each package's fuzz test binary is built once, by `go test -c` (vet is
# the vet step's), and every fuzzer of the package runs from it in the
# package's directory, as go test runs it (without DWARF, -w, which halves
# the link), with go test's own corpus cache ($GOCACHE/fuzz/IMPORTPATH): a
# build per fuzzer would link the same binary again for each. With
# FUZZCOVER=1, the coverage that guides the fuzzers is mnemo's own
# packages', where the parsers are (the compiler's -d=libfuzzer, which `go
# test -fuzz` would put on every package linked, the standard library and
# the dependencies too): those come from the plain build's cache instead of
# a third compile of their own. Two go commands building at once would
# each compile the packages they share: the package that reaches the most
# of them builds first, alone, then the rest $jobs at a time.
module=$("$go" list -m)
instrument=""
[[ ${FUZZCOVER:-0} == 1 ]] && instrument="$module/...=-d=libfuzzer"
bins=$out/bin
mkdir -p "$bins"
cache=$("$go" env GOCACHE)/fuzz
# build PKG: the binary of PKG at $bins/N.test, its directory and import
# path in $bins/N.where, its build's output in $bins/N.log.
build() {
	local pkg=$1 n
	n=$(printf '%s' "$pkg" | md5sum | cut -c1-12)
	"$go" list -f '{{.Dir}} {{.ImportPath}}' "$pkg" >"$bins/$n.where" 2>"$bins/$n.log" &&
		"$go" test -c -vet=off ${instrument:+-gcflags="$instrument"} -ldflags=-w -o "$bins/$n.test" "$pkg" >>"$bins/$n.log" 2>&1
}
binof() { printf '%s' "$1" | md5sum | cut -c1-12; }
export -f build
export go bins instrument
pkgs=$(printf '%s\n' "$@" | sed 's/:.*//' | sort -u)
# shellcheck disable=SC2086 # one package a word
first=$("$go" list -test -f '{{.ImportPath}} {{len .Deps}}' $pkgs 2>/dev/null | awk '$1 ~ /\.test$/ && $2 > n { n = $2; p = $1 } END { sub(/\.test$/, "", p); print p }')
first=$(for p in $pkgs; do [[ $("$go" list "$p" 2>/dev/null) == "$first" ]] && echo "$p"; done | head -1)
[[ -n $first ]] && build "$first"
grep -vxF "${first:-}" <<<"$pkgs" | xargs -P "$jobs" -I{} bash -c 'build "$@"' _ {}

# fuzz runs one fuzzer, writing its output to $out/$i.log and its result
# (0 or 1) to $out/$i.rc.
fuzz() {
	local i=$1 pkg=${2%%:*} name=${2#*:} try rc log n dir path
	n=$(binof "$pkg")
	if [[ ! -x $bins/$n.test ]]; then
		{
			echo "$go test -c -fuzz '^\$' $pkg: the build failed"
			cat "$bins/$n.log"
		} >>"$out/$i.log"
		echo 1 >"$out/$i.rc"
		return
	fi
	read -r dir path <"$bins/$n.where"
	for try in 1 2; do
		log=$(cd "$dir" && nice -n 10 "$bins/$n.test" -test.run '^$' -test.fuzz "^$name\$" -test.fuzztime "$fuzztime" \
			-test.parallel 1 -test.timeout 0 -test.fuzzcachedir "$cache/$path" 2>&1)
		rc=$?
		printf '%s -test.fuzz '"'"'^%s$'"'"' -test.fuzztime %s -test.parallel 1 (%s)\n%s\n' "$path.test" "$name" "$fuzztime" "$pkg" "$log" >>"$out/$i.log"
		if grep -q 'no fuzz tests to fuzz\|matches no fuzz tests' <<<"$log"; then
			echo "fuzz: $pkg has no $name: fix the FUZZERS list in the Makefile" >>"$out/$i.log"
			rc=1
			break
		fi
		if [ $rc -ne 0 ] && grep -q 'context deadline exceeded' <<<"$log" && ! grep -q 'Failing input written' <<<"$log"; then
			if [ $try -eq 1 ]; then
				echo "fuzz: $name ended on the fuzz engine's deadline race with no finding (go.dev/issue/75804); once more" >>"$out/$i.log"
				continue
			fi
			echo "fuzz: $name ended on the deadline race again, having fuzzed its whole time with no finding: passed" >>"$out/$i.log"
			rc=0
		fi
		break
	done
	[ $rc -eq 0 ] && echo 0 >"$out/$i.rc" || echo 1 >"$out/$i.rc"
}

i=0
for f in "$@"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	fuzz $i "$f" &
	i=$((i + 1))
done
wait

failed=0
for ((j = 0; j < i; j++)); do
	cat "$out/$j.log"
	[ "$(cat "$out/$j.rc" 2>/dev/null)" = 0 ] || failed=$((failed + 1))
done
echo "fuzz: $((i - failed)) passed, $failed failed"
[ $failed -eq 0 ]
