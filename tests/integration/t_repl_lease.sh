# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Finite leases across a failover: they count on at the new master from
# what was left (not from the takeover, not from the start), and a record
# whose lease ran out at the old master does not come back.
. "$top_srcdir/tests/integration/harness.sh"
repl_fabric fabric4.net
second_sm host3 10
check "in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
t0=$(date +%s)
check "A: lease 11 s" srtool host1 --sid 0x5001 --name other --lease 11 set
check "B: lease 40 s" srtool host1 --sid 0x5002 --name other --lease 40 set
check "C: lease 3 s" srtool host1 --sid 0x5003 --name other --lease 3 set
# Leases are the subject: C's 3 s run out at the old master before it
# dies, A's 11 s at the new one (time passing, not a wait for readiness).
sleep 5
sm_kill "$SM_PID"
check "the standby takes over" wait_for "the second master" 30 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
grep "installed\|WRN 7A42" "$RUN/sm2/osm.log"
check "it installed A and B" grep -q "installed 2 ServiceRecords" "$RUN/sm2/osm.log"
check "the SA answers" wait_for "the SA" 20 sa_answers host4
echo "# takeover done $(( $(date +%s) - t0 )) s after the Sets"
while [ $(( $(date +%s) - t0 )) -lt 14 ]; do sleep 0.2; done
check_rc "A expired at the new master" 3 "status 0x0300" srtool host1 --sid 0x5001 delete
check_out "B is still there" "status 0x0000" srtool host1 --sid 0x5002 delete
check_rc "C did not come back" 3 "status 0x0300" srtool host1 --sid 0x5003 delete
finish
