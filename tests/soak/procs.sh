# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The processes the soak runs and watches (tests/soak/soak.sh): each by a
# name (smA, atsd-host1, ibsim...), with its kind, pid and start. A
# tracked process that is gone was not killed by the soak: a crash. Its
# resident set (VmRSS of /proc/PID/status) is sampled; the first sample
# after PROCS_WARMUP seconds of life is its baseline, and a later one
# above 1.5 x baseline + PROCS_RSS_SLACK_KB is growth (a leak, or
# queues without bound).

declare -A PROCS_PID PROCS_KIND PROCS_BORN PROCS_BASE PROCS_PEAK
: "${PROCS_WARMUP:=30}"
PROCS_RSS_SLACK_KB=2048

# procs_track NAME KIND PID
procs_track() {
	PROCS_PID[$1]=$3
	PROCS_KIND[$1]=$2
	PROCS_BORN[$1]=$SECONDS
	PROCS_BASE[$1]=0
	PROCS_PEAK[$1]=0
}

# procs_forget NAME: the soak stops or killed it; the harness's cleanup no
# longer signals its pid either (a pid can be reused in an hour).
procs_forget() {
	local pid=${PROCS_PID[$1]:-} p keep=""
	unset "PROCS_PID[$1]"
	[ -n "$pid" ] || return 0
	for p in $T_PIDS; do
		[ "$p" = "$pid" ] || keep="$keep $p"
	done
	T_PIDS=$keep
}

# procs_dead: the names of tracked processes that are gone, one a line.
procs_dead() {
	local n
	for n in "${!PROCS_PID[@]}"; do
		kill -0 "${PROCS_PID[$n]}" 2>/dev/null || echo "$n (${PROCS_KIND[$n]}, pid ${PROCS_PID[$n]})"
	done
}

procs_rss_kb() {
	sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status" 2>/dev/null
}

# procs_rss: sample every tracked process; one line per process over
# its bound into $RUN/rss.over. Baselines are set here (not in $(...)).
procs_rss() {
	local n rss base
	for n in "${!PROCS_PID[@]}"; do
		rss=$(procs_rss_kb "${PROCS_PID[$n]}")
		[ -n "$rss" ] || continue
		[ "$rss" -gt "${PROCS_PEAK[$n]}" ] && PROCS_PEAK[$n]=$rss
		base=${PROCS_BASE[$n]}
		if [ "$base" -eq 0 ]; then
			[ $((SECONDS - PROCS_BORN[$n])) -ge "$PROCS_WARMUP" ] && PROCS_BASE[$n]=$rss
			continue
		fi
		[ "$rss" -gt $((base * 3 / 2 + PROCS_RSS_SLACK_KB)) ] &&
			echo "$n (${PROCS_KIND[$n]}) VmRSS $rss kB, baseline $base kB"
	done >"$RUN/rss.over"
}

# procs_summary: per kind, the largest baseline and peak (for the report).
procs_summary() {
	local n
	for n in "${!PROCS_PID[@]}"; do
		echo "${PROCS_KIND[$n]} $n ${PROCS_BASE[$n]} ${PROCS_PEAK[$n]}"
	done | sort | awk '{ printf "#   %-6s %-12s baseline %6d kB, peak %6d kB\n", $1, $2, $3, $4 }'
}

# procs_sanitizers: sanitizer reports in the logs of every process the
# soak ran (atsd logs, OpenSM's standard output), one "file: line" each.
procs_sanitizers() {
	grep -H -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|WARNING: ThreadSanitizer' \
		"$RUN"/atsd-*.log "$RUN"/opensm.out "$RUN"/sm2/opensm.out "$RUN"/tools.log 2>/dev/null
	return 0
}

# procs_run SECS OUT NODE PROGRAM ARGS...: run PROGRAM on NODE's
# simulated host (as the harness's "on", but exec'ed: the pid is the
# program's) with its output in OUT; its exit status, or 124 when it was
# still there after SECS and killed (a hang: reported, the soak goes
# on). PROCS_RUN_MS: the time it took; for a killed one, until OUT was
# last written (its answer, if any).
procs_run() {
	local secs=$1 out=$2 node=$3 pid t0 now
	shift 3
	node_up "$node" || return 1
	t0=${EPOCHREALTIME/./}
	t0=$((t0 / 1000))
	(cd "$RUN/scratch" && SIM_HOST=$node LD_PRELOAD=$SIM_PRELOAD exec "$@") >"$out" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		now=${EPOCHREALTIME/./}
		now=$((now / 1000))
		if [ $((now - t0)) -gt $((secs * 1000)) ]; then
			sm_kill "$pid" >/dev/null
			echo "$now killed after $((now - t0)) ms: $*" >>"$RUN/hangs.log"
			PROCS_RUN_MS=$(($(date -r "$out" +%s%3N) - t0))
			return 124
		fi
		sleep 0.02
	done
	now=${EPOCHREALTIME/./}
	PROCS_RUN_MS=$((now / 1000 - t0))
	wait "$pid"
}
