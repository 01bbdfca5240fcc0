. "$top_srcdir/tests/integration/harness.sh"
{ two_sm_opts; echo "sm_key 0x00000000000ABCDE"; } >"$RUN/opensm.extra"
fabric_start fabric4.net
G1=$(port_gid host1)
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
check "host1 registers 10.7.0.2" atsctl host1 register 10.7.0.2
check "host2 registers 10.7.0.3" atsctl host2 register 10.7.0.3 --primary
check "host2 deregisters 10.7.0.3" atsctl host2 deregister 10.7.0.3
check "host1 sets 700 other records" srtool host1 --sid 0x1000 --name other --count 700 set
second_sm host3 10
check "standby" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
check "in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
check "host2 registers 10.7.0.4 (acked)" atsctl host2 register 10.7.0.4 --primary
sleep 2
cat "$RUN/sm2/osmats-state.json" | grep -o '"replication.*' 
cat "$RUN/osmats-state.json" | grep -o '"replication.*' 
kill -9 "$SM_PID"
check "the second master" wait_for "the second master" 30 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
grep "osmats replication\|7A4" "$RUN/sm2/osm.log" "$RUN/osm.log"
check "SA answers" wait_for "sa" 20 sa_answers host4
atsctl host4 -n dump | head -5
grep -o '"replication.*' "$RUN/sm2/osmats-state.json"
grep -o '"index.*' "$RUN/sm2/osmats-state.json"
finish
