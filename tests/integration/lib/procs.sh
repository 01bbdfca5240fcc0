# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Process bookkeeping: stop what the test started (stop_all), find and
# kill what outlived it (survivors, reap_survivors), and the EXIT trap
# (cleanup) that keeps a failed test's directory.
# Sourced by harness.sh, in its order: not a script of its own.

# Stop a process, escalating to SIGKILL if it lingers.
stop_pid() {
	local pid=$1 i
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# Stop every process the test started: clients newest first (an agent
# deletes its records while an SM still answers, as a host's shutdown
# order has it), then the OpenSMs, the simulated hosts' kernels and the
# simulator.
stop_all() {
	local pid order="" f sms=""
	for pid in $T_PIDS; do
		case " $T_SMS " in
		*" $pid "*) sms="$pid $sms" ;;
		*) order="$pid $order" ;;
		esac
	done
	for pid in $order $sms; do
		stop_pid "$pid"
	done
	T_PIDS=""
	T_SMS=""
	for f in "$SIMHOST_DIR"/*.pid; do
		[ -f "$f" ] || continue
		stop_pid "$(cat "$f")"
		rm -rf "$f" "${f%.pid}" "${f%.pid}.lock"
	done
	order=""
	for pid in $T_FABRIC; do
		order="$pid $order"
	done
	for pid in $order; do
		stop_pid "$pid"
	done
	T_FABRIC=""
}

# The processes this test started that are still running, one pid a line.
# Each program it ran carries the test's IBSIM_SOCKNAME (exported above)
# in the environment it was executed with, whoever forked it and whoever
# its parent is now (a wrapper's child, a daemon's, one inside ip netns
# exec). A subshell the test forked (`( ... ) &`) was never executed and
# shows the environment the test shell started with: those are found as
# the test shell's children. Not counted: this shell and its ancestors,
# zombies, and grep, run without the variable so that it does not find
# itself. Nothing else may run beside the scan (no pipe into or out of
# it): it would be found.
survivors() {
	local pid=$BASHPID skip=" " kids="" k v f
	while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
		skip="$skip$pid "
		v=
		while read -r k f; do
			[ "$k" = PPid: ] && v=$f && break
		done <"/proc/$pid/status" 2>/dev/null
		pid=$v
	done
	f=$(ps -o pid=,stat= --ppid "$T_SHELL")
	while read -r k v; do
		[ -n "$k" ] && [ "${v#Z}" = "$v" ] && kids="$kids $k"
	done <<<"$f"
	for f in $(env -u IBSIM_SOCKNAME grep -lsFxz "IBSIM_SOCKNAME=$IBSIM_SOCKNAME" \
		/proc/[0-9]*/environ) $kids; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		case $skip in *" $pid "*) ;; *) echo "$pid"; skip="$skip$pid " ;; esac
	done
}

# SIGKILL every survivor (call stop_all first), naming each with its
# command line; status 1 when there was one. One still exiting after its
# parent's stop gets a second (polled) before it counts; a loop that
# started another program meanwhile is looked at again.
reap_survivors() {
	local pid ret=0 i list args
	for i in $(seq 20); do
		list=$(survivors)
		[ -z "$list" ] && return 0
		sleep 0.05
	done
	for i in 1 2 3 4 5; do
		for pid in $list; do
			mapfile -d '' -t args <"/proc/$pid/cmdline" 2>/dev/null || args=()
			kill -9 "$pid" 2>/dev/null || continue
			echo "pid $pid outlived the test: ${args[*]}"
			ret=1
		done
		list=$(survivors)
		[ -z "$list" ] && break
	done
	return $ret
}

cleanup() {
	local rc=$? ns log left
	stop_all
	# What a test that ended before finish left; a pipe to sed here
	# would be a survivor of its own.
	left=$(reap_survivors)
	[ -n "$left" ] && while read -r log; do echo "# $log"; done <<<"$left"
	for ns in $T_NETNS; do
		ip netns del "$ns" 2>/dev/null
	done
	# As TAP diagnostics: a log line is never read as a result.
	if [ "$T_FAIL" -gt 0 ] || [ "$rc" -ne 0 ]; then
		{
			echo "--- kept $RUN; tail of osm.log:"
			tail -n 30 "$RUN/osm.log" 2>/dev/null
			# Any other OpenSM the test launched (osm_launch NODE DIR).
			for log in "$RUN"/*/osm.log; do
				[ -f "$log" ] || continue
				echo "--- tail of $log:"
				tail -n 15 "$log"
			done
		} | sed 's/^/# /'
	elif [ -z "${T_KEEP:-}" ]; then
		rm -rf "$RUN"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
