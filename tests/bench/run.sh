#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench: the SA's ATS path on ibsim with stock OpenSM and with the
# plugin, every latency also as a ratio to T_cpi (SA ClassPortInfo round
# trip) measured first in the same run on the same fabric.
#   BENCH_HOSTS   CA ports the bulk records spread over (default 400)
#   BENCH_LEVELS  record counts to measure at (default "1000 10000 100000")
#   BENCH_GETS    timed Gets per level (default 2000)
# Prints raw lines "SM what p50_us p99_us count [per_second]", then a
# summary with the issue's targets.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
HOSTS=${BENCH_HOSTS:-400}
LEVELS=${BENCH_LEVELS:-"1000 10000 100000"}
GETS=${BENCH_GETS:-2000}
SABENCH="$top_builddir/tests/bench/sabench"
# Eight agents on h2 (the storm's node, idle by then) to h9: with smhost
# and h1 that is ten simulated hosts, each one ibsim client, and ibsim
# takes at most 10 (IBSIM_MAX_CLIENTS); an h10 was refused its attach.
AGENTS="h2 h3 h4 h5 h6 h7 h8 h9"

# A fabric big enough: leaf switches of 16 hosts under one spine.
. "$top_srcdir/tests/bench/topo.sh"
topo=$(mktemp /tmp/ibats-bench-topo.XXXXXX)
bench_topology "$HOSTS" "$topo"

bench_one() { # bench_one LABEL PLUGIN(0/1)
	(
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo")
		sa_answers() {
			on h1 "$SABENCH" cpi 1 >/dev/null 2>&1
		}
		rss_kb() {
			awk '/^VmRSS/ { print $2 }' "/proc/$SM_PID/status"
		}
		[ "$2" -eq 0 ] && SM_CONF="$RUN/opensm-stock.conf"
		# sabench's SA key (BENCH_SA_KEY): the default 0x1 is not trusted.
		echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
		fabric_start "$(basename "$topo")"
		echo "$1 cpi $(on h1 "$SABENCH" cpi 2000)"
		echo "$1 rss@0 $(rss_kb)"
		prev=0
		for n in $LEVELS; do
			echo "$1 set@$n $(on h1 "$SABENCH" grow "$prev" "$n" "$HOSTS")"
			# The state file (on by default) as it stands after the Sets.
			[ "$2" -eq 1 ] && echo "$1 statefile@$n $(stat -c %s "$RUN/osmats-state.json" 2>/dev/null || echo 0)"
			echo "$1 rss@$n $(rss_kb)"
			echo "$1 get@$n $(on h1 "$SABENCH" get "$GETS" "$n" "$HOSTS")"
			echo "$1 resolve@$n $(on h1 "$SABENCH" resolve "$GETS" "$n" "$HOSTS")"
			prev=$n
		done
		# Gets while another client updates records as fast as it can.
		on h2 "$SABENCH" storm $(( $2 ? 5 : 20 )) "$prev" "$HOSTS" >"$RUN/storm.out" &
		wait_for "the storm" 10 grep -q started "$RUN/storm.out"
		echo "$1 getstorm@$prev $(on h1 "$SABENCH" resolve "$GETS" "$prev" "$HOSTS")"
		wait $!
		echo "$1 $(tail -n 1 "$RUN/storm.out")"
		[ "$2" -eq 1 ] || exit 0
		sm_sweep # the state file now has the counters of this run
		echo "$1 index $(sed -n 's/.*"index": {"records": \([0-9]*\), "bytes": \([0-9]*\).*"get_avg_ns": \([0-9]*\), "sets": [0-9]*, "set_avg_ns": \([0-9]*\)}.*/\1 \2 \3 \4/p' "$RUN/osmats-state.json")"
		echo "$1 echo $(on h1 "$SABENCH" echo 2000 1)"
		echo "$1 cache $("$SABENCH" cache 100000)"
		i=0
		for a in $AGENTS; do
			i=$((i + 1))
			agent_start "$a" "address 10.251.0.$i primary" "address 10.251.1.$i" \
				"cache_ttl 3600" "verify_interval 1" "sm_poll_interval 1"
		done
		ips=""
		# Outside the bulk records' 10.1-250.x.x.
		for i in $(seq 1 8); do ips="$ips 10.251.0.$i 10.251.1.$i"; done
		wait_for "the agents' records" 60 on h1 "$SABENCH" restore 1 $ips
		agent h3 resolve 10.251.0.1 >/dev/null
		echo "$1 sock $(on h3 "$SABENCH" sock 2000 "$RUN/atsd-h3.sock" 10.251.0.1)"
		echo "$1 sockc $(on h3 "$SABENCH" sockc 2000 "$RUN/atsd-h3.sock" 10.251.0.1)"
		sm_stop
		t0=$(date +%s%N)
		sm_start
		up_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		r=$(on h1 "$SABENCH" restore 60 $ips)
		echo "$1 $r"
		echo "$1 restart up_ms $up_ms all_ms $(( ($(date +%s%N) - t0) / 1000000 ))"
	)
}

echo "# ibats bench $(date -u +%F): $HOSTS ports, levels $LEVELS, $GETS Gets per level"
out=$(mktemp /tmp/ibats-bench.XXXXXX)
{
	bench_one stock 0
	bench_one plugin 1
} | tee "$out"
awk -v levels="$LEVELS" '
	$2 ~ /^(cpi|set@|get@|resolve@|getstorm@|echo|cache|sock|sockc)/ { p50[$1" "$2] = $4; p99[$1" "$2] = $5; rate[$1" "$2] = $7 }
	$2 ~ /^rss@/ { rss[$1" "substr($2, 5)] = $3 }
	$2 ~ /^statefile@/ { sf[substr($2, 11)] = $3 }
	$2 == "storm" { storm[$1] = $5 }
	$2 == "restore" { restore = $8 }
	$2 == "index" { idxrec = $3; idxbytes = $4; get_ns = $5; set_ns = $6 }
	$2 == "restart" { up_ms = $4; all_ms = $6 }
	function ok(c) { return c ? "met" : "NOT MET" }
	END {
		n = split(levels, L, " "); top = L[n]; low = L[1]
		ts = p50["stock cpi"]; tp = p50["plugin cpi"]
		printf "\nT_cpi p50: stock run %.1f us, plugin run %.1f us\n\n", ts, tp
		printf "%-16s %10s %10s %8s %10s %10s %8s %12s\n", "op", "stock p50", "p99", "/Tcpi", "plugin p50", "p99", "/Tcpi", "stock/plugin"
		for (i = 1; i <= n; i++) {
			split("resolve@ get@ set@", ops, " ")
			for (j = 1; j <= 3; j++) {
				k = ops[j] L[i]
				printf "%-16s %10.1f %10.1f %8.2f %10.1f %10.1f %8.2f %12.2f\n", k,
					p50["stock "k], p99["stock "k], p50["stock "k] / ts,
					p50["plugin "k], p99["plugin "k], p50["plugin "k] / tp,
					p50["stock "k] / p50["plugin "k]
			}
		}
		k = "getstorm@" top
		printf "%-16s %10.1f %10.1f %8.2f %10.1f %10.1f %8.2f %12.2f\n", "get in Set storm",
			p50["stock "k], p99["stock "k], p50["stock "k] / ts,
			p50["plugin "k], p99["plugin "k], p50["plugin "k] / tp, p50["stock "k] / p50["plugin "k]
		printf "\nSets/s growing to %d: stock %s, plugin %s; storm: stock %s/s, plugin %s/s\n",
			top, rate["stock set@"top], rate["plugin set@"top], storm["stock"], storm["plugin"]
		printf "state file (on, default path) after the Sets: %s bytes at %d records; plugin Sets/s growing to %d: %s\n",
			sf[top], top, top, rate["plugin set@"top]
		printf "liveness echo to the SM port: p50 %.1f us (%.2f T_cpi)\n", p50["plugin echo"], p50["plugin echo"] / tp
		printf "agent cached lookup, in process: p50 %.2f us (%.4f T_cpi)\n", p50["plugin cache"], p50["plugin cache"] / tp
		printf "agent cached lookup, one socket connection: p50 %.1f us (%.2f T_cpi)\n", p50["plugin sock"], p50["plugin sock"] / tp
		printf "agent cached lookup, connect per lookup: p50 %.1f us (%.2f T_cpi)\n", p50["plugin sockc"], p50["plugin sockc"] / tp
		printf "OpenSM restart: the SA answered after %d ms, 8 agents had their 16 records back after %d ms\n", up_ms, all_ms
		printf "work in the plugin before sending: %.1f us per indexed Get, %.1f us per Set/Delete (the rest of a round trip is transport)\n", get_ns / 1000, set_ns / 1000
		ms = (rss["stock "top] - rss["stock 0"]) * 1024 / top
		mp = (rss["plugin "top] - rss["plugin 0"]) * 1024 / top
		printf "OpenSM memory per record (RSS growth to %d): stock %.0f B, with plugin %.0f B (%.2fx); the index itself: %.0f B/record\n",
			top, ms, mp, mp / ms, idxrec ? idxbytes / idxrec : 0
		# "ATS Get": the address lookup every connecting host makes.
		g1 = p50["plugin resolve@"low]; g = p50["plugin resolve@"top]
		printf "\ntargets at %d records:\n", top
		printf "  plugin ATS Get (resolve) p50 <= 1.25 T_cpi: %.2f %s\n", g / tp, ok(g / tp <= 1.25)
		printf "  stock/plugin Get p50 >= 20: %.1f %s\n", p50["stock resolve@"top] / g, ok(p50["stock resolve@"top] / g >= 20)
		printf "  plugin Get p50 within 15%% of %d records: %+.1f%% %s\n", low, (g / g1 - 1) * 100, ok(g / g1 <= 1.15)
		printf "  validated Set p50 <= 1.3 T_cpi: %.2f %s\n", p50["plugin set@"top] / tp, ok(p50["plugin set@"top] / tp <= 1.3)
		printf "  cached lookup in process <= 0.05 T_cpi: %.4f %s\n", p50["plugin cache"] / tp, ok(p50["plugin cache"] / tp <= 0.05)
		printf "  cached lookup over the socket <= 0.2 T_cpi: %.2f %s\n", p50["plugin sock"] / tp, ok(p50["plugin sock"] / tp <= 0.2)
		printf "  plugin memory <= 2x stock per record: %.2f %s\n", mp / ms, ok(mp / ms <= 2)
	}' "$out"
rm -f "$out" "$topo"
