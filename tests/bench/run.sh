#!/bin/bash
# make bench: SA latencies on ibsim with stock OpenSM and with the plugin,
# as ratios to T_cpi (SA ClassPortInfo round trip) measured in the same run.
#   BENCH_HOSTS (default 64) hosts; BENCH_PER (default 16) records per host.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
HOSTS=${BENCH_HOSTS:-64}
PER=${BENCH_PER:-16}
SABENCH="$top_builddir/tests/bench/sabench"

# A fabric big enough: leaf switches of 16 hosts under one spine.
topo=$(mktemp /tmp/ibats-bench-topo.XXXXXX)
{
	nleaf=$(( (HOSTS + 15) / 16 ))
	printf 'Switch\t%d "spine"\n' $((nleaf + 1))
	for l in $(seq 1 "$nleaf"); do printf '[%d]\t"leaf%d"[17]\n' "$l" "$l"; done
	printf '[%d]\t"smhost"[1]\n\n' $((nleaf + 1))
	for l in $(seq 1 "$nleaf"); do
		printf 'Switch\t17 "leaf%d"\n' "$l"
		for i in $(seq 1 16); do
			h=$(( (l - 1) * 16 + i ))
			[ "$h" -le "$HOSTS" ] && printf '[%d]\t"h%d"[1]\n' "$i" "$h"
		done
		printf '[17]\t"spine"[%d]\n\n' "$l"
	done
	printf 'Hca\t1 "smhost"\n[1]\t"spine"[%d]\n\n' $((nleaf + 1))
	for h in $(seq 1 "$HOSTS"); do
		l=$(( (h - 1) / 16 + 1 )); i=$(( (h - 1) % 16 + 1 ))
		printf 'Hca\t1 "h%d"\n[1]\t"leaf%d"[%d]\n\n' "$h" "$l" "$i"
	done
} >"$topo"

bench_one() { # bench_one LABEL PLUGIN(0/1)
	(
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo")
		sa_answers() {
			on h1 "$SABENCH" cpi 1 >/dev/null 2>&1
		}
		if [ "$2" -eq 0 ]; then
			sm_start() {
				(cd "$RUN" && SIM_HOST=smhost OSM_CACHE_DIR="$RUN/cache" OSM_TMP_DIR="$RUN" \
					LD_PRELOAD="$SIM_PRELOAD" exec "$OPENSM" -f "$RUN/osm.log" -s 0) \
					>"$RUN/opensm.out" 2>&1 &
				SM_PID=$!
				T_PIDS="$T_PIDS $!"
				wait_for "the SA" 60 sa_answers
			}
		fi
		fabric_start "$(basename "$topo")"
		cpi=$(on h1 "$SABENCH" cpi 2000)
		set=$(on h1 "$SABENCH" load "$HOSTS" "$PER")
		get=$(on h1 "$SABENCH" get 2000 "$HOSTS" "$PER")
		echo "$1 $cpi"
		echo "$1 $set"
		echo "$1 $get"
		if [ "$2" -eq 1 ]; then
			# The SM port's liveness responder, and a cached lookup
			# through an agent (ibsim mode, static address).
			echo "$1 $(on h1 "$SABENCH" echo 2000 1)"
			agent_start h2 "address 10.200.0.2 primary" "ibsim yes" "cache_ttl 3600"
			wait_for "h2 registered" 20 sh -c "cd $RUN/scratch && SIM_HOST=h2 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -S $RUN/atsd-h2.sock resolve 10.200.0.2 >/dev/null"
			echo "$1 $(on h2 "$SABENCH" sock 2000 "$RUN/atsd-h2.sock" 10.200.0.2)"
		fi
	)
}

echo "# ibats bench: $HOSTS hosts x $PER ATS records = $((HOSTS * PER)) records"
{
	bench_one stock 0
	bench_one plugin 1
} | tee /tmp/ibats-bench.$$
awk '
	{ p50[$1" "$2] = $3; p99[$1" "$2] = $4 }
	END {
		printf "\n%-8s %-4s %9s %9s %8s\n", "sm", "op", "p50 us", "p99 us", "p50/Tcpi"
		split("stock plugin", sms, " "); split("cpi set get echo sock", ops, " ")
		for (i = 1; i <= 2; i++) for (j = 1; j <= 5; j++) {
			k = sms[i]" "ops[j]
			if (!(k in p50)) continue
			printf "%-8s %-4s %9.1f %9.1f %8.2f\n", sms[i], ops[j], p50[k], p99[k], p50[k] / p50[sms[i]" cpi"]
		}
		printf "stock/plugin ATS Get p50: %.2f\n", p50["stock get"] / p50["plugin get"]
	}' /tmp/ibats-bench.$$
rm -f /tmp/ibats-bench.$$ "$topo"
