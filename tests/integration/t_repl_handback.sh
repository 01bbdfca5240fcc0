# Handover and back with replication: the new master installs the old
# one's records; a deletion made at the new master does not come back
# when the old one (which still holds the record from its own earlier
# mastership) takes over again.
. "$top_srcdir/tests/integration/harness.sh"
{ two_sm_opts; echo "sm_key 0x00000000000ABCDE"; } >"$RUN/opensm.extra"
fabric_start fabric4.net
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
check "host1 registers 10.7.0.2" atsctl host1 register 10.7.0.2
second_sm host3 10
check "in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
sed -i "s|^sm_priority .*|sm_priority 0|" "$RUN/opensm.conf"
kill -HUP "$SM_PID"
check "the first SM hands over" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/osm.log"
check "the second SM is master" wait_for "the second master" 30 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
grep "installed\|WRN 7A42" "$RUN/sm2/osm.log"
check "it installed the copy" grep -q "installed [0-9]* ServiceRecords" "$RUN/sm2/osm.log"
check "the SA answers" wait_for "the SA" 20 sa_answers host4
check_count "its SA holds both ATS records" 2 atsctl host4 -n dump
check "host1 deregisters 10.7.0.2 at the second SM" atsctl host1 deregister 10.7.0.2
check "host2 registers 10.7.0.3 at the second SM" atsctl host2 register 10.7.0.3 --primary
check "the first SM, now standby, is in sync with the second" wait_for "in sync" 30 \
	sh -c "grep -A1000 'Entering STANDBY' '$RUN/osm.log' | grep -q 'in sync with master'"
sleep 1
sm_kill "$SM2"
check "the first SM is master again" wait_for "master again" 30 \
	sh -c "grep -A1000 'Entering STANDBY' '$RUN/osm.log' | grep -q 'SUBNET UP'"
grep "installed\|WRN 7A42" "$RUN/osm.log"
check "the SA answers" wait_for "the SA" 20 sa_answers host4
atsctl host4 -n dump
check_count "two ATS records: 10.7.0.1 and 10.7.0.3" 2 atsctl host4 -n dump
check_absent "10.7.0.2 did not come back" "10\.7\.0\.2" atsctl host4 -n dump
finish
