# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The soak's two OpenSMs with the plugin and replication on (harness
# repl_sm_opts): A on smhost in $RUN (the harness's first SM), B on host8
# in $RUN/sm2 (second_sm). Under ibsim the master must stay above the
# standby (harness two_sm_opts), and OpenSM re-reads sm_priority only at
# a heavy sweep, which a standby never runs (do_sweep, osm_state_mgr.c);
# raising a standby's would send trap 144 besides (osm_set_sm_priority).
# So: the master is brought to 15 after each change of master (a SIGHUP
# sweep), a standby is (re)started at 14, and a handover lowers the
# master below the standby, which is possible while the standby is
# above 0 (sms_can_hand_over).

declare -A SMS_NODE SMS_DIR SMS_PRIO SMS_LID
SMS_NODE[A]=smhost SMS_DIR[A]=$RUN
SMS_NODE[B]=host8 SMS_DIR[B]=$RUN/sm2
SMS_MASTER=A

sms_other() { [ "$1" = A ] && echo B || echo A; }
sms_standby() { sms_other "$SMS_MASTER"; }
sms_state() { echo "${SMS_DIR[$1]}/osmats-state.json"; }
sms_log() { echo "${SMS_DIR[$1]}/osm.log"; }
sms_pid() { echo "${PROCS_PID[sm$1]:-}"; }
sms_count() { grep -c "$2" "$(sms_log "$1")" 2>/dev/null; }

sms_set_prio() {
	sed -i "s|^sm_priority .*|sm_priority $2|" "${SMS_DIR[$1]}/opensm.conf"
	SMS_PRIO[$1]=$2
}

# sms_init: after fabric_start (A master at 15): B as standby at 14.
sms_init() {
	SMS_PRIO[A]=15
	procs_track smA sm "$SM_PID"
	second_sm "${SMS_NODE[B]}" 14
	SMS_PRIO[B]=14
	procs_track smB sm "$SM2"
	wait_for "B standby" 30 grep -q "Entering STANDBY state" "$(sms_log B)" || return 1
	SMS_LID[A]=$(port_lid "${SMS_NODE[A]}")
	SMS_LID[B]=$(port_lid "${SMS_NODE[B]}")
}

# sms_launch X: OpenSM X again with its opensm.conf.
sms_launch() {
	rm -f "$(sms_state "$1")"
	osm_launch "${SMS_NODE[$1]}" "${SMS_DIR[$1]}" "${SMS_DIR[$1]}/opensm.conf"
	procs_track "sm$1" sm "$OSM_LAUNCHED"
}

# sms_kill X: kill -9 and drop its ibsim client (harness sm_kill); its
# state file goes too (the settle reads the new process's).
sms_kill() {
	local pid
	pid=$(sms_pid "$1")
	procs_forget "sm$1"
	sm_kill "$pid"
	rm -f "$(sms_state "$1")"
}

# sms_wait_up X N: X's log has more than N SUBNET UP lines (bounded).
sms_wait_up() {
	wait_for "SUBNET UP on $1" 40 sh -c "[ \$(grep -c 'SUBNET UP' '$(sms_log "$1")') -gt $2 ]"
}

# sms_sweep X: SIGHUP (a heavy sweep re-reading opensm.conf), wait for it.
sms_sweep() {
	local n
	n=$(sms_count "$1" 'SUBNET UP')
	kill -HUP "$(sms_pid "$1")"
	sms_wait_up "$1" "$n"
}

# sms_promote X: X became master; its priority to 15.
sms_promote() {
	SMS_MASTER=$1
	sms_set_prio "$1" 15
	sms_sweep "$1"
}

sms_can_hand_over() { [ "${SMS_PRIO[$(sms_standby)]}" -ge 1 ]; }

# sms_hand_over: the master goes below the standby and sweeps; the
# standby takes over (t_repl_handover.sh).
sms_hand_over() {
	local m s ns nu
	m=$SMS_MASTER
	s=$(sms_other "$m")
	ns=$(sms_count "$m" 'Entering STANDBY')
	nu=$(sms_count "$s" 'SUBNET UP')
	sms_set_prio "$m" $((SMS_PRIO[$s] - 1))
	kill -HUP "$(sms_pid "$m")"
	wait_for "$m to step down" 40 sh -c "[ \$(grep -c 'Entering STANDBY' '$(sms_log "$m")') -gt $ns ]" &&
		sms_wait_up "$s" "$nu" && sms_promote "$s"
}

# sms_settled: the master's plugin says master, the standby's is in sync
# with all of it (harness repl_synced).
sms_settled() {
	local m s
	m=$SMS_MASTER
	s=$(sms_other "$m")
	[ -n "$(sms_pid "$m")" ] && [ -n "$(sms_pid "$s")" ] &&
		repl_is "$(sms_state "$m")" role=master &&
		repl_synced "$(sms_state "$s")" "$(sms_state "$m")"
}

# sms_describe: the SMs' roles as their state files say, for diagnostics.
sms_describe() {
	local x
	for x in A B; do
		printf '%s(%s, prio %s, pid %s): %s\n' "$x" "${SMS_NODE[$x]}" "${SMS_PRIO[$x]}" \
			"$(sms_pid "$x")" "$(tr -d '\n' <"$(sms_state "$x")" 2>/dev/null |
			sed -n 's/.*"replication": \({[^}]*}\).*/\1/p')"
	done
}
