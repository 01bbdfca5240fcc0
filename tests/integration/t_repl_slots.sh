# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Standby slots are not held for ever (issue 22, finding 5): eight ports
# that pull the master's log once each (key holders, here repltool) take
# the master's eight standby slots; a real standby that comes next is
# refused only until they have been silent for the ack timeout D, then
# gets in sync and is waited for.
. "$top_srcdir/tests/integration/harness.sh"
. "$top_srcdir/tests/bench/topo.sh"
bench_topology 8 "$RUN/slots.net" smhost2
TOPODIR=$RUN
# Its hosts are h1..h8: the SA answers h1.
sa_answers() {
	atsctl h1 -t 200 -r 0 dump >/dev/null 2>&1
	[ $? -le 1 ]
}
repl_fabric slots.net
REPLTOOL="$top_builddir/tests/tools/repltool"
M="$RUN/osmats-state.json"
MLID=$(port_lid smhost)
pulled=0
for n in 1 2 3 4 5 6 7 8; do
	on "h$n" "$REPLTOOL" "$MLID" --key-file "$RUN/repl.key" --next 1 | grep -q '^answer kind 5 ' &&
		pulled=$((pulled + 1))
done
check "eight ports pulled the log once each (told to snapshot)" test "$pulled" -eq 8
T0=$(date +%s%3N)
second_sm smhost2 10
check "a standby SM with the plugin goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
check "it gets in sync once the pullers' slots are free" wait_for "in sync" 20 \
	grep -q "in sync with master" "$RUN/sm2/osm.log"
T1=$(date +%s%3N)
echo "# the standby was in sync $((T1 - T0)) ms after it started (D = 4000 ms)"
check "the master waits for it" wait_for "the state file" 5 repl_is "$M" standbys_in_sync=1
check_out "a Set is answered" "status 0x0000" srtool h1 --sid 0x1000 --name other set
check "the standby has it" wait_for "the standby" 10 repl_synced "$RUN/sm2/osmats-state.json" "$M"
finish
