#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench-failover (and make bench, after run.sh): SM failover with the
# plugin's replication to a standby SM (issue 14), on run.sh's generated
# fabric plus a second SM node "smhost2".
#   BENCH_HOSTS            CA ports the bulk records spread over (default 400)
#   BENCH_FAILOVER_LEVELS  record counts (default "10000 100000"; 1000 is quick)
#   BENCH_FAILOVER_SETS    timed re-Sets per case (default 2000)
#   BENCH_FAILOVER_STORM   seconds of the Set storm for the lag (default 5)
# Per level, two fabrics. "repl": master (smhost, prio 15) and standby
# (smhost2, prio 10) share a replication key file: the standby's snapshot,
# Set latency with the standby in sync / none yet / stopped (SIGTERM), its
# lag during a Set storm, joins while a Set waits for a deaf standby (one
# that loses what reaches it), then the master's SIGKILL: the new SA answering,
# holding the registrar's records, the agents' Sets after the SM change.
# "off": no key file (no replication), the same failover.
# Prints raw lines "LEVEL MODE what ...", then a summary table.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
HOSTS=${BENCH_HOSTS:-400}
LEVELS=${BENCH_FAILOVER_LEVELS:-"10000 100000"}
SETS=${BENCH_FAILOVER_SETS:-2000}
STORM=${BENCH_FAILOVER_STORM:-5}
SABENCH="$top_builddir/tests/bench/sabench"
MCJOIN="$top_builddir/tests/tools/mcjoin"
# 2 SMs + 4 agents + the registrar and atsctl, one at a time: ibsim's 10
# clients (a SIGKILLed master keeps its slot).
AGENTS="h3 h4 h5 h6"
# Random registrar records looked up after the takeover (and the last one).
SAMPLE=100

. "$top_srcdir/tests/bench/topo.sh"
topo=$(mktemp /tmp/ibats-bench-topo.XXXXXX)
bench_topology "$HOSTS" "$topo" smhost2

# failover_one LEVEL MODE(repl/off)
failover_one() {
	(
		N=$1
		MODE=$2
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo")
		say() { echo "$N $MODE $*"; }
		sa_answers() {
			on h1 "$SABENCH" cpi 1 >/dev/null 2>&1
		}
		# repl FILE KEY: a member of the state file's "replication" object.
		repl() {
			sed -n "s/.*\"replication\": {.*\"$2\": \"\{0,1\}\([^,\"}]*\).*/\1/p" "$1" 2>/dev/null
		}
		index_records() {
			sed -n 's/.*"index": {"records": \([0-9]*\),.*/\1/p' "$1" 2>/dev/null
		}
		stat_of() { # stat_of NODE KEY: a counter of atsctl stats
			agent "$1" stats 2>/dev/null | awk -v k="$2" '$1 == k { print $2 }'
		}
		in_sync_line() { # the standby logged "in sync" more than $1 times
			[ "$(grep -c 'osmats replication: in sync with master' "$RUN/sm2/osm.log" 2>/dev/null)" -gt "$1" ]
		}
		# ms of one IPoIB-style join (an SA Set on OpenSM's Set thread),
		# process start included.
		join_ms() {
			local t0
			t0=$(date +%s%N)
			on h2 "$MCJOIN" join >/dev/null 2>&1 || echo "join failed" >&2
			echo $(( ($(date +%s%N) - t0) / 1000000 ))
		}
		median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
		# A deaf standby in sync owes a Set: the Set's answer waits for its
		# drop (D), joins meanwhile do not; both against joins without it.
		deaf_step() {
			local base held set_us i set h0
			base=$(for i in 1 2 3 4 5 6 7; do join_ms; done | median)
			h0=$(repl "$RUN/osmats-state.json" head)
			simhost smhost2 drop 0x35 on >/dev/null || say "WARNING: smhost2 still hears"
			# As the harness's on(), but exec'ed: $! is sabench itself, so
			# one that hangs is the one cut loose below.
			(cd "$RUN/scratch" && SIM_HOST=h1 LD_PRELOAD=$SIM_PRELOAD exec "$SABENCH" reset 1 \
				"$N" "$HOSTS") >"$RUN/held.out" 2>>"$RUN/slow.log" &
			set=$!
			T_PIDS="$T_PIDS $set"
			# The joins while the Set is made and its answer held (the
			# master's state file shows its head within a second).
			made() { [ "$(repl "$RUN/osmats-state.json" head)" -gt "${h0:-0}" ]; }
			wait_for "the Set to be made" 30 made || say "WARNING: the Set was not made"
			held=$(for i in 1 2 3 4 5 6 7; do join_ms; done | median)
			# Its answer, as sabench times it ("reset P50_US ..."); one
			# that never comes: sabench is cut loose.
			wait_for "the held Set's answer" 60 grep -q '^reset' "$RUN/held.out"
			set_us=$(awk '$1 == "reset" { print $2 }' "$RUN/held.out")
			kill -0 "$set" 2>/dev/null && sm_kill "$set"
			wait "$set" 2>/dev/null
			simhost smhost2 drop 0x35 off >/dev/null || say "WARNING: smhost2 still deaf"
			say "deaf join_base_ms $base join_held_ms $held set_us ${set_us%.*}"
			# Dropped, it catches up: in sync again before the failover.
			wait_for "the standby back in sync" 20 repl_synced "$RUN/sm2/osmats-state.json" \
				"$RUN/osmats-state.json" || say "WARNING: the standby is not back in sync"
		}
		standby_up() { # start the standby; wait for STANDBY (and, repl, in sync)
			local syncs t0
			syncs=$(grep -c 'osmats replication: in sync with master' "$RUN/sm2/osm.log" 2>/dev/null)
			t0=$(date +%s%N)
			second_sm smhost2 10
			wait_for "the standby" 60 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log" || exit 1
			[ "$MODE" = repl ] || return 0
			# Generous: 2 ms a record (one MAD round trip each at worst).
			wait_for "the standby in sync" $((60 + N / 500)) in_sync_line "${syncs:-0}" || exit 1
			say "standby_sync wall_ms $(( ($(date +%s%N) - t0) / 1000000 ))"
			say "$(grep 'osmats replication: snapshot of' "$RUN/sm2/osm.log" | tail -n 1 | sed 's/.*osmats replication: //')"
			# The state file is rewritten at most once a second.
			wait_for "the standby's state file" 5 sh -c "grep -q '\"in_sync\": true' '$RUN/sm2/osmats-state.json'"
			say "standby_state snapshot_ms $(repl "$RUN/sm2/osmats-state.json" snapshot_ms) snapshot_records $(repl "$RUN/sm2/osmats-state.json" snapshot_records) snapshots $(repl "$RUN/sm2/osmats-state.json" snapshots)"
		}
		{
			two_sm_opts
			# The registrar's SA key (sabench's BENCH_SA_KEY).
			echo "sa_key 0x5a5a"
			[ "$MODE" = repl ] && repl_key
		} >"$RUN/opensm.extra"
		fabric_start "$(basename "$topo")"
		t0=$(date +%s%N)
		r=$(on h1 "$SABENCH" grow 0 "$N" "$HOSTS") || exit 1
		say "grow $r"
		say "grow wall_ms $(( ($(date +%s%N) - t0) / 1000000 ))"
		i=0
		ips=""
		for a in $AGENTS; do
			i=$((i + 1))
			agent_start "$a" "address 10.251.0.$i primary" "address 10.251.1.$i" \
				"cache_ttl 3600" "verify_interval 3600" "sm_poll_interval 1" \
				"backoff_max 2" || exit 1
			ips="$ips 10.251.0.$i 10.251.1.$i"
		done
		# Outside the bulk records' 10.1-250.x.x.
		wait_for "the agents' records" 60 on h1 "$SABENCH" restore 1 $ips || exit 1
		# Sets slower than 100 ms are named in $RUN/slow.log (kept with T_KEEP=1).
		export SABENCH_SLOW_MS=100
		say "sets_nostandby $(on h1 "$SABENCH" reset "$SETS" "$N" "$HOSTS" 2>>"$RUN/slow.log")"
		standby_up
		if [ "$MODE" = repl ]; then
			# Whether the master's state file shows the standby without a
			# change to make it rewrite the file.
			t1=$(date +%s%N)
			if wait_for "the master's state file to show the standby" 3 sh -c \
				"grep -q '\"standbys_in_sync\": 1' '$RUN/osmats-state.json'" >/dev/null; then
				say "master_state standbys_in_sync 1 after $(( ($(date +%s%N) - t1) / 1000000 )) ms"
			else
				say "master_state standbys_in_sync $(repl "$RUN/osmats-state.json" standbys_in_sync) after 3000 ms (no change since the standby came)"
			fi
			say "sets_insync $(on h1 "$SABENCH" reset "$SETS" "$N" "$HOSTS" 2>>"$RUN/slow.log")"
			wait_for "the master's state file" 3 sh -c "grep -q '\"standbys_in_sync\": 1' '$RUN/osmats-state.json'" >/dev/null &&
				say "master_state standbys_in_sync 1 after the Sets"
			# The standby's lag during a Set storm, sampled from both state
			# files (each rewritten at most once a second).
			on h2 "$SABENCH" storm "$STORM" "$N" "$HOSTS" >"$RUN/storm.out" &
			storm=$!
			wait_for "the storm" 10 grep -q started "$RUN/storm.out"
			# Samples from the storm's first half second on: an idle
			# standby's lag_ms grows to the master's 200 ms hold.
			storm_t0=$(date +%s.%N)
			# The standby's file: the master's head as last heard, what it
			# applied, the age of its last answered pull, in sync or not.
			ps=""
			: >"$RUN/lag.samples"
			while kill -0 "$storm" 2>/dev/null; do
				s=$(stat -c %.9Y "$RUN/sm2/osmats-state.json" 2>/dev/null)
				if [ -n "$s" ] && [ "$s" != "$ps" ]; then
					echo "$s $(repl "$RUN/sm2/osmats-state.json" head) $(repl "$RUN/sm2/osmats-state.json" applied) $(repl "$RUN/sm2/osmats-state.json" lag_ms) $(repl "$RUN/sm2/osmats-state.json" in_sync)" >>"$RUN/lag.samples"
					ps=$s
				fi
				sleep 0.05
			done
			wait "$storm"
			say "$(tail -n 1 "$RUN/storm.out")"
			say "storm_lag $(awk -v t0="$storm_t0" '
				$1 < t0 + 0.5 || NF != 5 { next }
				{
					n++; d = $2 - $3; sum += d
					if (d > maxd) maxd = d
					if ($4 > maxms) maxms = $4
					if ($5 != "true") notsync++
				}
				END {
					printf "head_minus_applied_max %d mean %.1f max_lag_ms %d samples %d not_in_sync %d",
						maxd, n ? sum / n : 0, maxms, n, notsync
				}' "$RUN/lag.samples")"
			# After the storm: the standby's applied reaches the master's head
			# (as the master's state file shows it: rewritten at most once a
			# second).
			t1=$(date +%s%N)
			caught() {
				local h a
				h=$(repl "$RUN/osmats-state.json" head)
				a=$(repl "$RUN/sm2/osmats-state.json" applied)
				[ -n "$h" ] && [ "$h" = "$a" ]
			}
			wait_for "the standby to catch up" 10 caught
			say "storm_end head $(repl "$RUN/osmats-state.json" head) applied $(repl "$RUN/sm2/osmats-state.json" applied) caught_ms $(( ($(date +%s%N) - t1) / 1000000 ))"
			# SIGTERM: the standby's leaving pull lets the master stop waiting.
			stops=$(grep -c 'osmats replication: standby SM port .* stops' "$RUN/osm.log")
			stop_pid "$SM2"
			wait_for "the master to hear the standby leave" 10 sh -c \
				"[ \$(grep -c 'osmats replication: standby SM port .* stops' '$RUN/osm.log') -gt $stops ]" ||
				say "WARNING: no 'stops' line on the master"
			say "sets_stopped $(on h1 "$SABENCH" reset "$SETS" "$N" "$HOSTS" 2>>"$RUN/slow.log")"
			# Back; deaf_step has its simulated host lose the
			# replication MADs reaching it (simhost's drop: one-way loss).
			standby_up
			deaf_step
		fi
		# The failover. Agents' counters first: they only sync again on
		# an SM change (verify_interval 3600).
		for a in $AGENTS; do
			eval "sets0_$a=\$(stat_of $a sets) syncs0_$a=\$(stat_of $a syncs) smc0_$a=\$(stat_of $a sm_changes)"
		done
		wait_all=0
		[ "$MODE" = repl ] && wait_all=1
		t=$(on h1 "$SABENCH" takeover 60 "$N" "$HOSTS" "$SM_PID" "$SAMPLE" "$wait_all" $ips | tail -n 1)
		wait "$SM_PID" 2>/dev/null
		say "$t"
		kill_ns=$(echo "$t" | awk '{ print $3 }')
		# Every agent saw the SM change and synced after it.
		agents_sets=0
		for a in $AGENTS; do
			synced_after() {
				local s0 c0
				eval "s0=\$syncs0_$1 c0=\$smc0_$1"
				[ "$(stat_of "$1" sm_changes)" -gt "$c0" ] && [ "$(stat_of "$1" syncs)" -gt "$s0" ]
			}
			wait_for "$a to sync after the SM change" 30 synced_after "$a" ||
				say "WARNING: $a did not sync after the SM change"
			eval "s0=\$sets0_$a"
			s1=$(stat_of "$a" sets)
			say "agent $a sets_after $((s1 - s0)) sm_changes $(stat_of "$a" sm_changes) sync_failures $(stat_of "$a" sync_failures)"
			agents_sets=$((agents_sets + s1 - s0))
		done
		say "agents_synced ms_after_kill $(( ($(date +%s%N) - kill_ns) / 1000000 )) sets $agents_sets"
		# What the new master holds: its state file's index (the agents'
		# 8 records plus whatever survived of the registrar's N).
		want=$((N + 8))
		[ "$MODE" = repl ] || want=8
		has_want() { [ "$(index_records "$RUN/sm2/osmats-state.json")" = "$want" ]; }
		wait_for "the new master's state file" 5 has_want
		say "new_master index_records $(index_records "$RUN/sm2/osmats-state.json") installed $(repl "$RUN/sm2/osmats-state.json" installed) takeovers $(repl "$RUN/sm2/osmats-state.json" takeovers)"
		say "log $(grep -E 'osmats replication: installed|WRN 7A4[0-4]' "$RUN/sm2/osm.log" | tail -n 1 | sed 's/.*\(osmats replication\|WRN\)/\1/')"
		say "master_log_warnings $(grep -c 'WRN 7A4[1-3]' "$RUN/osm.log")"
		say "slow_sets_over_100ms $(grep -c 'took' "$RUN/slow.log" 2>/dev/null)"
	)
}

echo "# ibats failover bench $(date -u +%F): $HOSTS ports, levels $LEVELS, $SETS Sets per case"
out=$(mktemp /tmp/ibats-bench-failover.XXXXXX)
t_start=$(date +%s)
for n in $LEVELS; do
	for mode in repl off; do
		failover_one "$n" "$mode" || echo "$n $mode FAILED"
	done
done | tee "$out"
echo "# took $(( $(date +%s) - t_start )) s"
failed=$(grep -c ' FAILED$' "$out")
awk -v levels="$LEVELS" '
	{ k = $1 " " $2 " " $3 }
	$3 ~ /^sets_/ { p50[k] = $5; p99[k] = $6; rate[k] = $8; mx[k] = $10; slow[k] = $12 }
	$3 == "snapshot" { snap_ms[$1] = $12; snap_n[$1] = $5 }
	$3 == "standby_sync" { sync_wall[$1] = $5 }
	$3 == "storm" && $5 == "Sets" { storm[$1] = $6 }
	$3 == "storm_lag" { lag[$1] = ($11 - $13) "/" $11; lagd[$1] = $5 " (" $7 ")"; lagms[$1] = $9 }
	$3 == "takeover" && $4 == "kill_ns" { lid[k] = $7; up[k] = $9; recs[k] = $11; found[k] = $13 "/" $15; ag[k] = $17 }
	$3 == "agents_synced" { asets[k] = $7; async[k] = $5 }
	$3 == "new_master" { idx[k] = $5; inst[k] = $7 }
	$3 == "deaf" { jb[$1] = $5; jh[$1] = $7; jr[$1] = $5 ? sprintf("%.2f", $7 / $5) : "-"; ds[$1] = int($9 / 1000) }
	END {
		for (k in mx) mxs[k] = mx[k] " (" slow[k] ")"
		n = split(levels, L, " ")
		printf "\n%-34s", "level (registrar records)"
		for (i = 1; i <= n; i++) printf " %14s", L[i]
		printf "\n"
		row("standby snapshot, ms (log)", snap_ms, "")
		row("standby start to in sync, ms", sync_wall, "")
		row("Set p50 us, no standby (repl on)", p50, "repl sets_nostandby", 1)
		row("Set p50 us, no standby (repl off)", p50, "off sets_nostandby", 1)
		row("Set p50 us, replication, in sync", p50, "repl sets_insync", 1)
		row("Set p99 us, in sync", p99, "repl sets_insync", 1)
		row("Set max us (>10 ms), in sync", mxs, "repl sets_insync", 1)
		row("Set p50 us, standby stopped", p50, "repl sets_stopped", 1)
		row("Set p99 us, standby stopped", p99, "repl sets_stopped", 1)
		row("Set max us (>10 ms), stopped", mxs, "repl sets_stopped", 1)
		row("Sets/s in sync", rate, "repl sets_insync", 1)
		row("Sets/s standby stopped", rate, "repl sets_stopped", 1)
		row("storm Sets/s (in sync)", storm, "")
		row("storm: standby in sync, samples", lag, "")
		row("storm head-applied max (mean)", lagd, "")
		row("storm max lag_ms", lagms, "")
		printf "a deaf standby (its answers lost):\n"
		row("  join ms, no Set held (median)", jb, "")
		row("  join ms, a Set held for it", jh, "")
		row("  ratio held / not held", jr, "")
		row("  the held Set answered, ms", ds, "")
		printf "failover (master SIGKILLed):\n"
		row("  new SM LID in PortInfo, ms", lid, "repl takeover", 1)
		row("  SA answers, ms", up, "repl takeover", 1)
		row("  101 sampled records there, ms", recs, "repl takeover", 1)
		row("  agents records resolve, ms", ag, "repl takeover", 1)
		row("  agents synced, ms", async, "repl agents_synced", 1)
		row("  agents Sets after the change", asets, "repl agents_synced", 1)
		row("  records on the new master", idx, "repl new_master", 1)
		row("  installed from the copy", inst, "repl new_master", 1)
		printf "same failover, replication off:\n"
		row("  SA answers, ms", up, "off takeover", 1)
		row("  sampled records found", found, "off takeover", 1)
		row("  agents records resolve, ms", ag, "off takeover", 1)
		row("  agents synced, ms", async, "off agents_synced", 1)
		row("  agents Sets (re-registration)", asets, "off agents_synced", 1)
		row("  records on the new master", idx, "off new_master", 1)
	}
	function row(name, a, key, keyed,   i, v) {
		printf "%-34s", name
		for (i = 1; i <= n; i++) {
			v = keyed ? a[L[i] " " key] : a[L[i]]
			printf " %14s", v == "" ? "-" : v
		}
		printf "\n"
	}' "$out"
rm -f "$out" "$topo"
[ "$failed" -eq 0 ]
