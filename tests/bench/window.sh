#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench-window (and make bench): cold lookups through atsd against
# its window of SA lookups (atsd.conf sa_depth), OpenSM with the plugin.
#   BENCH_RECORDS  ATS records loaded (default 100000)
#   BENCH_DEPTHS   sa_depth values (default "1 2 4 8 16 32 64")
#   BENCH_SECS     seconds per measurement (default 5)
#   BENCH_CLIENTS  client nodes of the pipelined ClassPortInfo baseline
#                  (default 4, BENCH_WINDOW outstanding each, default 16)
# Per depth, a fresh atsd on its own node with an empty cache and 64
# local clients (capbench atsd: one socket connection and one lookup at a
# time each, as libibats asks), each walking its share of the records'
# addresses, every address once: each lookup is one SA request. The
# baseline is the run's pipelined ClassPortInfo capacity (capacity.sh's
# "cpi": OpenSM answers it without touching the records, the transport's
# ceiling), the same from one node alone (cpi_node: the ceiling of one
# host's port) and the one-outstanding rate. Prints "depth D lookups/s /cpi
# /cpi_node /cpi1 p50 p99 inflight_max", then the goal.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
RECORDS=${BENCH_RECORDS:-100000}
DEPTHS=${BENCH_DEPTHS:-"1 2 4 8 16 32 64"}
SECS=${BENCH_SECS:-5}
CLIENTS=${BENCH_CLIENTS:-4}
WINDOW=${BENCH_WINDOW:-16}
CAPBENCH="$top_builddir/tests/bench/capbench"
DEFAULT_DEPTH=16
NGIDS=256

. "$top_srcdir/tests/bench/topo.sh"
topo=$(mktemp /tmp/ibats-window-topo.XXXXXX)
TOPO_PER=64 TOPO_PORTS=4 bench_topology $((NGIDS / 4)) "$topo"
(
	. "$top_srcdir/tests/integration/harness.sh"
	TOPODIR=$(dirname "$topo")
	sa_answers() {
		on h1 "$CAPBENCH" cpi 0.01 1 >/dev/null 2>&1
	}
	# all WHAT ARGS...: capbench on h1..hCLIENTS at once, rates summed.
	all() {
		local what=$1
		shift
		bench_clients all "$what" "$@"
		cat "$RUN"/all.* | awk -v what="$what" '$1 == what { ok += $2; r += $4 } END { printf "%.0f %d\n", r, ok }'
	}
	echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
	fabric_start "$(basename "$topo")"
	on h1 "$CAPBENCH" ports "$RUN/gids" || exit 1
	export CAPBENCH_GIDS="$RUN/gids"
	cpi1=$(on h1 "$CAPBENCH" cpi "$SECS" 1 | awk '{ print $4 }')
	# One node's own ceiling: everything a host sends goes through its
	# one port (here its simulated kernel), whatever the program.
	cpin=$(on h1 "$CAPBENCH" cpi "$SECS" "$WINDOW" | awk '{ print $4 }')
	cpi=$(all cpi "$SECS" "$WINDOW" | awk '{ print $1 }')
	echo "cpi $cpi cpi_node $cpin cpi1 $cpi1"
	on h1 "$CAPBENCH" load 0 "$RECORDS" "$NGIDS" "$WINDOW" 0 1 >"$RUN/load.out" || exit 1
	echo "load $(cat "$RUN/load.out")"
	node=h$((CLIENTS + 1))
	for d in $DEPTHS; do
		agent_start "$node" "address 10.252.0.1 primary" "cache_ttl 3600" "sa_depth $d"
		r=$(on h1 "$CAPBENCH" atsd "$SECS" 64 "$RUN/atsd-$node.sock" 0 "$RECORDS" "$NGIDS")
		m=$(agent "$node" stats | awk '$1 == "sa_inflight_max" { print $2 }')
		echo "$r" | awk -v d="$d" -v cpi="$cpi" -v cpin="$cpin" -v cpi1="$cpi1" -v m="$m" \
			'{ printf "depth %d %.0f lookups/s %.2f cpi %.2f cpi_node %.2f cpi1 p50 %s p99 %s inflight_max %s (%d lookups, %d failed)\n", d, $4, $4 / cpi, $4 / cpin, $4 / cpi1, $5, $6, m, $2, $7 }'
		stop_pid "$(agent_pid "$node")"
	done
) | tee "${BENCH_OUT:-$top_builddir/window.out}"
rm -f "$topo"
awk -v dd="$DEFAULT_DEPTH" '$1 == "depth" && $2 == dd { printf "goal: cold lookups through atsd (sa_depth %d) >= 0.8 of the ClassPortInfo capacity: %.2f %s\n", dd, $5, ($5 >= 0.8 ? "met" : "not met") }' \
	"${BENCH_OUT:-$top_builddir/window.out}"
