# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# SM failover: the master SM dies (SIGKILL) and the standby SM on another
# node takes over, with an empty SA, no multicast groups and a new SM LID.
# Every agent notices the SM LID change, registers again with the new SM,
# whose plugin enforces the ATS rules, and joins its IPoIB broadcast group
# again; stock saquery sees records and membership there. Neither SM has
# a replication key file: ServiceRecord replication (t_repl.sh) is off. The
# agents subscribe to the new SA's reports, which reach host1.
. "$top_srcdir/tests/integration/harness.sh"

# Two SMs under ibsim (two_sm_opts): the master at 15, the standby at 10.
two_sm_opts >"$RUN/opensm.extra"
host_ns h1
N1=$(ns h1)
ip -n "$N1" addr add 10.0.0.1/24 dev v0
fabric_up fabric4.net host1 host2
LID3=$(port_lid host3)
[ -n "$G1" ] && [ -n "$G2" ] && [ -n "$LID3" ] || { echo "no port GIDs"; exit 1; }
COMMON="verify_interval 30
sm_poll_interval 1
backoff_max 2"

settled() {
	gid_records "$G1" 2 && gid_records "$G2" 1
}
member() { # host1's port is in the IPoIB broadcast group
	bcast_member host4 "$G1"
}

IFS_SAVE=$IFS
IFS='
'
agent_start host1 $COMMON "interface v0 netns $N1" "address 10.0.1.1"
agent_start host2 $COMMON "address 10.0.0.2 primary"
IFS=$IFS_SAVE
check "both agents register with the first SM" wait_for "registration" 30 settled
check "host1's agent joins the first SM's IPoIB broadcast group" wait_for "join" 10 member

second_sm host3 10
check "a second SM with the plugin on host3 goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"

check_rc "its plugin answers no liveness MAD while STANDBY" 1 "2 sent, 0 received, 100% loss" \
	atsctl host4 -t 200 ping "$LID3" -c 2 -i 0
check "without a key file the master's plugin does not replicate" wait_for "WRN 7A40" 5 \
	grep -q "WRN 7A40" "$RUN/osm.log"
check "... nor the standby's" wait_for "WRN 7A40" 5 grep -q "WRN 7A40" "$RUN/sm2/osm.log"
check "... and the master's state file says role off" wait_for "the role" 5 \
	repl_is "$RUN/osmats-state.json" role=off
sets() { agent host1 stats | sed -n 's/^sets //p'; }
SETS0=$(sets)

T0=$(date +%s%N)
sm_kill "$SM_PID"
check "the first SM killed: the second becomes master" wait_for "the second master" 30 \
	grep -q "SUBNET UP" "$RUN/sm2/osm.log"
sm_is_host3() { atsctl host4 port | grep -q "SM LID $LID3,"; }
# The port's sysfs follows its PortInfo as the driver's does (the simulated
# kernel polls it every 50 ms).
check "ports now name host3 as their SM" wait_for "the new SM LID" 5 sm_is_host3
check "every agent registers again with the new SM" wait_for "re-registration" 30 settled
echo "# records back $(( ($(date +%s%N) - T0) / 1000000 )) ms after the first SM died"
check "... and joins the new SM's broadcast group" wait_for "join again" 10 member
more_sets() { [ "$(sets)" -ge $((SETS0 + 2)) ]; }
check "host1's agent sent its 2 records again" wait_for "the Sets" 10 more_sets
echo "# host1's agent: sets $SETS0 before the failover, $(sets) after"
check_absent "the new master installed no shadow" "osmats replication: installed" \
	cat "$RUN/sm2/osm.log"
check_out "host1's agent saw the SM change" "^sm_changes [1-9]" agent host1 stats
check_out "... and names the new SM" "^sm_lid $LID3\$" agent host1 stats
check_out "... also in --json" "\"sm_changes\": [1-9][0-9]*, .*\"sm_lid\": $LID3," \
	agent host1 --json stats
check_out "... read from its port's sysfs, which follows the port" \
	"SM LID [0-9]+ -> $LID3," cat "$RUN/atsd-host1.log"
check_out "stock smpquery reads the same SM LID there" "^SMLid:\.+$LID3\$" \
	on host1 "$SMPQUERY" -D portinfo 0
check_out "host2's agent saw it too" "^sm_changes [1-9]" agent host2 stats
check_count "no duplicates: host1 holds 2 records" 2 atsctl host4 -n dump --gid "$G1"
check_out "the audit of the new SM's ATS records is clean" "^0 finding\(s\): clean$" \
	atsctl host4 audit
check "the new SM's plugin holds the 3 records" wait_for "the state file" 10 \
	grep -q '"index": {"records": 3,' "$RUN/sm2/osmats-state.json"
check_out "the new master's plugin answers liveness on its port" "peer LID $LID3 port GUID 0x" \
	atsctl host4 ping "$LID3" -c 2 -i 0 --type info
check_out "stock saquery on host4 reads an ATS record from the new SM" \
	"DAPL Address Translation Service" on host4 "$SAQUERY" -S
check_rc "the new SM's plugin rejects host4 claiming host1's primary address" 3 \
	"SA status 0x0200" atsctl host4 register 10.0.0.1 --primary
check_out "... and logs the rule" "WRN 7A08: ATS rule duplicate-address" cat "$RUN/sm2/osm.log"

# Report subscriptions follow the SM: the new SA reports to host1.
check "host1's agent subscribes to the new SM's reports" wait_for "subscription" 10 \
	grep -q "subscribed to SA reports of traps 64/65 (SA LID $LID3)" "$RUN/atsd-host1.log"
check_out "host1 resolves 10.0.0.2 (cached)" "$G2" agent host1 resolve 10.0.0.2
sim 'Unlink "host2"'
kill -HUP "$SM2" # two_sm_opts: no sweep on traps
check "host2 unplugged: the new SA's report drops host1's cached answer" \
	wait_for "trap 65" 20 grep -q "SA report: $G2 out of service, 1 cached" "$RUN/atsd-host1.log"
check_rc "... and host1's next lookup misses" 1 "no ATS record" agent host1 resolve 10.0.0.2
finish
