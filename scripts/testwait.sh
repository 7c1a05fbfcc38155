# testwait.sh is internal/testwait for the test scripts (source it): waits
# bounded in quiet-machine time, which stretch with the machine's load, so
# that a script fails when what it waits for never comes, never because the
# machine is busy (QUAL-3).
#
#   testwait_scale             prints the slowdown now: runnable threads per
#                              core (the larger of the 1- and 5-minute load
#                              averages and those runnable at this moment),
#                              at least 1, times MNEMO_TEST_TIMEOUT_SCALE
#   testwait_until SECS CMD... runs CMD every 0.2 s until it succeeds;
#                              returns 1 once SECS of quiet-machine time
#                              have passed first (each stretch of wall time
#                              counts divided by the slowdown at that moment)
#   testwait_secs SECS         prints SECS stretched by the slowdown now, for
#                              a bound fixed once (a child's own timeout)

testwait_scale() {
	awk -v cores="$(nproc 2>/dev/null || echo 1)" -v env="${MNEMO_TEST_TIMEOUT_SCALE:-1}" '
		{ l = $1; if ($2 > l) l = $2; split($4, r, "/"); if (r[1] - 1 > l) l = r[1] - 1 }
		END {
			s = (cores > 0 && l / cores > 1) ? l / cores : 1
			if (env + 0 > 0) s *= env
			printf "%.2f\n", s
		}' /proc/loadavg 2>/dev/null || echo 1
}

testwait_secs() {
	awk -v d="$1" -v s="$(testwait_scale)" 'BEGIN { printf "%d\n", d * s + 0.5 }'
}

testwait_until() {
	local base=$1 spent=0 last=$EPOCHREALTIME now
	shift
	until "$@"; do
		now=$EPOCHREALTIME
		spent=$(awk -v s="$spent" -v a="$now" -v b="$last" -v k="$(testwait_scale)" 'BEGIN { printf "%.3f", s + (a - b) / k }')
		last=$now
		awk -v s="$spent" -v b="$base" 'BEGIN { exit !(s >= b) }' && return 1
		sleep 0.2
	done
}
