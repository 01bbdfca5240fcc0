# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# replication_log at its minimum (64): a standby that restarts after more
# than 64 (and at most 1024) changes since the master's last snapshot must
# still get in sync. The master reused that snapshot (within a minute,
# at most 1024 changes old) although its log no longer held the change
# after it: every stream pull then said "snapshot needed", the next
# snapshot was the same one, and so on, for as long as no other 1024
# changes came.
. "$top_srcdir/tests/integration/harness.sh"
echo "replication_log 64" >"$RUN/osmats.conf"
repl_fabric fabric4.net
check "host1 sets 100 records" srtool host1 --sid 0x1000 --name other --count 100 set
second_sm host3 10
check "in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
check "host1 sets 100 more" srtool host1 --sid 0x2000 --name other --count 100 set
kill -9 "$SM2"; wait "$SM2" 2>/dev/null
n=$(grep -c "in sync with master" "$RUN/sm2/osm.log")
second_sm host3 10
check "the restarted standby gets in sync" wait_for "in sync again" 15 sh -c "[ \$(grep -c 'in sync with master' '$RUN/sm2/osm.log') -gt $n ]"
echo "# snapshots the standby took: $(grep -c 'snapshot of' "$RUN/sm2/osm.log")"
check "in at most 3 snapshots" test "$(grep -c 'snapshot of' "$RUN/sm2/osm.log")" -le 3
grep "snapshot of\|in sync" "$RUN/sm2/osm.log" | tail -4
finish
