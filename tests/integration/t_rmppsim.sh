# librmppsim (tests/rmppsim) gives umad users RMPP under ibsim: OpenSM's
# SA answers a GetTable of 600 ServiceRecords (about 530 segments) and
# stock saquery, both under the shim, gets all of them; without the shim
# saquery sees the first segment only (one record). Under 10% MAD loss on
# the reader's port the transfer completes or fails cleanly, never hangs.
. "$top_srcdir/tests/integration/harness.sh"
[ -n "$SAQUERY" ] || skip "saquery not installed"
[ -e "${RMPP_PRELOAD%% *}" ] || skip "librmppsim not built (make check builds it)"

echo "max_records_per_port 0" >"$RUN/osmats.conf"
# OpenSM's shim logs each send it starts and ends (opensm.out): the
# tests below wait for its sends to a reader that went away to end.
RMPPSIM_DEBUG=1 fabric_start fabric4.net

# Every RMPP send OpenSM started has ended (done, or failed after its
# resends): nothing more goes to a port whose reader is gone.
sends_ended() {
	local started ended
	started=$(grep -c 'bytes in [0-9]* segments' "$RUN/opensm.out")
	ended=$(grep -cE ': (done|failed) after [0-9]* segments' "$RUN/opensm.out")
	[ "$ended" -ge "$started" ]
}

# saquery -S on NODE with PRELOAD; its ServiceRecords counted. Bounded:
# a hang is exit status 124.
sr_count() {
	local node=$1 preload=$2
	shift 2
	(cd "$RUN/scratch" && SIM_HOST=$node LD_PRELOAD=$preload \
		timeout 60 "$SAQUERY" "$@" -S) >"$RUN/saq.out" 2>"$RUN/saq.err"
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
sr_count host3 "$RMPP_PRELOAD"
echo "# saquery -S of 600 records in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
check "with the shim saquery -S prints all 600 (got $SAQ_N, rc $SAQ_RC)" \
	test "$SAQ_N" -eq 600 -a "$SAQ_RC" -eq 0
check "... intact: their ServiceIDs are 0x1000..0x1257" ids_ok

# saquery without the shim reads the first segment as the whole answer
# and ACKs nothing: OpenSM's shim resends that segment for 10 x 20 ms,
# then gives up. Nothing else may start on host3 meanwhile (a MAD before
# its registrations crashes umad2sim: ibsim note, limit 2).
sr_count host3 "$PLAIN_PRELOAD"
check "without the shim saquery -S prints one record (got $SAQ_N, rc $SAQ_RC)" \
	test "$SAQ_N" -eq 1
wait_for "OpenSM's resends to end" 10 sends_ended
check "OpenSM still answers a one-record Get" srtool host4 --sid $((0x1000 + 599)) \
	--gid "$(port_gid host1)" get

# 10% of the MADs through host2's port dropped, both ways: segments and
# ACKs are lost and resent, each loss costing the sender one ACK wait
# (20 ms): a transfer takes 1 to 2 s, past saquery's default timeout
# (-t 5000). A lost GetTable request is a clean failure (saquery times
# out); so is an ABORT after too many resends.
sim 'Error "host2"[1] 10'
ok=0
for i in 1 2 3; do
	t0=$(date +%s%N)
	sr_count host2 "$RMPP_PRELOAD" -t 5000
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
	# After a failure OpenSM resends for up to 10 x 20 ms to the gone
	# reader; the next process on that port must not get them before it
	# registers (umad2sim crashes: ibsim note, limit 2).
	wait_for "OpenSM's resends to end" 10 sends_ended
done
echo "# lossy runs complete: $ok of 3"
# A reader that gives up mid-transfer (300 ms): saquery fails with its
# timeout, and its shim ABORTs the transfer as it closes the port.
t0=$(date +%s%N)
sr_count host2 "$RMPP_PRELOAD" -t 300
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "# impatient lossy saquery -S: $SAQ_N records, rc $SAQ_RC, $ms ms"
check "an impatient reader fails cleanly (rc $SAQ_RC, $SAQ_N records, $ms ms)" \
	test "$SAQ_RC" -ne 0 -a "$SAQ_RC" -lt 124 -a "$SAQ_N" -eq 0 -a "$ms" -lt 5000
wait_for "OpenSM's resends to end" 10 sends_ended
sim 'Error "host2"[1] 0'
sr_count host2 "$RMPP_PRELOAD"
check "after the loss stops saquery -S on host2 prints all 600 (got $SAQ_N)" \
	test "$SAQ_N" -eq 600
check "OpenSM is still up" kill -0 "$SM_PID"
finish
