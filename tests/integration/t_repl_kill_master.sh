# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The master killed during a Set storm: every Set answered to the client
# is in the copy the standby installs (at most the one in flight more).
. "$top_srcdir/tests/integration/harness.sh"
repl_fabric fabric4.net
second_sm host3 10
check "in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
srtool host2 --sid 0x20000 --name other --count 4000 set >"$RUN/storm.out" 2>&1 &
STORM=$!
srtool host1 --sid 0x30000 --name other --count 4000 set >"$RUN/storm1.out" 2>&1 &
STORM1=$!
wait_for "the storms" 20 srtool host4 --sid $((0x20000 + 500)) --gid "$(port_gid host2)" get
sm_kill "$SM_PID"
wait $STORM
wait $STORM1
cat "$RUN/storm.out" "$RUN/storm1.out"
a=$(sed -n 's/set //p' "$RUN/storm.out")
b=$(sed -n 's/set //p' "$RUN/storm1.out")
check "the standby takes over" wait_for "the second master" 30 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
grep -q "SUBNET UP" "$RUN/sm2/osm.log" || gdb -p "$SM2" -batch -ex "thread apply all bt" 2>&1 | grep -E "^Thread|^#" | head -150
grep "installed\|WRN 7A42" "$RUN/sm2/osm.log"
n=$(sed -n 's/.*installed \([0-9]*\) ServiceRecords.*/\1/p' "$RUN/sm2/osm.log")
echo "# answered $a + $b, installed ${n:-none}"
check "every answered Set is in the copy" test "${n:-0}" -ge $((a + b)) -a "${n:-0}" -le $((a + b + 2))
check "the SA answers" wait_for "the SA" 20 sa_answers host4
# The last answered Set of each storm is there: deleting it works.
check_out "host2's last answered Set is there" "status 0x0000" srtool host2 --sid $((0x20000 + a - 1)) delete
check_out "host1's last answered Set is there" "status 0x0000" srtool host1 --sid $((0x30000 + b - 1)) delete
finish
