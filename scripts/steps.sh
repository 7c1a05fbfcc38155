#!/usr/bin/env bash
# steps.sh runs make targets one after another, each to its end even if an
# earlier one failed, then prints one line per target: its result, wall
# seconds and CPU seconds (user+sys of everything it ran; on a shared machine
# CPU is the steadier figure). It exits 1 if any target failed, or if the
# targets changed the checkout: tests write where they may (temporary
# directories, caches), never into the tree (QUAL-4).
#
# Usage: scripts/steps.sh MAKE TARGET...
set -uo pipefail

(($# > 1)) || {
	echo "usage: scripts/steps.sh MAKE TARGET..." >&2
	exit 2
}
make=$1
shift

# cpu sets cpu to the user+sys seconds of this shell's finished children so
# far, from the second line of bash's `times` (which must run in this shell,
# not in a $(...) subshell, to see them).
tf=$(mktemp)
trap 'rm -f "$tf"' EXIT
cpu() {
	times >"$tf"
	cpu=$(awk 'NR == 2 {
		s = 0
		for (i = 1; i <= 2; i++) { split($i, ms, /[ms]/); s += ms[1] * 60 + ms[2] }
		printf "%.1f", s
	}' "$tf")
}

# sub prints $1 - $2 (decimals; bash has integers only).
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a - b }'; }

# line formats one line of the summary: target, result, wall, cpu.
line() { printf '  %-10s %-4s %7ss wall %7ss cpu' "$@"; }

# checkout prints what git sees as changed or new in the tree, and a hash
# of the changes, so that a file already changed and changed again shows;
# nothing outside a git checkout.
checkout() {
	git rev-parse --git-dir >/dev/null 2>&1 || return 0
	git status --porcelain --untracked-files=all
	echo "git diff HEAD: $(git diff HEAD --binary | sha1sum | cut -c1-12)"
}
before=$(checkout)

summary=()
status=0
total=$EPOCHREALTIME
for target in "$@"; do
	start=$EPOCHREALTIME
	cpu
	cpu0=$cpu
	if $make --no-print-directory "$target"; then
		result=ok
	else
		result=FAIL
		status=1
	fi
	cpu
	summary+=("$(line "$target" "$result" "$(sub "$EPOCHREALTIME" "$start")" "$(sub "$cpu" "$cpu0")")")
done

after=$(checkout)
if [[ $after != "$before" ]]; then
	echo
	echo "make test changed the checkout (a test must write elsewhere):"
	diff <(echo "$before") <(echo "$after") | grep '^[<>]'
	summary+=("  checkout   CHANGED")
	status=1
fi

echo
echo "make test: per step"
printf '%s\n' "${summary[@]}"
cpu
line total "$([[ $status == 0 ]] && echo ok || echo FAIL)" "$(sub "$EPOCHREALTIME" "$total")" "$cpu"
echo
exit "$status"
