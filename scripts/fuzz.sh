#!/usr/bin/env bash
# Runs each fuzzer (pkg:FuzzName) for $FUZZTIME past its seed corpus.
#
# Go 1.26's fuzz coordinator can end a run that found nothing with a bare
# "context deadline exceeded" at the -fuzztime boundary (go.dev/issue/75804,
# fixed in Go 1.27). A finding always writes its input ("Failing input
# written to …"), so a run that failed with that message alone and wrote
# nothing is run once more; any other failure fails at once. A fuzzer the
# list names but the package no longer has fails too ("no fuzz tests").
set -uo pipefail
go=${GO:-go}
fuzztime=${FUZZTIME:-10s}
failed=0
for f in "$@"; do
	pkg=${f%%:*} name=${f#*:}
	for try in 1 2; do
		echo "$go test -run '^\$' -fuzz '^$name\$' -fuzztime $fuzztime $pkg"
		out=$("$go" test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		if grep -q 'no fuzz tests to fuzz' <<<"$out"; then
			echo "fuzz: $pkg has no $name: fix the FUZZERS list in the Makefile"
			rc=1
			break
		fi
		if [ $rc -ne 0 ] && [ $try -eq 1 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
			echo "fuzz: $name ended on the fuzz engine's deadline race with no finding (go.dev/issue/75804); once more"
			continue
		fi
		break
	done
	[ $rc -eq 0 ] || failed=$((failed + 1))
done
echo "fuzz: $(( $# - failed )) passed, $failed failed"
[ $failed -eq 0 ]
