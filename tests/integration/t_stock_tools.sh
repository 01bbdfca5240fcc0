# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Stock infiniband-diags on the simulated host, as on a host: each tool
# that a host runs against its fabric answers from ibsim's fabric through
# the node's kernel (simhost). osmtest, ibping and OpenSM itself:
# t_simhost and every other test. Not here: ibccquery/ibccconfig and
# vendstat (ibsim implements no congestion-control or Mellanox vendor
# agent), ibcacheedit (edits a file), and the scripts that need a dump
# file or a node name to be useful (check_lft_balance, ibidsverify).
. "$top_srcdir/tests/integration/harness.sh"
fabric_start fabric4.net
L2=$(port_lid host2)
L3=$(port_lid host3)

tool() {
	local node=$1 name=$2
	shift 2
	on "$node" timeout 30 "$(PATH=$PATH:/usr/sbin:/sbin command -v "$name")" "$@"
}

check_out "ibstat: the port is Active" "State: Active" tool host1 ibstat
check_out "ibstatus (a shell script over sysfs): ACTIVE" "state:[[:space:]]+4: ACTIVE" \
	tool host1 ibstatus
check_out "ibaddr: the port's GID and LID" "^GID fe80::[0-9a-f:]+ LID start 0x" tool host1 ibaddr
check_out "ibnetdiscover: the whole fabric" '"host4"' tool host1 ibnetdiscover
check_count_ca() { [ "$(tool host1 ibhosts | grep -c '^Ca')" -eq 5 ]; }
check "ibhosts: the five CAs" check_count_ca
check_out "ibswitches: both switches" '"sw2"' tool host1 ibswitches
check_out "iblinkinfo: links Active/LinkUp" "Active/  LinkUp" tool host1 iblinkinfo
check_out "ibqueryerrors: no bad node" "0 bad nodes found" tool host1 ibqueryerrors
check_out "ibroute: a switch's forwarding table" "Unicast lids" tool host1 ibroute 2
check_out "dump_fts: every switch's table" "Unicast lids" tool host1 dump_fts
check_out "dump_lfts: the same by LID" "Unicast lids" tool host1 dump_lfts
check_out "dump_mfts: multicast tables" "Multicast mlids" tool host1 dump_mfts
check_out "ibtracert: the path from the SM to host2" "To ca" tool host1 ibtracert 1 "$L2"
check_out "perfquery: the port's counters" "PortXmitData" tool host1 perfquery
check_out "sminfo: the master SM" "SMINFO_MASTER" tool host1 sminfo
check_out "smpquery nodeinfo of host2" "^Guid:\.+0x0000000000100004$" tool host1 smpquery nodeinfo "$L2"
check "smpdump of the local PortInfo" tool host1 smpdump -D 0 15
check_out "ibportstate: host2's port" "^LinkState:\.+Active$" tool host1 ibportstate "$L2" 1
check_out "saquery: NodeRecords" "NodeRecord dump" tool host1 saquery
# ibsysstat: a server process on host3, found by its class registration.
on host3 "$(PATH=$PATH:/usr/sbin command -v ibsysstat)" -S >/dev/null 2>&1 &
T_PIDS="$T_PIDS $!"
sysstat() { tool host1 ibsysstat "$L3" host | grep -q .; }
check "ibsysstat: a server on host3 answers host1" wait_for "ibsysstat -S" 10 sysstat
finish
