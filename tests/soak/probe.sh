# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The soak's prober (tests/soak/soak.sh): resolves the agents' static
# addresses in turn, straight from the SA (atsctl -n, as prober_start in
# the harness, but over several addresses), one attempt at a time, one
# every PROBE_MS at most. Each attempt is a line of $RUN/probe.log:
# "<start ms> <end ms> <ip> <exit status>": 0 found, 1 the SA answered
# that there is no such record (atsctl(8) EXIT STATUS), 3 no answer, 124
# hung and killed (procs_run), the answer in probe.out unread. A
# record that is missing while its agent lives and its port is on the
# fabric was lost.
#
# probe_focus IP: resolve IP alone until probe_focus with no argument
# (a restarting agent's record, looked at as often as possible).
#
# It is one ibsim client (10 at most, OpenSMs and agents included): a
# fault that needs two tool processes at once pauses it (probe_pause).

PROBE_MS=100
PROBE_LOG="$RUN/probe.log"
PROBE_DONE=0 # lines of probe.log already judged

# probe_start NODE IP...
probe_start() {
	local node=$1
	shift
	: >"$PROBE_LOG"
	(
		while [ ! -e "$RUN/probe.stop" ]; do
			for ip in "$@"; do
				while [ -e "$RUN/probe.pause" ]; do
					touch "$RUN/probe.paused"
					sleep 0.05
				done
				rm -f "$RUN/probe.paused"
				[ -s "$RUN/probe.focus" ] && ip=$(cat "$RUN/probe.focus")
				t0=$(date +%s%3N)
				procs_run 5 "$RUN/probe.out" "$node" "$ATSCTL" -n -t 200 -r 2 resolve "$ip"
				r=$?
				t1=$(date +%s%3N)
				echo "$t0 $t1 $ip $r" >>"$PROBE_LOG"
				[ $((t1 - t0)) -lt $PROBE_MS ] &&
					sleep "$(printf '0.%03d' $((PROBE_MS - (t1 - t0))))"
			done
		done
	) &
	procs_track prober prober $!
	T_PIDS="$T_PIDS $!"
}

probe_focus() {
	echo "${1:-}" >"$RUN/probe.focus"
}

probe_stop() {
	touch "$RUN/probe.stop"
	wait "${PROCS_PID[prober]}" 2>/dev/null
	procs_forget prober
}

# probe_pause: wait (bounded) until the prober's attempt in flight ended.
probe_pause() {
	touch "$RUN/probe.pause"
	wait_for "the prober to pause" 5 test -e "$RUN/probe.paused"
}

probe_resume() {
	rm -f "$RUN/probe.pause" "$RUN/probe.paused"
}

# Where a missing record is no loss: NODE's port was off the fabric (a
# link flap, flush_departed) from FROM ms until the settle after it.
probe_excuse_begin() {
	echo "$1 $(date +%s%3N) 0" >>"$RUN/probe.excuse"
}

probe_excuse_end() {
	local now
	now=$(date +%s%3N)
	[ -f "$RUN/probe.excuse" ] && sed -i "s/ 0\$/ $now/" "$RUN/probe.excuse"
	return 0
}

# probe_judge: the attempts since the last call; prints one line per lost
# record ("IP of NODE missing at MS"), and sets PROBE_N (attempts),
# PROBE_MISSING and PROBE_NOANSWER.
probe_judge() {
	local out total
	touch "$RUN/probe.excuse"
	model_static_map >"$RUN/probe.map"
	total=$(wc -l <"$PROBE_LOG")
	out=$(tail -n +$((PROBE_DONE + 1)) "$PROBE_LOG" | head -n $((total - PROBE_DONE)) |
		awk -v map="$RUN/probe.map" -v exc="$RUN/probe.excuse" '
		BEGIN {
			while ((getline l < map) > 0) { split(l, f, " "); owner[f[1]] = f[2] }
			while ((getline l < exc) > 0) { split(l, f, " "); n++; en[n] = f[1]; ef[n] = f[2]; et[n] = f[3] }
		}
		{ a++ }
		$4 == 3 { na++ }
		$4 == 1 {
			m++; node = owner[$3]; ok = 0
			for (i = 1; i <= n; i++)
				if (en[i] == node && $2 >= ef[i] && (et[i] == 0 || $1 <= et[i])) ok = 1
			if (!ok) printf "lost %s of %s: missing at %d\n", $3, node, $1
		}
		END { printf "counts %d %d %d\n", a, m, na }')
	PROBE_DONE=$total
	set -- $(echo "$out" | sed -n 's/^counts //p')
	PROBE_N=${1:-0} PROBE_MISSING=${2:-0} PROBE_NOANSWER=${3:-0}
	echo "$out" | grep '^lost'
	return 0
}
