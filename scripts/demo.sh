#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Demo: a simulated 8-host fabric (ibsim), OpenSM with the osmats plugin,
# atsd agents on six hosts registering their addresses, the ATS table as
# another host reads it from the SA, and a failover to a standby OpenSM.
# Run from the build tree after make; IBATS_INSTALLED=1 runs the installed
# atsd, atsctl and libosmats.so (the Debian packages) instead.
top_builddir=$(cd "$(dirname "$0")/.." && pwd)
top_srcdir=$top_builddir
export top_builddir top_srcdir
# Every node runs on a simulated host (simhost, README): its kernel
# and the library its processes preload. make check builds them; so does
# this, as the demo needs them.
make -s -C "$top_builddir" simhost/daemon/simhostd simhost/preload/libsimhost.la >/dev/null ||
	{ echo "cannot build the simulated host (simhost)" >&2; exit 1; }
. "$top_srcdir/tests/integration/harness.sh"
say() { printf '\n== %s\n' "$*"; }
records() { atsctl host8 -n dump 2>/dev/null | grep -c '^0x'; }

say "ibsim (ibsim-topologies/fabric8.net) and OpenSM with libosmats.so"
# A replication key file both OpenSMs' plugins read (osmats.conf): they
# then keep the standby's copy of the SA's ServiceRecords (see the
# failover below). OpenSM's own SM-to-SM traffic keeps its sm_key.
echo "sm_key 0x00000000000ABCDE" >"$RUN/opensm.extra"
repl_key
fabric_start fabric8.net
grep -o 'osmats .* loaded.*' "$RUN/osm.log"
echo "$(grep -o 'OpenSM [0-9.]*' "$RUN/osm.log" | head -n 1) loaded" \
	"$(grep -o '/[^ ]*libosmats\.so[^ ]*' "/proc/$SM_PID/maps" | head -n 1)"
echo "atsd: $ATSD, atsctl: $ATSCTL"

# The agents poll their port's SM LID every second (they see the
# failover at the end).
COMMON="verify_interval 5
sm_poll_interval 1"
IFS_SAVE=$IFS
if [ "$(id -u)" -eq 0 ] && ip netns add "ibats-$$-probe" 2>/dev/null; then
	ip netns del "ibats-$$-probe"
	say "atsd on host1..host4 follows a veth in each host's network namespace"
	for n in 1 2 3 4; do
		host_ns h$n
		ip -n "$(ns h$n)" addr add 10.10.0.$n/16 dev v0
		ip -n "$(ns h$n)" addr add fd00:10::$n/64 dev v0 nodad
	done
	ip -n "$(ns h1)" addr add 10.10.1.1/16 dev v0
	for n in 1 2 3 4; do
		IFS='
'
		agent_start host$n $COMMON "interface v0 netns $(ns h$n)"
		IFS=$IFS_SAVE
	done
else
	say "atsd on host1..host4 with static addresses (network namespaces need root)"
	for n in 1 2 3 4; do
		IFS='
'
		agent_start host$n $COMMON "address 10.10.0.$n primary" "address fd00:10::$n"
		IFS=$IFS_SAVE
	done
fi
say "atsd on host5 and host6 with static addresses"
IFS='
'
agent_start host5 $COMMON "address 10.10.0.5 primary" "address 10.10.5.5"
agent_start host6 $COMMON "address 10.10.0.6 primary"
IFS=$IFS_SAVE
wait_for "the agents' records" 20 sh -c "[ \$(cd $RUN/scratch && SIM_HOST=host8 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n dump 2>/dev/null | grep -c '^0x') -ge 11 ]"

say "requests that break the ATS rules are refused by the SM"
atsctl host7 register 10.10.9.9 --sid 0x10000CE100415553
atsctl host7 register 10.10.0.1 --gid "$(port_gid host1)"
atsctl host7 register 10.10.0.1
grep -o 'WRN 7A0.*' "$RUN/osm.log"

say "host6 is unplugged: the SM flushes its record"
sim 'Unlink "host6"'
wait_for "flush" 10 grep -q 'WRN 7A10' "$RUN/osm.log"
grep -o 'WRN 7A10.*' "$RUN/osm.log"

say "the ATS table, as host8 reads it from the SA ($(records) records)"
atsctl host8 -v -n dump

say "host1 resolves 10.10.0.3 twice through its agent's cache"
agent host1 resolve 10.10.0.3
agent host1 resolve 10.10.0.3 >/dev/null
agent host1 stats | grep -E '^(cache_hits|cache_misses|sa_lookups|records) '

say "the SM's view: counters and the ServiceRecord index in the plugin's state file"
# The file is replaced (a new inode) after every SUBNET UP.
ino=$(stat -c %i "$RUN/osmats-state.json")
sm_sweep
wait_for "the state file" 10 sh -c "[ \$(stat -c %i '$RUN/osmats-state.json') != $ino ]"
sed -n '/"counters"/p; /"index"/p' "$RUN/osmats-state.json"

say "the master SM dies; a standby OpenSM with the plugin on host7 takes over with its copy"
# The two-SM order that works under ibsim (two_sm_opts); OpenSM re-reads
# these options at a heavy sweep.
two_sm_opts >>"$RUN/opensm.conf"
sm_sweep
second_sm host7 10
wait_for "the standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
wait_for "the standby's copy" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
grep -o "osmats replication: snapshot.*" "$RUN/sm2/osm.log"
sets=$(agent host1 stats | sed -n 's/^sets //p')
t0=$(date +%s%N)
sm_kill "$SM_PID" 2>/dev/null
wait_for "the new master" 30 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
wait_for "the agents' records on the new SM" 30 sh -c "[ \$(cd $RUN/scratch && SIM_HOST=host8 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n dump 2>/dev/null | grep -c '^0x') -ge 11 ]"
echo "host7 (LID $(port_lid host7)) is master; every record was there $(( ($(date +%s%N) - t0) / 1000000 )) ms after the first SM died"
grep -o "osmats replication: installed.*" "$RUN/sm2/osm.log"
host1_sees() { agent host1 stats | grep -q "^sm_lid $1\$"; }
wait_for "host1's agent to notice" 30 host1_sees "$(port_lid host7)"
echo "host1's agent (Sets before the failover: $sets):"
agent host1 stats | grep -E '^(sm_changes|sm_lid|sets) '

say "the ATS table, as host8 reads it from the new SM ($(records) records)"
atsctl host8 -n dump
