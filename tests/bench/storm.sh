#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench-storm (issue 27, goal 2): the start-up storm. As many agents
# as ibsim holds clients for (10 in all: OpenSM's node and one node per
# atsd), a table of N ATS records none of them has looked up, then at once
# on every agent 64 local clients asking for all N addresses (capbench
# atsd, each client its share). Against it the prefetch alternative: every
# agent's node reads the whole ATS table with one SubnAdmGetTable, at once
# (capbench dump). Everything runs on the simulated host (simhost).
#   BENCH_STORM_RECORDS  N, the table (default 4000)
#   BENCH_STORM_AGENTS   agents, one a node (default 9: ibsim's limit)
#   BENCH_STORM_CLIENTS  local clients per agent (default 64)
#   BENCH_STORM_DEPTH    atsd's sa_depth; unset: atsd's default. Given
#                        only to an atsd whose configuration knows the key
#   BENCH_STORM_QUICK=1  the development run: 1000 records, 2 s capacity
#                        measurements (about a minute)
#   BENCH_SECS           seconds per capacity measurement (default 5)
#   BENCH_CLIENTS, BENCH_WINDOW  the capacity measurement's client nodes
#                        and requests outstanding per node (4, 16: as
#                        capacity.sh)
#   BENCH_OUT            where the raw lines go (default storm.out in the
#                        build directory)
# The bound: N x agents SA lookups at the run's pipelined ClassPortInfo
# capacity (the transport's ceiling); the goal is the storm within 1.25x
# of it. The SA's queue depth: the SM node's MADs received minus sent
# (its simulated kernel's counters: requests OpenSM holds unanswered),
# sampled every 50 ms, and the agents' sa_inflight summed where atsctl
# stats has it and gets through (atsd takes 64 connections: with 64
# local clients, only at BENCH_STORM_CLIENTS=63). OpenSM's max_msg_fifo_timeout drops: the lines
# osm_sa_mad_ctrl.c (sa_mad_ctrl_process) logs for each, counted.
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
TCK=$(getconf CLK_TCK)
if [ -n "${BENCH_STORM_QUICK:-}" ]; then
	RECORDS=${BENCH_STORM_RECORDS:-1000}
	SECS=${BENCH_SECS:-2}
else
	RECORDS=${BENCH_STORM_RECORDS:-4000}
	SECS=${BENCH_SECS:-5}
fi
AGENTS=${BENCH_STORM_AGENTS:-9}
LOCAL=${BENCH_STORM_CLIENTS:-64}
CLIENTS=${BENCH_CLIENTS:-4}
WINDOW=${BENCH_WINDOW:-16}
OUT=${BENCH_OUT:-$top_builddir/storm.out}
CAPBENCH="$top_builddir/tests/bench/capbench"
# libtool's binary itself: its wrapper forks a shell and sed each time.
[ -x "$top_builddir/tests/bench/.libs/capbench" ] && CAPBENCH="$top_builddir/tests/bench/.libs/capbench"
# osm_sa_mad_ctrl.c, sa_mad_ctrl_process: a Get that finds the SA's
# dispatcher queue older than max_msg_fifo_timeout is dropped, unanswered.
DROP_MSG="Dropping MAD since the dispatcher is already overloaded"

# GIDs: at most 250 records each (an ATS GID has 256 SIDs); CAs of 4
# ports, the agents' nodes first.
NGIDS=$(( (RECORDS + 249) / 250 ))
NGIDS=$(( NGIDS < 16 ? 16 : (NGIDS + 3) / 4 * 4 ))
HOSTS=$(( NGIDS / 4 > AGENTS ? NGIDS / 4 : AGENTS ))
. "$top_srcdir/tests/bench/topo.sh"
topo=$(mktemp /tmp/ibats-storm-topo.XXXXXX)
TOPO_PER=64 TOPO_PORTS=4 bench_topology "$HOSTS" "$topo"

storm() {
	(
		. "$top_srcdir/tests/integration/harness.sh"
		TOPODIR=$(dirname "$topo")
		LD_LIBRARY_PATH="$top_builddir/lib/libibats/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
		export LD_LIBRARY_PATH
		say() { echo "storm $*"; }
		sa_answers() {
			on h1 "$CAPBENCH" cpi 0.01 1 >/dev/null 2>&1
		}
		# par WHAT ARGS...: capbench WHAT on CLIENTS nodes at once; "WHAT
		# ok secs per_second p50 p99 failed lost" (rates summed).
		par() {
			local what=$1
			shift
			bench_clients par "$what" "$@"
			cat "$RUN"/par.* | awk -v what="$what" '
				$1 == what { ok += $2; rate += $4; f += $7; l += $8; if ($3 > t) t = $3
					if (!p50) { p50 = $5; p99 = $6 } n++ }
				END { printf "%s %d %.3f %.0f %.1f %.1f %d %d%s\n", what, ok, t, rate, p50, p99, f, l,
					(n == 0 ? " FAILED" : "") }'
		}
		# load FROM TO: the records FROM..TO-1 from CLIENTS nodes.
		load() {
			bench_clients load load "$1" "$2" "$NGIDS" "$WINDOW" @I@ "$CLIENTS"
			cat "$RUN"/load.* | awk '$1 == "load" { ok += $2; f += $7 + $8 } END { print "load", ok, "bad", f + 0 }'
		}
		cpu_by_comm() { # utime+stime ticks of every process, summed by name
			local f
			for f in /proc/[0-9]*/stat; do
				cat "$f" 2>/dev/null
			done | awk '{ sub(/^[0-9]+ \(/, ""); c = $0; sub(/\).*/, "", c)
				n = split($0, a, ") "); split(a[n], v, " ")
				t[c] += v[12] + v[13] } END { for (c in t) print c, t[c] }'
		}
		# cpu_share BEFORE AFTER MS: each named process group's share of
		# the machine's CPU time over MS (of all cores together).
		cpu_share() {
			awk -v ms="$3" -v tck="$TCK" -v cores="$(nproc)" 'FNR == NR { b[$1] = $2; next }
				{ d = $2 - b[$1]; if (d > 0) s[$1] = d }
				END { for (c in s) if (c ~ /^(opensm|ibsim|simhostd|atsd|capbench)$/)
					printf " %s %.0f%%", c, s[c] * 100000 / tck / ms / cores }' "$1" "$2"
		}
		st() { # st NODE KEY: a counter of the agent on NODE
			agent "$1" stats | awk -v k="$2" '$1 == k { print $2 }'
		}
		sum_stat() { # sum_stat KEY: over every agent
			local i s=0 v
			for i in $(seq 1 "$AGENTS"); do
				v=$(st "h$i" "$1")
				s=$((s + ${v:-0}))
			done
			echo "$s"
		}
		sm_backlog() { # SA requests the SM node received and has not answered
			simhost smhost status | tr ' ' '\n' |
				awk -F= '$1 == "sa_requests_in" { i = $2 } $1 == "sa_answers_out" { o = $2 } END { print i - o }'
		}
		# The agents' sa_inflight summed, "inflight N", when every agent
		# answered: with 64 local clients atsd (64 connections at most)
		# has no room for atsctl.
		sum_inflight() {
			local i s=0 v
			for i in $(seq 1 "$AGENTS"); do
				v=$(st "h$i" sa_inflight 2>/dev/null)
				[ -n "$v" ] || return 0
				s=$((s + v))
			done
			echo "inflight $s"
		}
		ready_or_gone() { # ready_or_gone FILE PID: capbench is ready or gone
			grep -q '^ready' "$1" || ! kill -0 "$2" 2>/dev/null
		}
		has_set() {
			[ "$(st "$1" sets)" -ge 1 ] 2>/dev/null
		}
		drops() {
			grep -c "$DROP_MSG" "$RUN/osm.log"
		}
		# together NAME WHAT ARGS...: capbench WHAT ARGS (@SOCK@: the
		# node's atsd socket) on every agent's node, all set up first, then started at once (CAPBENCH_GO);
		# their lines in $RUN/NAME.I, the start's CLOCK_REALTIME in
		# $RUN/NAME.t0. Meanwhile the SA's backlog (and the agents'
		# sa_inflight sum, if they have it) sampled into $RUN/NAME.depth.
		together() {
			local name=$1 i pids="" sampler base inflight
			shift 1
			for i in $(seq 1 "$AGENTS"); do
				CAPBENCH_GO="$RUN/$name.go" on "h$i" "$CAPBENCH" "${@//@SOCK@/$RUN/atsd-h$i.sock}" \
					>"$RUN/$name.$i" 2>"$RUN/$name.$i.err" &
				pids="$pids $!"
			done
			set -- $pids
			for i in $(seq 1 "$AGENTS"); do
				wait_for "$name clients on h$i" 60 ready_or_gone "$RUN/$name.$i" "$1"
				grep -q '^ready' "$RUN/$name.$i" || { cat "$RUN/$name.$i.err" >&2; exit 1; }
				shift
			done
			base=$(sm_backlog)
			(
				while [ ! -e "$RUN/$name.stop" ]; do
					echo "backlog $(( $(sm_backlog) - base ))"
					[ -n "$INFLIGHT" ] && sum_inflight
					sleep 0.05
				done
			) >"$RUN/$name.depth" &
			sampler=$!
			cpu_by_comm >"$RUN/$name.cpu0"
			date +%s%N >"$RUN/$name.t0"
			touch "$RUN/$name.go"
			wait $pids
			touch "$RUN/$name.stop"
			cpu_by_comm >"$RUN/$name.cpu1"
			echo $(( ($(date +%s%N) - $(cat "$RUN/$name.t0")) / 1000000 )) >"$RUN/$name.ms"
			wait "$sampler"
		}
		# summary NAME WHAT: one line "NAME WHAT agents ok failed lost secs
		# slowest_agent_secs max_backlog max_inflight" (secs: from the
		# start to the last answer on any node).
		summary() {
			cat "$RUN/$1".[0-9]* "$RUN/$1.depth" | awk -v name="$1" -v what="$2" \
				-v t0="$(cat "$RUN/$1.t0")" '
				$1 == what { n++; ok += $2; f += $7; l += $8; if ($3 > slow) slow = $3
					for (i = 9; i < NF; i++) if ($i == "end_ns" && $(i + 1) > e) e = $(i + 1) }
				$1 == what && what == "dump" { if (min == "" || $10 + 0 < min + 0) min = $10 }
				$1 == "backlog" && $2 > b { b = $2 }
				$1 == "inflight" && $2 != "" { if (!has || $2 + 0 > q) q = $2 + 0; has = 1 }
				END { printf "%s %s agents %d ok %d failed %d lost %d secs %.3f slowest %.3f backlog %d inflight %s%s\n",
					name, what, n, ok, f, l, (e - t0) / 1e9, slow, b, has ? q : "-",
					what == "dump" ? " min_records " min : "" }'
		}

		echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
		fabric_start "$(basename "$topo")"
		say "fabric agents $AGENTS records $RECORDS ngids $NGIDS clients $CLIENTS window $WINDOW secs $SECS local $LOCAL"
		on h1 "$CAPBENCH" ports "$RUN/gids" || exit 1
		export CAPBENCH_GIDS="$RUN/gids"
		say "cpi $(par cpi "$SECS" "$WINDOW")"
		say "load@1 $(load 0 1)"
		say "lookup@1 $(par lookup "$SECS" "$WINDOW" 1 "$NGIDS")"
		say "load@$RECORDS $(load 1 "$RECORDS")"
		say "lookup@$RECORDS $(par lookup "$SECS" "$WINDOW" "$RECORDS" "$NGIDS")"

		# The agents, sa_depth given only to an atsd that knows the key.
		depth=
		if [ -n "${BENCH_STORM_DEPTH:-}" ]; then
			printf 'socket %s\nsa_depth %s\n' "$RUN/probe.sock" "$BENCH_STORM_DEPTH" >"$RUN/probe.conf"
			if "$ATSD" -t "$RUN/probe.conf" >/dev/null 2>&1; then
				depth="sa_depth $BENCH_STORM_DEPTH"
			else
				say "note atsd has no sa_depth key: its default"
			fi
		fi
		for i in $(seq 1 "$AGENTS"); do
			agent_start "h$i" "address 10.253.0.$i primary" "cache_ttl 3600" \
				"sm_poll_interval 1" $depth
		done
		# Their own records in: nothing of theirs competes with the storm.
		for i in $(seq 1 "$AGENTS"); do
			wait_for "h$i's record" 30 has_set "h$i" || exit 1
		done
		INFLIGHT=$(st h1 sa_inflight)
		say "agents sa_depth $(st h1 sa_depth | grep . || echo 'none (one outstanding)')" \
			"sa_inflight $([ -n "$INFLIGHT" ] && echo yes || echo no)"

		q0=$(sum_stat sa_queries)
		c0=$(sum_stat coalesced)
		d0=$(drops)
		# An atsd with a window: its resends and timeouts, and the most it
		# had in flight (per agent; their sum bounds the total at once).
		win=
		if [ -n "$INFLIGHT" ]; then
			r0=$(sum_stat sa_resent)
			t0=$(sum_stat sa_timeouts)
		fi
		together lookups atsd 600 "$LOCAL" @SOCK@ 0 "$RECORDS" "$NGIDS"
		if [ -n "$INFLIGHT" ]; then
			win="inflight_max_sum $(sum_stat sa_inflight_max) resent $(( $(sum_stat sa_resent) - r0 ))"
			win="$win timeouts $(( $(sum_stat sa_timeouts) - t0 ))"
		fi
		say "$(summary lookups atsd) sa_queries $(( $(sum_stat sa_queries) - q0 ))" \
			"coalesced $(( $(sum_stat coalesced) - c0 )) drops $(( $(drops) - d0 ))" $win
		say "cpu lookups$(cpu_share "$RUN/lookups.cpu0" "$RUN/lookups.cpu1" "$(cat "$RUN/lookups.ms")")"
		for i in $(seq 1 "$AGENTS"); do
			say "agent h$i $(grep '^atsd ' "$RUN/lookups.$i")"
			# The first few failures, atsd's reason.
			grep '^capbench: ' "$RUN/lookups.$i.err" | head -n 3 | sed "s/^/storm failure h$i /"
		done

		d0=$(drops)
		together prefetch dump 120
		say "$(summary prefetch dump) drops $(( $(drops) - d0 ))"

		# atsd's own read-ahead (prefetch_max): the agents again, each
		# reading the table once the SA answers; the storm then.
		if [ -n "$INFLIGHT" ]; then
			read_ahead() {
				[ "$(st "$1" prefetches)" -ge 1 ] 2>/dev/null
			}
			for i in $(seq 1 "$AGENTS"); do
				stop_pid "$(agent_pid "h$i")"
				agent_start "h$i" "address 10.253.0.$i primary" "cache_ttl 3600" \
					"sm_poll_interval 1" "prefetch_max 16384" $depth
			done
			for i in $(seq 1 "$AGENTS"); do
				wait_for "h$i's read-ahead" 60 read_ahead "h$i" || exit 1
			done
			q0=$(sum_stat sa_queries)
			together readahead atsd 600 "$LOCAL" @SOCK@ 0 "$RECORDS" "$NGIDS"
			say "$(summary readahead atsd) sa_queries $(( $(sum_stat sa_queries) - q0 ))" \
				"records $(st h1 prefetch_records)"
		fi
	)
}

echo "# ibats start-up storm bench $(date -u +%F): $RECORDS records, $AGENTS agents x ${LOCAL} local clients"
storm | tee "$OUT"
rm -f "$topo"
sh "$top_srcdir/tests/bench/storm_report.sh" "$OUT"
