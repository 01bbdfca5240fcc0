# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The soak's faults (tests/soak/soak.sh, doc/soak.md). fault_pick draws
# one kind from $RANDOM (seeded: SOAK_SEED replays the sequence); each
# fault_KIND injects it and returns once its own steps are done (a killed
# process restarted, a link back); the settle after it is the caller's.
# Each sets FAULT_DESC. SA writes are timed during the faults where an SA
# serves (inv_write), not while the master is dead or handing over.

FAULT_KINDS="kill_master kill_standby kill_agent handover flap loss churn storm liar"
# SOAK_KINDS="flap liar": draw only these (to chase one fault's findings).
[ -n "${SOAK_KINDS:-}" ] && FAULT_KINDS=$SOAK_KINDS
declare -A FAULT_WEIGHT=([kill_master]=2 [kill_standby]=2 [kill_agent]=2 [handover]=2
	[flap]=2 [loss]=2 [churn]=4 [storm]=2 [liar]=1)
FAULT_LIAR_OFF=""     # why the lying puller is skipped, once known
REPLTOOL="$top_builddir/tests/tools/repltool"
MCJOIN="$top_builddir/tests/tools/mcjoin"

fault_eligible() {
	case $1 in
	handover) sms_can_hand_over ;;
	liar) [ -z "$FAULT_LIAR_OFF" ] ;;
	*) return 0 ;;
	esac
}

# fault_pick: the next kind in FAULT_KIND. (Draws set variables, never
# echo from a $(...) subshell: there $RANDOM would not advance.)
fault_pick() {
	local k total=0 r
	for k in $FAULT_KINDS; do
		total=$((total + FAULT_WEIGHT[$k]))
	done
	while :; do
		r=$((RANDOM % total))
		for k in $FAULT_KINDS; do
			r=$((r - FAULT_WEIGHT[$k]))
			[ "$r" -lt 0 ] && break
		done
		fault_eligible "$k" && { FAULT_KIND=$k; return; }
	done
}

# A random agent node in FAULT_NODE; a random duration of LO..HI tenths
# of seconds in FAULT_SECS ("2.5").
fault_agent() { FAULT_NODE=${AGENTS[$((RANDOM % ${#AGENTS[@]}))]}; }
fault_secs() {
	local v=$(($1 + RANDOM % ($2 - $1 + 1)))
	FAULT_SECS=$((v / 10)).$((v % 10))
}

# kill -9 of the master: the standby takes over; the dead one comes back
# as standby after a short while (late answers to its ibsim client slot
# gone first: harness sm_kill).
fault_kill_master() {
	local m s n pause
	m=$SMS_MASTER
	s=$(sms_other "$m")
	fault_secs 10 30
	pause=$FAULT_SECS
	FAULT_DESC="kill -9 master $m, standby $s takes over, $m back in ${pause}s"
	n=$(sms_count "$s" 'SUBNET UP')
	sms_kill "$m"
	sms_wait_up "$s" "$n" && sms_promote "$s"
	sleep "$pause"
	sms_set_prio "$m" 14
	sms_launch "$m"
}

# kill -9 of the standby: the master drops it after the ack timeout D,
# so a write waits at most D (timed); it comes back and catches up.
fault_kill_standby() {
	local s pause
	s=$(sms_standby)
	fault_secs 5 30
	pause=$FAULT_SECS
	FAULT_DESC="kill -9 standby $s, back in ${pause}s"
	sms_kill "$s"
	inv_write "while the standby is dead"
	sleep "$pause"
	sms_set_prio "$s" 14
	sms_launch "$s"
}

fault_kill_agent() {
	local n pid
	fault_agent
	n=$FAULT_NODE
	FAULT_DESC="kill -9 atsd on $n, restarted"
	pid=${PROCS_PID[atsd-$n]}
	# Its static record must stay in the SA all along: watched closely
	# from before the kill until the new atsd has synced and a while more.
	probe_focus "${MODEL_STATIC[$n]}"
	procs_forget "atsd-$n"
	sm_kill "$pid"
	sleep 0.3
	soak_agent_start "$n"
	wait_for "atsd on $n to sync" 20 sh -c "'$ATSCTL' -S '$RUN/atsd-$n.sock' status | grep -q ' ${MODEL_STATIC[$n]} .*registered'"
	sleep 2
	probe_focus
}

fault_handover() {
	FAULT_DESC="handover: master $SMS_MASTER (priority ${SMS_PRIO[$SMS_MASTER]}) below standby $(sms_standby) (${SMS_PRIO[$(sms_standby)]})"
	sms_hand_over
}

# A host's link down and up again; the master sweeps at each (no sweeps
# on traps under ibsim: two_sm_opts) and flushes the departed port's
# records (checked: while it is away its agent wants nothing there); its
# agent registers them again when the port is back.
fault_flap() {
	local n down
	fault_agent
	n=$FAULT_NODE
	fault_secs 10 50
	down=$FAULT_SECS
	FAULT_DESC="link of $n down for ${down}s"
	probe_excuse_begin "$n"
	sim "Unlink \"$n\""
	sms_sweep "$SMS_MASTER"
	# Its port left: flush_departed (default yes) removed its records.
	MODEL_OFF=$n
	inv_table_within 10 "$n unplugged"
	inv_write "while $n is unplugged"
	MODEL_OFF=""
	sleep "$down"
	sim "ReLink \"$n\""
	sms_sweep "$SMS_MASTER"
}

# 10% of the MADs through a host's port dropped for a few seconds (ibsim
# console "Error": a drop rate per port).
fault_loss() {
	local n secs
	fault_agent
	n=$FAULT_NODE
	fault_secs 20 60
	secs=$FAULT_SECS
	FAULT_DESC="10% loss on $n's port for ${secs}s"
	sim "Error \"$n\"[1] 10"
	inv_write "during loss on $n"
	sleep "$secs"
	sim "Error \"$n\"[1] 0"
}

# Addresses on an agent's interface (its network namespace): one added,
# one removed, or one moved to another agent (removed, gone from the
# first agent's records, then added: else the duplicate-address rule
# refuses the second agent for refused_retry).
fault_churn() {
	local a b i ip op=$((RANDOM % 3))
	fault_agent
	a=$FAULT_NODE
	[ "$op" -ne 0 ] && [ "$(model_count "$a")" -eq 0 ] && op=0
	[ "$op" -eq 0 ] && [ "$(model_count "$a")" -ge 4 ] && op=1
	if [ "$op" -eq 0 ]; then
		model_new_ip
	else
		model_pick "$a"
	fi
	ip=$MODEL_IP
	case $op in
	0)
		FAULT_DESC="address $ip added on $a"
		ip -n "$(ns "$a")" addr add "$ip/32" dev v0
		model_add "$a" "$ip"
		;;
	1)
		FAULT_DESC="address $ip removed from $a"
		ip -n "$(ns "$a")" addr del "$ip/32" dev v0
		model_del "$a" "$ip"
		;;
	2)
		# Another agent than a: the next one 1..n-1 places on.
		for i in "${!AGENTS[@]}"; do
			[ "${AGENTS[$i]}" = "$a" ] && break
		done
		b=${AGENTS[$(((i + 1 + RANDOM % (${#AGENTS[@]} - 1)) % ${#AGENTS[@]}))]}
		FAULT_DESC="address $ip moved from $a to $b"
		ip -n "$(ns "$a")" addr del "$ip/32" dev v0
		model_del "$a" "$ip"
		wait_for "$a to drop $ip" 20 sh -c "! '$ATSCTL' -S '$RUN/atsd-$a.sock' status | grep -q ' $ip '"
		ip -n "$(ns "$b")" addr add "$ip/32" dev v0
		model_add "$b" "$ip"
		;;
	esac
}

# A storm of Sets from the storm node, host8 (ATS records: one record set again
# and again; or other services' records, SIDs counting up), a write
# timed meanwhile, then everything it set deleted. Two tool processes:
# the prober pauses.
fault_storm() {
	local n=$((100 + RANDOM % 400)) pid what
	probe_pause
	if [ $((RANDOM % 2)) -eq 0 ]; then
		FAULT_DESC="storm of $n Sets of one ATS record"
		what=(--ip 10.250.1.1)
		procs_run 120 "$RUN/storm.out" "$STORM" "$SRTOOL" "${what[@]}" --repeat "$n" set &
	else
		FAULT_DESC="storm of $n Sets of other services' records"
		what=(--sid 0x5000000 --name other --count "$n")
		procs_run 120 "$RUN/storm.out" "$STORM" "$SRTOOL" "${what[@]}" set &
	fi
	pid=$!
	inv_write "during a Set storm"
	wait "$pid"
	cat "$RUN/storm.out" >>"$RUN/tools.log"
	procs_run 120 "$RUN/storm.out" "$STORM" "$SRTOOL" "${what[@]}" delete
	cat "$RUN/storm.out" >>"$RUN/tools.log"
	probe_resume
}

# A lying puller: the tool node pulls the master's replication log with
# the replication key file (a host holding the credential), gets in
# sync, then keeps asking for the same change without ever acking it.
# The master must not hold SA writes for it longer than the ack timeout.
fault_liar() {
	local lid out epoch head secs pid
	lid=${SMS_LID[$SMS_MASTER]}
	probe_pause
	procs_run 10 "$RUN/liar.out" "$TOOL" "$REPLTOOL" "$lid" --key-file "$RUN/repl.key" --next 1
	out=$(cat "$RUN/liar.out")
	epoch=$(echo "$out" | sed -n 's/^answer kind 5 epoch \(0x[0-9a-f]*\) head \([0-9]*\) .*/\1/p')
	head=$(echo "$out" | sed -n 's/^answer kind 5 epoch \(0x[0-9a-f]*\) head \([0-9]*\) .*/\2/p')
	if [ -z "$epoch" ]; then
		FAULT_LIAR_OFF="repltool cannot authenticate to the master (${out//$'\n'/ }): lying puller skipped"
		FAULT_DESC="lying puller skipped: $FAULT_LIAR_OFF"
		probe_resume
		return
	fi
	fault_secs 20 60
	secs=$FAULT_SECS
	FAULT_DESC="lying puller on $TOOL for ${secs}s (in sync at seq $head, never acks)"
	(
		end=$(($(date +%s%3N) + ${secs/./} * 100))
		while [ "$(date +%s%3N)" -lt "$end" ]; do
			procs_run 10 "$RUN/liar.out" "$TOOL" "$REPLTOOL" "$lid" --key-file "$RUN/repl.key" \
				--epoch "$epoch" --next $((head + 1)) --timeout 400
		done
	) &
	pid=$!
	# The timed write once the master waits for the liar too (its state
	# file shows two standbys in sync within a second or so).
	wait_for "the liar in sync" 5 repl_is "$(sms_state "$SMS_MASTER")" standbys_in_sync=2 ||
		echo "# the liar did not show in sync: the write is timed all the same"
	inv_write "with a lying puller"
	wait "$pid"
	probe_resume
}
