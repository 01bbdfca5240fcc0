# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The third change OpenSM makes to its ServiceRecords by itself: an SM that
# held records, went STANDBY when a higher-priority SM took over, and
# becomes MASTER again when that one dies cleans its SA
# (drop_event_subscriptions) in its first master sweep. The plugin's index
# must follow: none of the old records may be served afterwards.
. "$top_srcdir/tests/integration/harness.sh"

# Two SMs under ibsim (two_sm_opts): the first at priority 15, the second
# at 10; once the second is STANDBY the first drops to 0 and SIGHUP starts
# the heavy sweep that hands over.
{ echo "drop_event_subscriptions TRUE"; two_sm_opts; } >"$RUN/opensm.extra"
fabric_start fabric4.net
STATE="$RUN/osmats-state.json"
check "host1 registers 10.7.0.1 and 10.7.0.2" \
	sh -c "cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL register 10.7.0.1 --primary && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL register 10.7.0.2"
check_count "the first SM holds 2 records" 2 atsctl host4 -n dump

# A second SM, with the plugin, on host3.
second_sm host3 10
check "the second SM finds the master and goes STANDBY" wait_for "the second SM" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
sed -i "s|^sm_priority .*|sm_priority 0|" "$RUN/opensm.conf"
kill -HUP "$SM_PID"
check "the first SM hands over and goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/osm.log"
check "the second SM is master" wait_for "the second master" 30 \
	grep -q "SUBNET UP" "$RUN/sm2/osm.log"
check_rc "its SA holds no ATS record" 1 "no ATS records" atsctl host4 -n dump
check "host2 registers 10.7.0.3 with the second SM" atsctl host2 register 10.7.0.3 --primary

stop_pid "$SM2"
check "the second SM gone, the first is MASTER again" wait_for "master again" 30 \
	sh -c "[ \$(grep -c 'Entering MASTER state' '$RUN/osm.log') -ge 2 ]"
check "... and has swept" wait_for "the sweep" 30 \
	sh -c "grep -A1000 'Entering STANDBY' '$RUN/osm.log' | grep -q 'SUBNET UP'"
check "the SA answers" wait_for "the SA" 20 sa_answers host4
check_rc "none of its old records is served" 1 "no ATS records" atsctl host4 -n dump
check "host1 registers 10.7.0.1 again" atsctl host1 register 10.7.0.1 --primary
check_count "... which is then the only record" 1 atsctl host4 -n dump
check "the index holds that one record" wait_for "the state file" 10 \
	grep -q '"index": {"records": 1,' "$STATE"
finish
