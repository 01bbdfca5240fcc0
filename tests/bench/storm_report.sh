#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The start-up storm bench's summary (storm.sh runs it; also by hand on a
# kept output): storm_report.sh OUT. Prints the figures and the issue's
# goals (issue 27, goal 2). Raw lines "storm KEY ...": capbench lines
# (cpi, lookup@N: "WHAT ok secs per_second p50 p99 failed lost"), the
# storm's and the prefetch's summaries (key value pairs), one line per
# agent and its first failures (atsd's reason).
awk '
	function ok(c) { return c ? "met" : "NOT MET" }
	function kv(arr, from, i) { for (i = from; i < NF; i += 2) arr[$i] = $(i + 1) }
	$1 != "storm" { next }
	$2 == "fabric" { kv(fab, 3) }
	$2 == "cpi" { cpi = $6 }
	$2 == "lookup@1" { l1 = $6 }
	$2 ~ /^lookup@/ && $2 != "lookup@1" { ln = $6; lk = substr($2, 8) }
	$2 == "agents" { agents = $0; sub(/^storm agents /, "", agents) }
	$2 == "note" { note = $0 }
	$2 == "lookups" { kv(s, 4) }
	$2 == "prefetch" { kv(p, 4) }
	$2 == "readahead" { kv(r, 4) }
	$2 == "cpu" && $3 == "lookups" { cpu = $0; sub(/^storm cpu lookups /, "", cpu) }
	$2 == "failure" { nf++; fail[nf] = $0; sub(/^storm failure /, "", fail[nf]) }
	$2 == "agent" { na++; line[na] = sprintf("  %-4s %8.3f s %7d ok %4d failed %4d lost  %9.0f/s  p50 %8.0f us  p99 %8.0f us",
		$3, $6, $5, $10, $11, $7, $8, $9) }
	END {
		n = fab["records"]; a = fab["agents"]; total = n * a
		bound = cpi > 0 ? total / cpi : 0; bound1 = l1 > 0 ? total / l1 : 0
		printf "\nStart-up storm: %d agents x %d local clients, each agent asked for all %d addresses\n", a, fab["local"], n
		printf "(%d SA lookups at least); agents: %s\n", total, agents
		if (note != "") printf "%s\n", note
		printf "capacity of the run: ClassPortInfo %.0f/s pipelined (%d nodes x %d); ATS lookups %.0f/s with one record, %.0f/s with %s\n",
			cpi, fab["clients"], fab["window"], l1, ln, lk
		printf "bound: %d lookups / ClassPortInfo capacity = %.3f s (at the one-record lookup capacity: %.3f s)\n", total, bound, bound1
		printf "\nper agent (from its start to its last answer):\n"
		for (i = 1; i <= na; i++) print line[i]
		printf "\nstorm: every lookup answered after %.3f s = %.2f x the bound (%.2f x the one-record lookup bound)\n",
			s["secs"], (bound > 0 ? s["secs"] / bound : 0), (bound1 > 0 ? s["secs"] / bound1 : 0)
		printf "  %d answered, %d failed, %d lost; SA requests %d (%.3f per address and agent), coalesced %d\n",
			s["ok"], s["failed"], s["lost"], s["sa_queries"], (total ? s["sa_queries"] / total : 0), s["coalesced"]
		for (i = 1; i <= nf; i++) printf "  failed on %s\n", fail[i]
		printf "  SA queue depth: at most %d requests held at OpenSM (the SM node: SA requests in - answers out, 50 ms samples); agents sa_inflight sum max %s\n",
			s["backlog"], s["inflight"]
		if ("inflight_max_sum" in s)
			printf "  agents: sa_inflight_max summed %d (at most what they had out at once), SA requests resent %d, timed out %d\n",
				s["inflight_max_sum"], s["resent"], s["timeouts"]
		if (cpu != "")
			printf "  the machine'"'"'s CPU during the storm, by program (all cores = 100%%): %s\n", cpu
		printf "  OpenSM max_msg_fifo_timeout drops (\"Dropping MAD since the dispatcher is already overloaded\"): %d\n", s["drops"]
		printf "prefetch: one SubnAdmGetTable of every ATS record on each agent node at once: all had the table after %.3f s\n", p["secs"]
		printf "  (%d of %d tables read, the smallest %d records, %d lost; %d drops) = %.2f x the storm time, %.2f x the bound\n",
			p["ok"], p["agents"], p["min_records"], p["failed"] + p["lost"], p["drops"],
			(s["secs"] > 0 ? p["secs"] / s["secs"] : 0), (bound > 0 ? p["secs"] / bound : 0)
		if ("secs" in r)
			printf "atsd read-ahead (prefetch_max): the agents read the table (%s records) once the SA answered; the storm then: every lookup answered after %.3f s = %.2f x the bound, %d answered, %d failed, %d lost, SA requests %d\n",
				r["records"], r["secs"], (bound > 0 ? r["secs"] / bound : 0), r["ok"], r["failed"], r["lost"], r["sa_queries"]
		printf "\ngoals:\n"
		printf "  storm answered within 1.25x of the bound: %.2f %s\n", (bound > 0 ? s["secs"] / bound : 0),
			ok(bound > 0 && s["secs"] <= 1.25 * bound && s["ok"] > 0)
		printf "  storm lookups failed: %d %s\n", s["failed"] + s["lost"], ok(s["failed"] + s["lost"] == 0 && s["ok"] == total)
		if ("secs" in r)
			printf "  storm with atsd'"'"'s read-ahead within 1.25x of the bound, none failed: %.2f %s\n",
				(bound > 0 ? r["secs"] / bound : 0),
				ok(bound > 0 && r["secs"] <= 1.25 * bound && r["ok"] == total && r["failed"] + r["lost"] == 0)
		printf "  prefetch faster than the storm: %s (%.3f s against %.3f s)\n",
			(p["ok"] == a && p["min_records"] >= n && p["secs"] < s["secs"] ? "yes" : "no"), p["secs"], s["secs"]
	}' "$1"
