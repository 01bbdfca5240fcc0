# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A standby SM that restarts within a minute of its first snapshot is
# served that old snapshot again (the master reuses it while the log can
# continue it), and the master still counts it as in sync with the acks
# of its earlier life. It must not report itself in sync, nor install its
# copy, before it has caught up: here 600 records deleted (and answered)
# after the first snapshot must not come back when the master dies during
# the catch-up.
. "$top_srcdir/tests/integration/harness.sh"
repl_fabric fabric4.net
check "host1 sets 600 records" srtool host1 --sid 0x1000 --name other --count 600 set
second_sm host3 10
check "standby" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
check "in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
check "host1 deletes the 600 records" srtool host1 --sid 0x1000 --count 600 delete
check "the master's SA holds none of them" sh -c "! atsctl host4 -n dump 2>/dev/null | grep -qi 'other'"
kill -9 "$SM2"; wait "$SM2" 2>/dev/null
n=$(grep -c "snapshot of" "$RUN/sm2/osm.log")
second_sm host3 10
# Freeze the master (a death) the moment the restarted standby has its
# snapshot: it is then 600 changes behind.
for i in $(seq 4000); do
	[ "$(grep -c 'snapshot of' "$RUN/sm2/osm.log")" -gt "$n" ] && break
	sleep 0.005
done
kill -STOP "$SM_PID"
grep "snapshot of\|in sync" "$RUN/sm2/osm.log" | tail -3
check "the restarted standby has its second snapshot" \
	test "$(grep -c 'snapshot of' "$RUN/sm2/osm.log")" -gt "$n"
sm_kill "$SM_PID"
check "the standby takes over" wait_for "the second master" 30 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
grep "osmats replication\|7A4" "$RUN/sm2/osm.log" | tail -4
check "SA answers" wait_for "sa" 20 sa_answers host4
# Either it knows it is behind (WRN 7A42) or it installs what the master
# held when it died: no ServiceRecord.
check "no deleted record came back" sh -c "grep -q 'WRN 7A42' '$RUN/sm2/osm.log' || grep -q 'installed 0 ServiceRecords' '$RUN/sm2/osm.log'"
grep -o '"index.*' "$RUN/sm2/osmats-state.json"
finish
