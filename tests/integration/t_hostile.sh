# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Malformed MADs from a hostile host to an agent and to the SM: nobody
# crashes, the SA keeps nothing of them, the plugin's counters move.
. "$top_srcdir/tests/integration/harness.sh"

# The MRA storm below: a short packet life (OpenSM's PathRecords carry
# subnet_timeout) and host3's ib_cm with few, short REQ retries.
echo "subnet_timeout 12" >"$RUN/opensm.extra"
echo "--cm-retries 2 --cm-timeout 14" >"$RUN/simhost-host3.extra"
fabric_up fabric4.net host2
agent_start host2 "address 10.0.0.2 primary" "cm_listen 5001"
check "host2's agent registered" wait_for "record" 10 has_primary host3 "$G2"
L2=$(port_lid host2)

check_out "host1 sends its hostile MADs" "^sent [0-9]+ hostile MADs" \
	on host1 "$top_builddir/tests/tools/hostile" "$L2" 1
check "the agent is alive" agent host2 status
check_out "... and still answers liveness" "1 received" atsctl host1 ping "$L2" -c 1
check "OpenSM is alive: the SA answers" sa_answers host3
check_count "the SA kept nothing of them: one ATS record in all" 1 atsctl host3 -n dump
check "the plugin refused ATS Sets and counted them" wait_for "the counter" 10 \
	grep -Eq '"rejected": \{"sid-block": [1-9]' "$RUN/osmats-state.json"
check_out "... with numbered log lines" "WRN 7A0[0-9]: ATS rule" cat "$RUN/osm.log"
check "a real connection still works afterwards" \
	agent host2 connections

# An MRA storm cannot hold a requester for ever (issue 25 item 3;
# simhost/RDMACM.md 5). ib_cm (Linux cm.c) sends a REQ with timeout
# 2*ms(PLT) + ms(CM response timeout) and max_cm_retries retries, ms(t) =
# 2^(t-8) (cm_convert_to_ms); the first MRA of the REQ makes each try wait
# ms(MRA service timeout) + ms(PLT + 1) instead, for the retries too; every
# later MRA is a duplicate and ignored. OpenSM's default PLT 18 and the
# kernel's 15 retries would make it 16 tries of 2 s and more. Here PLT 12
# (16 ms; the QP's ack timeout 13: 32 ms), host3's 2 retries and CM timeout
# 14 (a REQ waits 2*16 + 64 = 96 ms) and MRA service timeout 17 (512 ms):
# 3 tries of 512 + 32 = 544 ms, 1632 ms in all. MRAs ignored would give
# 288 ms; each MRA restarting the wait or resending the REQ (as atsd's own
# CM once did), no end.
UCMATOSE=$(command -v ucmatose) || skip "ucmatose (rdmacm-utils) is not installed"
MRA_BOUND=1632
# Process start, address and route resolution on a loaded machine.
MRA_SLACK=3000
check "host3's admin loads ib_cm" simhost host3 modprobe ib_cm
on host1 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/storm.pid" \
	"$top_builddir/tests/tools/hostile" mra 17 >"$RUN/storm.out" 2>&1 &
T_PIDS="$T_PIDS $!"
check "host1 (no ib_cm) serves the CM class and storms" \
	wait_for "the storm" 10 grep -q "^storming" "$RUN/storm.out"
T_PIDS="$T_PIDS $(cat "$RUN/storm.pid")"
G1=$(port_gid host1)
T0=$(date +%s%3N)
on host3 timeout 10 "$UCMATOSE" -f gid -s "$G1" -C 0 >"$RUN/mra.out" 2>&1
MRA_MS=$(($(date +%s%3N) - T0))
stop_pid "$(cat "$RUN/storm.pid")"
check_out "ucmatose from host3 to host1 fails: UNREACHABLE, -ETIMEDOUT" \
	"event: RDMA_CM_EVENT_UNREACHABLE, error: -110" cat "$RUN/mra.out"
check "... after $MRA_MS ms: no sooner than 3 MRA-extended tries ($MRA_BOUND ms)" \
	test "$MRA_MS" -ge "$MRA_BOUND"
check "... and no later than that bound + ${MRA_SLACK} ms" \
	test "$MRA_MS" -le $((MRA_BOUND + MRA_SLACK))
check_out "host1 saw the REQ 3 times (1 + --cm-retries 2)" "^3$" grep -c "^REQ " "$RUN/storm.out"
check_out "... and answered with a storm of MRAs" "^sent ([2-9][0-9]|[1-9][0-9]{2,}) MRAs$" \
	cat "$RUN/storm.out"
finish
