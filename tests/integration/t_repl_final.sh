# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A handover to a standby that has no whole copy yet (it started a moment
# before, and 30,000 records take it a while): the new master asks the
# SM that handed over for the list it left, and installs that.
. "$top_srcdir/tests/integration/harness.sh"
echo "max_records_per_port 0" >"$RUN/osmats.conf"
repl_fabric fabric4.net
check_out "30000 records" "set 30000" srtool host1 --sid 0x100000 --name other --count 30000 set
check "host2 registers 10.9.0.1" atsctl host2 register 10.9.0.1 --primary
second_sm host3 10
wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
sed -i "s|^sm_priority .*|sm_priority 0|" "$RUN/opensm.conf"
kill -HUP "$SM_PID"
check "the second SM is master" wait_for "the second master" 60 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
grep -h "installed\|7A42\|final\|snapshot of" "$RUN/sm2/osm.log" | sed 's/^/# /'
check "it installed every record" grep -q "installed 30001 ServiceRecords" "$RUN/sm2/osm.log"
check "the SA answers" wait_for "the SA" 20 sa_answers host4
check_out "10.9.0.1 is there" "10.9.0.1" atsctl host4 -n resolve 10.9.0.1
finish
