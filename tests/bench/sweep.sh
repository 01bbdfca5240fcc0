#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench-sweep: the plugin's periodic work on the largest fabric
# ibsim holds (issue 27, goal 3), stock OpenSM against OpenSM with the
# plugin in the same run.
#   BENCH_SWEEP_NODES    ibsim nodes in all (default 2048: ibsim's
#                        MAXNETNODES, switches included)
#   BENCH_SWEEP_LEAF     leaf switch ports, 36 or 64 (default 36)
#   BENCH_SWEEP_RECORDS  records on that fabric (default 100000)
#   BENCH_SWEEP_SWEEPS   timed heavy sweeps per SM (default 9)
#   BENCH_SWEEP_DEPART   hosts unlinked at once (default 500)
#   BENCH_SWEEP_BIG      records of the second fabric: worker writes and
#                        replication (default 1000000)
#   BENCH_SWEEP_QUICK=1  a quick run (about 2 min): 10000 records, 3
#                        sweeps, 100 departures, 100000 big
# Fabric 1, twice (stock, plugin): a two-level fat tree (topo.sh
# bench_fattree) of one-port CAs, RECORDS bulk records (bulk.h) Set by
# capbench from 4 nodes with the trusted SA key. SWEEPS heavy sweeps, each
# from the SIGHUP to the timestamp of OpenSM's "SUBNET UP" line (sweeps
# on traps off: a SIGHUP makes exactly one). With the plugin: the
# worker's pass after the last sweep (reconcile, index check, scan) from
# that timestamp to the state file's birth, the state file and metrics
# file writes from each file's birth to its change (rename), their
# bytes; ATS lookups (one outstanding) over 2 s without a pass, and over
# 2 s with one (a re-Set 10 s after the last scan makes the worker scan
# and write). Then DEPART hosts are unlinked in ibsim and one SIGHUP
# sweep notices them; with the plugin, the first and last WRN 7A10
# (flush) lines and what the SA still holds (a GetTable of every ATS
# record).
# Fabric 2, plugin only: run.sh's fabric of 4-port CAs (1M records need
# 4,000 GIDs at 250 SIDs each) plus a standby SM "smhost2": BIG records,
# the worker's pass and writes, lookups with and without a pass, then
# the standby's snapshot, the master's SIGKILL and the standby's install.
# Prints raw lines "SM what ...", then a summary with the goals.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
if [ -n "${BENCH_SWEEP_QUICK:-}" ]; then
	: "${BENCH_SWEEP_RECORDS:=10000}" "${BENCH_SWEEP_SWEEPS:=3}" "${BENCH_SWEEP_DEPART:=100}"
	: "${BENCH_SWEEP_BIG:=100000}"
fi
NODES=${BENCH_SWEEP_NODES:-2048}
LEAF=${BENCH_SWEEP_LEAF:-36}
RECORDS=${BENCH_SWEEP_RECORDS:-100000}
SWEEPS=${BENCH_SWEEP_SWEEPS:-9}
DEPART=${BENCH_SWEEP_DEPART:-500}
BIG=${BENCH_SWEEP_BIG:-1000000}
CLIENTS=4
WINDOW=16
LOOKUP_SECS=2
CAPBENCH="$top_builddir/tests/bench/capbench"
SABENCH="$top_builddir/tests/bench/sabench"

. "$top_srcdir/tests/bench/topo.sh"
topo=$(mktemp /tmp/ibats-sweep-topo.XXXXXX)
bench_fattree "$NODES" "$LEAF" "$topo"
HOSTS=$FATTREE_HOSTS
# Fabric 2: CAs of 4 ports on leaves of 64 under one spine, as capacity.sh.
NGIDS2=$(( (BIG + 249) / 250 ))
NGIDS2=$(( NGIDS2 < 256 ? 256 : (NGIDS2 + 3) / 4 * 4 ))
topo2=$(mktemp /tmp/ibats-sweep-topo2.XXXXXX)
TOPO_PER=64 TOPO_PORTS=4 bench_topology $((NGIDS2 / 4)) "$topo2" smhost2

# Shared by both fabrics' subshells, after harness.sh.
bench_helpers() {
	sa_answers() {
		on h1 "$CAPBENCH" cpi 0.01 1 >/dev/null 2>&1
	}
	# us since the epoch of an OpenSM log line ("Nov 26 20:17:31 011157 ...")
	log_us() {
		echo "$(date -d "$(echo "$1" | cut -d' ' -f1-3)" +%s)$(echo "$1" | cut -d' ' -f4)"
	}
	now_us() {
		echo $(( $(date +%s%N) / 1000 ))
	}
	# sweep: one heavy sweep (SIGHUP); SWEEP_US the time to its SUBNET
	# UP line, UP_US that line's time.
	sweep() {
		local n t0
		n=$(subnet_ups)
		SWEEP_BORN=$(born)
		t0=$(now_us)
		kill -HUP "$SM_PID"
		wait_subnet_up "$n" >&2 || exit 1
		UP_US=$(log_us "$(grep 'SUBNET UP' "$RUN/osm.log" | sed -n "$((n + 1))p")")
		SWEEP_US=$((UP_US - t0))
	}
	# load FROM TO NGIDS: capbench's pipelined load from CLIENTS nodes
	# (split by GID); "ok secs per_second failed lost".
	load() {
		bench_clients load load "$1" "$2" "$3" "$WINDOW" @I@ "$CLIENTS"
		cat "$RUN"/load.* | awk '$1 == "load" { ok += $2; f += $7; l += $8; if ($3 > t) t = $3 }
			END { printf "%d %.1f %.0f failed %d lost %d\n", ok, t, (t > 0 ? ok / t : 0), f, l }'
	}
	# us of a file's birth and of its last change (the rename), bytes.
	# ext4 takes them from the coarse clock: steps of a jiffy (4 ms).
	file_times() {
		stat -c '%.6W %.6Z %s' "$1" 2>/dev/null | awk '{ printf "%.0f %.0f %d\n", $1 * 1e6, $2 * 1e6, $3 }'
	}
	born() {
		file_times "$RUN/osmats-state.json" | cut -d' ' -f1
	}
	# writes AFTER_US BIRTH: once the state file is a new one (not born
	# at BIRTH), the worker's pass (AFTER_US to the state file's birth),
	# each file's write time (birth to rename) and bytes.
	writes() {
		local after=$1 prev=$2 st pr
		born_anew() { [ "$(born)" != "$prev" ]; }
		wait_for "the state file" 30 born_anew || return 1
		# The metrics file follows it at once.
		sleep 0.2
		st=$(file_times "$RUN/osmats-state.json")
		pr=$(file_times "$RUN/osmats.prom")
		echo "$st $pr" | awk -v a="$after" '{ printf "pass_us %d state_us %d state_bytes %d prom_us %d prom_bytes %d\n",
			$1 - a, $2 - $1, $3, $5 - $4, $6 }'
	}
	# quiet_and_pass COUNT NGIDS: lookups over LOOKUP_SECS without a
	# worker pass, then over LOOKUP_SECS with the pass a re-Set starts
	# (the scan interval, 10 s since the last scan, elapsed first).
	quiet_and_pass() {
		local n=$1 ng=$2 t0 r b
		sleep 10
		say "lookup_quiet@$n $(on h1 "$CAPBENCH" lookup "$LOOKUP_SECS" 1 "$n" "$ng")"
		b=$(born)
		t0=$(now_us)
		on h1 "$CAPBENCH" lookup "$LOOKUP_SECS" 1 "$n" "$ng" >"$RUN/lookup.out" &
		r=$!
		sleep 0.5
		on h2 "$CAPBENCH" reset 0.001 1 "$n" "$ng" >/dev/null 2>&1
		wait "$r"
		say "lookup_pass@$n $(cat "$RUN/lookup.out") $(writes "$t0" "$b")"
		say "write_times@$n $(write_times "$n" "$ng")"
	}
	# write_times COUNT NGIDS: the state file's and the metrics file's
	# writes (open of the temporary to the end of its rename, the file
	# times are in jiffies) in a trace of OpenSM's file calls while a
	# re-Set has the worker write them (no scan: within 10 s of the last).
	write_times() {
		local p c0
		if ! command -v perf >/dev/null; then
			echo "state_write_us - prom_write_us - (no perf)"
			return 0
		fi
		c0=$(stat -c %.9Z "$RUN/osmats.prom")
		perf trace -p "$SM_PID" -e openat,fsync,rename,renameat,renameat2 \
			-o "$RUN/perf.out" >/dev/null 2>&1 &
		p=$!
		# perf attaches to every thread first (seconds on a busy machine).
		sleep 2
		on h2 "$CAPBENCH" reset 0.001 1 "$1" "$2" >/dev/null 2>&1
		prom_changed() { [ "$(stat -c %.9Z "$RUN/osmats.prom")" != "$c0" ]; }
		wait_for "the worker's writes" 5 prom_changed
		sleep 0.2
		kill -INT "$p"
		wait "$p"
		# "T ( D ms): comm/tid call(...) = R": afile_tmp's open (EXCL,
		# NOFOLLOW) to the same thread's rename, twice.
		awk '{ t = $1; d = $0; sub(/^[^(]*\(/, "", d); c = $0; sub(/^[^:]*: */, "", c); split(c, f, " ") }
			/EXCL/ && n < 2 { n++; t0[n] = t; tid[n] = f[1] }
			/rename/ && n && f[1] == tid[n] && !t1[n] { t1[n] = t + d }
			END { if (!t1[2]) { print "state_write_us - prom_write_us - (not traced)"; exit }
				printf "state_write_us %.0f prom_write_us %.0f\n", (t1[1] - t0[1]) * 1000, (t1[2] - t0[2]) * 1000 }' \
			"$RUN/perf.out"
	}
}

# sweep_one LABEL PLUGIN(0/1): fabric 1.
sweep_one() {
	(
		L=$1
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo")
		say() { echo "$L $*"; }
		bench_helpers
		export IBSIM_SOCKNAME="$IBSIM_SOCKNAME-$L"
		# A SIGHUP makes one heavy sweep: none on the traps of unlinks.
		printf 'sa_key 0x5a5a\nsweep_on_trap FALSE\n' >"$RUN/opensm.extra"
		[ "$2" -eq 0 ] && SM_CONF="$RUN/opensm-stock.conf"
		t0=$(now_us)
		fabric_start "$(basename "$topo")"
		say "fabric nodes $NODES leaf $LEAF hosts $HOSTS up_ms $(( ($(now_us) - t0) / 1000 ))"
		on h1 "$CAPBENCH" ports "$RUN/gids" || exit 1
		export CAPBENCH_GIDS="$RUN/gids"
		ng=$(( $(stat -c %s "$RUN/gids") / 16 ))
		say "load@$RECORDS ngids $ng $(load 0 "$RECORDS" "$ng")"
		for i in $(seq 1 "$SWEEPS"); do
			turn "sweep.$i"
			sweep
			say "sweep $i $SWEEP_US"
			turn_done "sweep.$i"
		done
		turn extra
		if [ "$2" -eq 1 ]; then
			say "writes_sweep@$RECORDS $(writes "$UP_US" "$SWEEP_BORN")"
			quiet_and_pass "$RECORDS" "$ng"
		fi
		turn_done extra
		turn depart
		# The departures: the last DEPART hosts, far from the clients.
		n0=$(grep -c 'sim>' "$RUN/ibsim.log")
		for i in $(seq $((HOSTS - DEPART + 1)) "$HOSTS"); do
			echo "Unlink \"h$i\""
		done >"$RUN/ibsim.in"
		unlinked() { [ "$(grep -o 'sim>' "$RUN/ibsim.log" | wc -l)" -ge $((n0 + DEPART)) ]; }
		wait_for "ibsim's unlinks" 30 unlinked || say "WARNING: not all unlinked"
		f0=$(grep -c 'WRN 7A10' "$RUN/osm.log")
		sweep
		say "depart $DEPART sweep $SWEEP_US"
		if [ "$2" -eq 1 ]; then
			flushed_all() { [ "$(sed -n 's/.*"absent": \([0-9]*\).*/\1/p' "$RUN/osmats-state.json")" = 0 ]; }
			wait_for "the flush" 60 flushed_all || say "WARNING: absent records left"
			fl=$(grep 'WRN 7A10' "$RUN/osm.log" | tail -n +$((f0 + 1)))
			first=$(log_us "$(echo "$fl" | head -n 1)")
			last=$(log_us "$(echo "$fl" | tail -n 1)")
			say "flush records $(echo "$fl" | grep -c 7A10) first_us $((first - UP_US)) last_us $((last - UP_US)) span_us $((last - first))"
		fi
		say "held $(on h1 "$CAPBENCH" dump 240)"
		turn_done depart
	)
}

# Both SMs' fabrics run side by side, each with its own simulator; they
# take turns for each step (steps below), so that the other load on the
# machine weighs on stock and plugin alike. turn STEP: wait for this
# SM's go; turn_done STEP: tell the script.
SYNC=$(mktemp -d /tmp/ibats-sweep-sync.XXXXXX)
turn() {
	wait_for "the turn of $1" 3600 test -e "$SYNC/$L.$1.go" || exit 1
}
turn_done() {
	touch "$SYNC/$L.$1.done"
}
# step STEP PID...: the SMs of PIDs (the subshells, stock first) in turn.
step() {
	local st=$1 l pid
	shift
	for l in stock plugin; do
		pid=$1
		shift
		touch "$SYNC/$l.$st.go"
		while [ ! -e "$SYNC/$l.$st.done" ] && kill -0 "$pid" 2>/dev/null; do
			sleep 0.05
		done
	done
}

# big_one: fabric 2, plugin and a standby.
big_one() {
	(
		L=big
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo2")
		say() { echo "$L $*"; }
		bench_helpers
		{
			two_sm_opts
			echo "sa_key 0x5a5a"
			repl_key
		} >"$RUN/opensm.extra"
		fabric_start "$(basename "$topo2")"
		on h1 "$CAPBENCH" ports "$RUN/gids" || exit 1
		export CAPBENCH_GIDS="$RUN/gids"
		ng=$(( $(stat -c %s "$RUN/gids") / 16 ))
		say "load@$BIG ngids $ng $(load 0 "$BIG" "$ng")"
		sweep
		say "big_sweep $SWEEP_US"
		say "writes_sweep@$BIG $(writes "$UP_US" "$SWEEP_BORN")"
		quiet_and_pass "$BIG" "$ng"
		# The standby: its snapshot, then the master's SIGKILL.
		t0=$(now_us)
		second_sm smhost2 10
		wait_for "the standby" 60 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log" || exit 1
		wait_for "the standby in sync" $((60 + BIG / 2000)) \
			grep -q 'osmats replication: in sync with master' "$RUN/sm2/osm.log" || exit 1
		say "standby_sync wall_ms $(( ($(now_us) - t0) / 1000 ))"
		say "$(grep 'osmats replication: snapshot of' "$RUN/sm2/osm.log" | tail -n 1 | sed 's/.*osmats replication: //')"
		# Samples read with sabench's own port list (the same order).
		say "$(on h1 "$SABENCH" takeover 120 "$BIG" "$ng" "$SM_PID" 100 1 | tail -n 1)"
		wait "$SM_PID" 2>/dev/null
		say "$(grep 'osmats replication: installed' "$RUN/sm2/osm.log" | tail -n 1 | sed 's/.*osmats replication: //')"
		has_all() { [ "$(sed -n 's/.*"index": {"records": \([0-9]*\),.*/\1/p' "$RUN/sm2/osmats-state.json")" = "$BIG" ]; }
		wait_for "the new master's state file" 30 has_all
		say "new_master index_records $(sed -n 's/.*"index": {"records": \([0-9]*\),.*/\1/p' "$RUN/sm2/osmats-state.json")"
	)
}

echo "# ibats sweep bench $(date -u +%F): $NODES nodes (leaves of $LEAF, $HOSTS hosts), $RECORDS records, $SWEEPS sweeps, $DEPART departures; $BIG records on fabric 2; load: $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(mktemp /tmp/ibats-sweep.XXXXXX)
t_start=$(date +%s)
{
	sweep_one stock 0 &
	s=$!
	sweep_one plugin 1 &
	p=$!
	for st in $(seq 1 "$SWEEPS" | sed 's/^/sweep./') extra depart; do
		step "$st" "$s" "$p"
	done
	wait "$s" "$p"
	big_one
} | tee "$out"
echo "# took $(( $(date +%s) - t_start )) s; load: $(cut -d' ' -f1-3 /proc/loadavg)"
sh "$top_srcdir/tests/bench/sweep_report.sh" "$out" "$RECORDS" "$BIG" "$DEPART"
rm -rf "$out" "$topo" "$topo2" "$SYNC"
