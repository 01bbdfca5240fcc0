# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The simulated kernel's RMPP (simhost/kernel/krmpp.c, as Linux
# mad_rmpp.c): OpenSM's SA answers a GetTable of 600 ServiceRecords
# (about 530 segments) and stock saquery gets all of them; on a node
# whose MAD layer has no RMPP (`simhost NODE rmpp off`) saquery sees the
# first segment only (one record). Under MAD loss on the reader's port
# (10%: ibsim's own error rate on the port; all of the class: simhost's
# `drop`) a transfer completes or fails cleanly, never hangs.
. "$top_srcdir/tests/integration/harness.sh"
[ -n "$SAQUERY" ] || skip "saquery not installed"

echo "max_records_per_port 0" >"$RUN/osmats.conf"
fabric_start fabric4.net

# saquery -S on NODE; its ServiceRecords counted. Bounded: a hang is
# exit status 124.
sr_count() {
	local node=$1
	shift
	on "$node" timeout 60 "$SAQUERY" "$@" -S >"$RUN/saq.out" 2>"$RUN/saq.err"
	SAQ_RC=$?
	SAQ_N=$(grep -c '^ServiceRecord dump' "$RUN/saq.out")
}

# The ServiceIDs saquery printed are exactly those set (a segment with a
# garbled byte would show as a wrong or missing one).
ids_ok() {
	sed -n 's/^[[:space:]]*ServiceID\.*0x0*\([0-9a-fA-F]*\)$/\1/p' "$RUN/saq.out" |
		tr a-f A-F | sort >"$RUN/ids.got"
	for i in $(seq 0 599); do printf '%X\n' $((0x1000 + i)); done | sort >"$RUN/ids.want"
	diff "$RUN/ids.want" "$RUN/ids.got" | head -5
	cmp -s "$RUN/ids.want" "$RUN/ids.got"
}

check_out "600 ServiceRecords set" "set 600" srtool host1 --sid 0x1000 --name other --count 600 set

t0=$(date +%s%N)
sr_count host3
echo "# saquery -S of 600 records in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
check "saquery -S prints all 600 (got $SAQ_N, rc $SAQ_RC)" \
	test "$SAQ_N" -eq 600 -a "$SAQ_RC" -eq 0
check "... intact: their ServiceIDs are 0x1000..0x1257" ids_ok

# Without RMPP in host3's MAD layer saquery reads the first segment as
# the whole answer and ACKs nothing: OpenSM's kernel resends that
# segment until its transfer times out, to a reader long gone.
check_out "host3's MAD layer without RMPP" ok simhost host3 rmpp off
sr_count host3
check "without RMPP saquery -S prints one record (got $SAQ_N, rc $SAQ_RC)" \
	test "$SAQ_N" -eq 1
check_out "host3's MAD layer with RMPP again" ok simhost host3 rmpp on
check "OpenSM still answers a one-record Get" srtool host4 --sid $((0x1000 + 599)) \
	--gid "$(port_gid host1)" get

# 10% of the MADs reaching host2's port dropped (ibsim's error rate on
# the port): segments are lost and resent, each loss costing the sender
# one ACK wait (2 s: OpenSM's answers go with timeout 0, mad_rmpp.c
# send_next_seg), so a transfer of 530 segments rarely fits saquery's
# -t 5000, as on a host. A lost GetTable request is a clean failure
# (saquery times out); so is a sender out of retries (OpenSM's 3).
sim 'Error "host2"[1] 10'
ok=0
for i in 1 2 3; do
	t0=$(date +%s%N)
	sr_count host2 -t 5000
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "# lossy saquery -S $i: $SAQ_N records, rc $SAQ_RC, $ms ms"
	check "lossy run $i: ends within 60 s (rc $SAQ_RC)" test "$SAQ_RC" -ne 124
	if [ "$SAQ_RC" -eq 0 ]; then
		check "lossy run $i: all 600, intact" ids_ok
		ok=$((ok + 1))
	else
		check "lossy run $i: a clean failure (rc $SAQ_RC, no records)" \
			test "$SAQ_RC" -lt 124 -a "$SAQ_N" -eq 0
	fi
done
echo "# lossy runs complete: $ok of 3"
# A reader that gives up mid-transfer (300 ms): saquery fails with its
# timeout, and its kernel drops the transfer as the agent goes
# (mad_rmpp.c ib_cancel_rmpp_recvs).
t0=$(date +%s%N)
sr_count host2 -t 300
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "# impatient lossy saquery -S: $SAQ_N records, rc $SAQ_RC, $ms ms"
check "an impatient reader fails cleanly (rc $SAQ_RC, $SAQ_N records, $ms ms)" \
	test "$SAQ_RC" -ne 0 -a "$SAQ_RC" -lt 124 -a "$SAQ_N" -eq 0 -a "$ms" -lt 5000
sim 'Error "host2"[1] 0'

# Every SA MAD reaching host2 lost (`drop 0x03 on`): the answer never
# comes, saquery's request times out in its kernel, a clean failure.
check_out "host2 loses every SA MAD" ok simhost host2 drop 0x03 on
t0=$(date +%s%N)
sr_count host2 -t 500
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "with no SA MAD reaching it saquery fails cleanly (rc $SAQ_RC, $SAQ_N records, $ms ms)" \
	test "$SAQ_RC" -ne 0 -a "$SAQ_RC" -lt 124 -a "$SAQ_N" -eq 0 -a "$ms" -lt 10000
check_out "host2 loses nothing" ok simhost host2 drop 0x03 off

sr_count host2
check "after the loss stops saquery -S on host2 prints all 600 (got $SAQ_N)" \
	test "$SAQ_N" -eq 600

# One segment of the answer lost (host2 loses SA MADs until one is
# lost; the first window is one segment): OpenSM's kernel waits 2 s for
# the ACK that never comes, resends from the last ACK (ib_retry_rmpp),
# and the GetTable completes then, within saquery's -t 5000.
lost() { "$SIMHOSTD" -n host2 -d "$SIMHOST_DIR" -C status | tr ' ' '\n' | sed -n 's/^lost=//p'; }
lost_more() { [ "$(lost)" -gt "$1" ]; }
L0=$(lost)
check_out "host2 loses SA MADs" ok simhost host2 drop 0x03 on
t0=$(date +%s%N)
sr_count host2 -t 5000 &
SR_PID=$!
check "one segment lost on host2" wait_for "a lost SA MAD" 10 lost_more "$L0"
check_out "host2 loses nothing again" ok simhost host2 drop 0x03 off
wait "$SR_PID"
sr_count_rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
N=$(grep -c '^ServiceRecord dump' "$RUN/saq.out")
echo "# saquery -S with its first segment lost: $N records, $ms ms"
check "with one segment lost the GetTable completes after the kernel's ACK wait ($N records, $ms ms)" \
	test "$N" -eq 600 -a "$ms" -ge 1900 -a "$ms" -lt 5000
check "OpenSM is still up" kill -0 "$SM_PID"
finish
