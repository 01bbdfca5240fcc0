# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The soak's invariants (tests/soak/soak.sh, doc/soak.md). Each check is
# one TAP result (harness counters T_N, T_PASS, T_FAIL); a failed one is
# a violation, listed with its time in $RUN/violations for the report.
#   table  the SA's ATS records equal what the live agents want (model.sh)
#   write  an SA write (a ServiceRecord Set and Delete, an MCMemberRecord
#          join and leave) is answered within D + 1 s
#   lost   no static record of a live agent on the fabric is ever missing
#          (the prober, probe.sh)
#   sms    after a fault the SMs settle: one master, the standby in sync
#   crash  every process the soak did not kill lives; no sanitizer report
#   rss    no process's VmRSS grows past its bound (procs.sh)

declare -A INV_CHECKS INV_VIOL
# D: the ack timeout the master waits for a silent standby, derived from
# sminfo_polling_timeout (osmats.conf(5), replication_ack_timeout):
# 1000 ms under two_sm_opts, + 3 s.
INV_D_MS=4000
INV_WRITE_IP=10.250.0.1
INV_SAN_SEEN=0

# inv_result 0|1 INVARIANT DESCRIPTION [DETAILS]
inv_result() {
	local st=$1 inv=$2 desc=$3 details=${4:-}
	T_N=$((T_N + 1))
	INV_CHECKS[$inv]=$((${INV_CHECKS[$inv]:-0} + 1))
	if [ "$st" -eq 0 ]; then
		T_PASS=$((T_PASS + 1))
		echo "ok $T_N - $inv: $desc"
	else
		T_FAIL=$((T_FAIL + 1))
		INV_VIOL[$inv]=$((${INV_VIOL[$inv]:-0} + 1))
		echo "not ok $T_N - $inv: $desc"
		[ -n "$details" ] && echo "$details" | sed 's/^/#   /'
		{
			echo "${SECONDS}s $inv: $desc"
			[ -n "$details" ] && echo "$details" | sed 's/^/    /'
		} >>"$RUN/violations"
	fi
}

# The SA's ATS records as "GID IP 1|0", sorted; fails when the SA does
# not answer (atsctl dump: one GetTable, RMPP in the simulated kernel).
inv_sa_records() {
	procs_run 60 "$RUN/dump.out" "$TOOL" "$ATSCTL" -n -t 300 -r 5 dump
	[ $? -le 1 ] || return 1
	awk '/^0x/ { print $2, $5, ($6 == "(primary)") }' "$RUN/dump.out" | sort
}

# inv_table_diff: compare; prints the differences, fails on any.
inv_table_diff() {
	local got want ip
	got=$(inv_sa_records) || { echo "the SA did not answer a dump"; return 1; }
	want=$(model_want)
	[ "$got" = "$want" ] && return 0
	comm -23 <(echo "$want") <(echo "$got") | sed 's/^/lost: /'
	comm -13 <(echo "$want") <(echo "$got") | while read -r _ ip _; do
		if model_removed "$ip"; then
			echo "came back (removed before): $(echo "$got" | grep " $ip ")"
		else
			echo "stale: $(echo "$got" | grep " $ip ")"
		fi
	done
	return 1
}

# inv_table WHEN: one read, no waiting (between faults: nothing may have
# changed since the last settle; a deleted record back shows here).
inv_table() {
	local d
	d=$(inv_table_diff)
	# A read that timed out is tried once more; a difference stands.
	[ "$d" = "the SA did not answer a dump" ] && sleep 1 && d=$(inv_table_diff)
	if [ -z "$d" ]; then
		inv_result 0 table "$1: the SA holds exactly the $(model_want | wc -l) wanted ATS records"
	else
		inv_result 1 table "$1: the SA's ATS records differ from the agents' addresses" "$d"
	fi
}

# inv_table_within SECONDS WHEN: poll the table until it is right.
inv_table_within() {
	local end=$((SECONDS + $1)) d
	while :; do
		d=$(inv_table_diff) && break
		[ "$SECONDS" -ge "$end" ] && break
		sleep 0.5
	done
	inv_result "$([ -z "$d" ] && echo 0 || echo 1)" table \
		"$2: within ${1}s the SA holds exactly the $(model_want | wc -l) wanted ATS records" "$d"
}

# inv_settle SECONDS: poll until the SMs are settled and the table is
# right, then check both; what still differs at the bound is a violation.
inv_settle() {
	local end=$((SECONDS + $1)) d="" t0=$SECONDS
	while [ "$SECONDS" -lt "$end" ]; do
		if sms_settled && [ -z "$(procs_dead)" ] && d=$(inv_table_diff); then
			inv_result 0 sms "settled in $((SECONDS - t0))s (master $SMS_MASTER, standby in sync)"
			inv_result 0 table "settled: the SA holds exactly the $(model_want | wc -l) wanted ATS records"
			return 0
		fi
		sleep 0.5
	done
	if sms_settled; then
		inv_result 0 sms "settled (master $SMS_MASTER, standby in sync)"
	else
		inv_result 1 sms "not settled ${1}s after the fault" "$(sms_describe)"
	fi
	d=$(inv_table_diff)
	inv_result "$([ -z "$d" ] && echo 0 || echo 1)" table \
		"settled within ${1}s: the SA's ATS records equal the agents' addresses" "$d"
	return 1
}

# inv_timed VAR NODE PROGRAM ARGS...: run it (procs_run), its time in
# ms in VAR (to its answer when it hung at exit: its printed result, OK,
# then counts); its exit status, as OK says for a hung one.
inv_timed() {
	local var=$1 ok=$2 rc
	shift 2
	procs_run $((INV_D_MS / 1000 + 6)) "$RUN/timed.out" "$@"
	rc=$?
	cat "$RUN/timed.out" >>"$RUN/tools.log"
	printf -v "$var" '%s' "$PROCS_RUN_MS"
	[ "$rc" -eq 124 ] && grep -Eq "$ok" "$RUN/timed.out" && rc=0
	return $rc
}

# inv_write WHEN: a ServiceRecord Set and Delete (atsctl register and
# deregister, patient for D + 2 s, no retry), then an MCMemberRecord join
# and leave (tests/tools/mcjoin, IPoIB's join), each within D + 1 s.
inv_write() {
	local lim=$((INV_D_MS + 1000)) s d j l rs rd rj rl bad=""
	inv_timed s '^registered' "$TOOL" "$ATSCTL" -n -t $((INV_D_MS + 2000)) -r 0 \
		register "$INV_WRITE_IP" --primary
	rs=$?
	inv_timed d '^deregistered' "$TOOL" "$ATSCTL" -n -t $((INV_D_MS + 2000)) -r 0 \
		deregister "$INV_WRITE_IP"
	rd=$?
	[ "$rs" -eq 0 ] && [ "$rd" -ne 0 ] && bad="the Delete failed (exit $rd); "
	[ "$rs" -ne 0 ] && bad="the Set failed (exit $rs); "
	# Whatever failed, leave no probe record behind for the table check.
	[ "$rd" -eq 0 ] || [ "$rd" -eq 1 ] ||
		procs_run 30 "$RUN/timed.out" "$TOOL" "$ATSCTL" -n -t 500 -r 8 deregister "$INV_WRITE_IP"
	[ "$s" -le "$lim" ] && [ "$d" -le "$lim" ] || bad="${bad}over ${lim} ms; "
	inv_result "$([ -z "$bad" ] && echo 0 || echo 1)" write \
		"$1: ServiceRecord Set $s ms, Delete $d ms" "${bad:+$bad(D = $INV_D_MS ms)}"
	bad=""
	inv_timed j '^join: MLID' "$TOOL" "$MCJOIN" join
	rj=$?
	inv_timed l '^leave: done' "$TOOL" "$MCJOIN" leave
	rl=$?
	[ "$rj" -eq 0 ] && [ "$rl" -eq 0 ] || bad="join exit $rj, leave exit $rl; "
	[ "$j" -le "$lim" ] && [ "$l" -le "$lim" ] || bad="${bad}over ${lim} ms; "
	inv_result "$([ -z "$bad" ] && echo 0 || echo 1)" write \
		"$1: MCMemberRecord join $j ms, leave $l ms" "$bad"
}

# inv_alive WHEN: no tracked process gone, no new sanitizer report.
inv_alive() {
	local dead san n
	dead=$(procs_dead)
	for n in $(echo "$dead" | awk '$1 ~ /^atsd-/ { sub(/^atsd-/, "", $1); print $1 }'); do
		dead="$dead
last lines of atsd-$n.log:
$(tail -n 5 "$RUN/atsd-$n.log")"
	done
	inv_result "$([ -z "$dead" ] && echo 0 || echo 1)" crash "$1: every process lives" \
		"${dead:+gone: $dead}"
	# A dead one is reported once: it is no longer watched.
	for n in $(echo "$dead" | awk '$2 ~ /^\(/ { print $1 }'); do
		procs_forget "$n"
	done
	san=$(procs_sanitizers)
	n=$(printf '%s' "$san" | grep -c .)
	if [ "$n" -gt "$INV_SAN_SEEN" ]; then
		inv_result 1 crash "$1: sanitizer reports" "$(echo "$san" | tail -n +$((INV_SAN_SEEN + 1)) | head -20)"
		INV_SAN_SEEN=$n
	fi
}

inv_rss() {
	local over
	procs_rss
	over=$(cat "$RUN/rss.over")
	inv_result "$([ -z "$over" ] && echo 0 || echo 1)" rss \
		"$1: every process's VmRSS within 1.5 x its baseline + $PROCS_RSS_SLACK_KB kB" "$over"
}

inv_lost() {
	local lost
	# Not in $(...): probe_judge's counters must reach this shell.
	probe_judge >"$RUN/probe.lost"
	lost=$(cat "$RUN/probe.lost")
	inv_result "$([ -z "$lost" ] && echo 0 || echo 1)" lost \
		"$1: $PROBE_N lookups of static addresses, $PROBE_MISSING missing (excused on unplugged ports), $PROBE_NOANSWER unanswered" \
		"$lost"
}
