#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench-capacity (and make bench, last): capacity of the SA's ATS path
# (issue 15), stock OpenSM against OpenSM with the plugin, with pipelined
# load from several client nodes (capbench).
#   BENCH_SIZES    record counts (default "1000 10000 100000 1000000")
#   BENCH_SECS     seconds per capacity measurement (default 5)
#   BENCH_CLIENTS  client nodes sending at once (default 4)
#   BENCH_WINDOW   requests outstanding per client (default 16)
#   BENCH_LOAD_CAP seconds a load to the next size may take (default 900):
#                  stock OpenSM's Set scans every record, so its load to 1M
#                  is skipped when the rate measured so far says it would
#                  take longer (the summary says so)
#   BENCH_OUT      where the raw lines go (default capacity.out in the
#                  build directory); capacity_report.sh summarizes them and
#                  writes BENCH_OUT.dat, capacity_plot.sh plots that
# Everything (OpenSM, capbench, atsd) runs on the simulated host
# (simhost), whose kernel does RMPP: GetTable answers of many
# records arrive whole.
# Per SM: ClassPortInfo capacity (the transport's ceiling: ibsim forwards
# every MAD on one thread), ATS lookups/s with one record, then per size:
# the pipelined load (Sets/s), lookups/s, re-Sets/s, GetTable of one GID's
# records, a full dump, OpenSM's RSS and CPU time per request, ibsim's CPU
# share. At the largest size: atsd with 64 local clients, hot and cold,
# and libibats' direct path (no atsd) with 64 threads on one handle, cold.
# Prints raw lines "SM what ...", then a summary with the issue's goals.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
SIZES=${BENCH_SIZES:-"1000 10000 100000 1000000"}
SECS=${BENCH_SECS:-5}
CLIENTS=${BENCH_CLIENTS:-4}
WINDOW=${BENCH_WINDOW:-16}
LOAD_CAP=${BENCH_LOAD_CAP:-900}
OUT=${BENCH_OUT:-$top_builddir/capacity.out}
CAPBENCH="$top_builddir/tests/bench/capbench"
TCK=$(getconf CLK_TCK)

# GIDs: at most 250 records each (an ATS GID has 256 SIDs), at least 256;
# CAs of 4 ports on leaves of 64 (ibsim: 2048 nodes, 256 switches).
max=0
for n in $SIZES; do [ "$n" -gt "$max" ] && max=$n; done
NGIDS=$(( (max + 249) / 250 ))
NGIDS=$(( NGIDS < 256 ? 256 : (NGIDS + 3) / 4 * 4 ))
. "$top_srcdir/tests/bench/topo.sh"
topo=$(mktemp /tmp/ibats-capacity-topo.XXXXXX)
TOPO_PER=64 TOPO_PORTS=4 bench_topology $((NGIDS / 4)) "$topo"

cap_one() { # cap_one LABEL PLUGIN(0/1)
	(
		L=$1
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo")
		say() { echo "$L $*"; }
		sa_answers() {
			on h1 "$CAPBENCH" cpi 0.01 1 >/dev/null 2>&1
		}
		cpu_ticks() { # utime + stime of PID
			awk '{ print $14 + $15 }' "/proc/$1/stat"
		}
		# machine_idle: "idle total" jiffies of all CPUs; machine_idle
		# PREV: the idle share (%) since PREV.
		machine_idle() {
			awk -v prev="${1:-}" '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i
				if (prev == "") { print $5 + $6, t; exit }
				split(prev, p, " "); printf "%.0f\n", ($5 + $6 - p[1]) * 100 / (t - p[2]); exit }' /proc/stat
		}
		rss_kb() {
			awk '/^VmRSS/ { print $2 }' "/proc/$SM_PID/status"
		}
		# par WHAT ARGS...: capbench WHAT on CLIENTS nodes at once; one
		# line "WHAT ok secs per_second p50 p99 failed lost sm_us_per_req
		# sm_cpu% ibsim_cpu% machine_idle%" (rates summed, latencies of
		# h1; CPU shares of one CPU, the idle share of all).
		par() {
			local what=$1 s0 i0 t0 ms
			shift
			s0=$(cpu_ticks "$SM_PID")
			i0=$(cpu_ticks "$IBSIM_PID")
			m0=$(machine_idle)
			t0=$(date +%s%N)
			bench_clients par "$what" "$@"
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			cat "$RUN"/par.* | awk -v what="$what" -v sm=$(( $(cpu_ticks "$SM_PID") - s0 )) \
				-v ib=$(( $(cpu_ticks "$IBSIM_PID") - i0 )) -v tck="$TCK" -v ms="$ms" \
				-v idle="$(machine_idle "$m0")" '
				$1 == what { ok += $2; rate += $4; f += $7; l += $8; if (!p50) { p50 = $5; p99 = $6 } n++ }
				END { printf "%s %d %.1f %.0f %.1f %.1f %d %d %.2f %.0f %.0f %s%s\n", what, ok, ms / 1000,
					rate, p50, p99, f, l, (ok ? sm * 1e6 / tck / ok : 0),
					sm * 100000 / tck / ms, ib * 100000 / tck / ms, idle, (n == 0 ? " FAILED" : "") }'
		}
		# load FROM TO: the records FROM..TO-1, by CLIENTS nodes (split by
		# GID); "load ok secs per_second ... " over the wall time.
		load() {
			local s0
			s0=$(cpu_ticks "$SM_PID")
			bench_clients load load "$1" "$2" "$NGIDS" "$WINDOW" @I@ "$CLIENTS"
			# The rate over the slowest client's time: the clients start
			# together and keep their windows full to the end.
			cat "$RUN"/load.* | awk -v sm=$(( $(cpu_ticks "$SM_PID") - s0 )) -v tck="$TCK" '
				$1 == "load" { ok += $2; f += $7; l += $8; if ($3 > t) t = $3 }
				END { printf "load %d %.1f %.0f failed %d lost %d sm_us_per_set %.1f\n", ok, t,
					(t > 0 ? ok / t : 0), f, l, (ok ? sm * 1e6 / tck / ok : 0) }'
		}
		echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
		[ "$2" -eq 0 ] && SM_CONF="$RUN/opensm-stock.conf"
		fabric_start "$(basename "$topo")"
		for pid in $T_FABRIC; do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = ibsim ] && IBSIM_PID=$pid
		done
		say "fabric ngids $NGIDS clients $CLIENTS window $WINDOW secs $SECS"
		# The GIDs once (a NodeRecord Get per LID): every capbench reads them.
		on h1 "$CAPBENCH" ports "$RUN/gids" || exit 1
		export CAPBENCH_GIDS="$RUN/gids"
		say "cpi1 $(on h1 "$CAPBENCH" cpi "$SECS" 1)"
		say "cpi $(par cpi "$SECS" "$WINDOW")"
		say "rss@0 $(rss_kb)"
		say "load@1 $(load 0 1)"
		say "lookup@1 $(par lookup "$SECS" "$WINDOW" 1 "$NGIDS")"
		prev=1
		rate=0
		for n in $SIZES; do
			# The load's time if a Set costs in proportion to the records
			# held (stock's scan), from the Sets/s at the last size:
			# (n^2 - prev^2) / (2 prev rate).
			est=$(awk -v n="$n" -v p="$prev" -v r="$rate" 'BEGIN { print (r > 0 ? int((n * n - p * p) / (2 * p * r)) : 0) }')
			if [ "$est" -gt "$LOAD_CAP" ]; then
				say "skipped@$n load of $((n - prev)) records: about ${est}s at $rate Sets/s at $prev growing with the records > ${LOAD_CAP}s"
				break
			fi
			say "load@$n $(load "$prev" "$n")"
			say "rss@$n $(rss_kb)"
			say "lookup@$n $(par lookup "$SECS" "$WINDOW" "$n" "$NGIDS")"
			r=$(par reset "$SECS" "$WINDOW" "$n" "$NGIDS")
			say "reset@$n $r"
			rate=$(echo "$r" | awk '{ print int($4) }')
			say "table@$n $(on h1 "$CAPBENCH" table "$SECS" "$n" "$NGIDS")"
			say "dump@$n $(on h1 "$CAPBENCH" dump 240)"
			prev=$n
		done
		# atsd (its own SA thread) with 64 local clients.
		agent_start "h$((CLIENTS + 1))" "address 10.252.0.1 primary" "cache_ttl 3600" \
			"sm_poll_interval 1"
		sock="$RUN/atsd-h$((CLIENTS + 1)).sock"
		st() { agent "h$((CLIENTS + 1))" stats | awk -v k="$1" '$1 == k { print $2 }'; }
		q0=$(st sa_queries)
		r=$(on h1 "$CAPBENCH" atsd "$SECS" 64 "$sock" 0 64 "$NGIDS")
		say "atsd_warm@$prev $r sa_queries $(( $(st sa_queries) - q0 ))"
		q0=$(st sa_queries)
		r=$(on h1 "$CAPBENCH" atsd "$SECS" 64 "$sock" 0 64 "$NGIDS")
		say "atsd_hot@$prev $r sa_queries $(( $(st sa_queries) - q0 ))"
		q0=$(st sa_queries)
		r=$(on h1 "$CAPBENCH" atsd "$SECS" 64 "$sock" 64 $((prev - 64)) "$NGIDS")
		say "atsd_cold@$prev $r sa_queries $(( $(st sa_queries) - q0 ))"
		# libibats without atsd: 64 threads on one handle, each lookup
		# straight to the SA (IBATS_NO_AGENT; capbench counts the SA
		# requests).
		say "libibats_cold@$prev $(on h1 "$CAPBENCH" libibats "$SECS" 64 64 $((prev - 64)) "$NGIDS")"
	)
}

echo "# ibats capacity bench $(date -u +%F): sizes $SIZES, $CLIENTS clients x $WINDOW outstanding, ${SECS}s each"
{
	cap_one stock 0
	cap_one plugin 1
} | tee "$OUT"
rm -f "$topo"
sh "$top_srcdir/tests/bench/capacity_report.sh" "$OUT"
