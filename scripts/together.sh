#!/usr/bin/env bash
# together.sh runs make targets at the same time, each with its output kept
# apart, then prints each target's output whole, in the order given, and a
# line per target: its result, wall seconds and CPU seconds (user+sys of
# everything it ran). It exits 1 if any failed.
#
# For the end-to-end steps (the MCP Inspector, the clients, the browser
# tests): each starts its own mnemo on a port of its own and spends much of
# its time waiting on node, Python or a browser, so side by side they take
# little more than the longest alone.
#
# Usage: scripts/together.sh MAKE TARGET...
set -uo pipefail
(($# > 1)) || {
	echo "usage: scripts/together.sh MAKE TARGET..." >&2
	exit 2
}
make=$1
shift
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for target in "$@"; do
	(
		start=$EPOCHREALTIME
		if $make --no-print-directory "$target" >"$out/$target.log" 2>&1; then r=ok; else r=FAIL; fi
		# This subshell's children are the target's processes: the second
		# line of bash's times is their user and system time.
		times >"$out/$target.times"
		printf '%s %s %s\n' "$r" "$(awk -v a="$EPOCHREALTIME" -v b="$start" 'BEGIN { printf "%.1f", a - b }')" \
			"$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, ms, /[ms]/); s += ms[1] * 60 + ms[2] }; printf "%.1f", s }' "$out/$target.times")" >"$out/$target.rc"
	) &
done
wait

status=0
lines=()
for target in "$@"; do
	echo "== $target"
	cat "$out/$target.log"
	read -r r secs cpu <"$out/$target.rc"
	[[ $r == ok ]] || status=1
	lines+=("$(printf '  %-10s %-4s %7ss wall %7ss cpu' "$target" "$r" "$secs" "$cpu")")
done
echo
echo "together:"
printf '%s\n' "${lines[@]}"
exit $status
