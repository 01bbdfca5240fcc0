#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# sweep.sh's summary from its raw lines, with the goals of issue 27's
# goal 3 (met / NOT MET).
#   sweep_report.sh RAW RECORDS BIG DEPART
awk -v R="$2" -v B="$3" -v D="$4" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
		return n ? a[int((n + 1) / 2)] : 0
	}
	function kv(line, key,   i, f, n) {
		n = split(line, f, " ")
		for (i = 1; i < n; i++) if (f[i] == key) return f[i + 1]
		return ""
	}
	function ok(c) { return c ? "met" : "NOT MET" }
	$2 == "fabric" { fab = $0 }
	$2 ~ /^load@/ { load[$1 " " $2] = $5 " records in " $6 " s (" $7 "/s)"; ng[$1] = $4 }
	$2 == "sweep" { sw[$1, ++nsw[$1]] = $4 / 1000 }
	$2 == "depart" { dep[$1] = $5 / 1000 }
	$2 == "held" { held[$1] = $NF }
	$2 == "flush" { fl = $0 }
	$2 ~ /^writes_sweep@/ { wr[$2] = $0 }
	$2 ~ /^lookup_quiet@/ { qr[substr($2, 14)] = $6; q50[substr($2, 14)] = $7; q99[substr($2, 14)] = $8; qlost[substr($2, 14)] = $10 }
	$2 ~ /^write_times@/ { wt[substr($2, 13)] = $0 }
	$2 ~ /^lookup_pass@/ { k = substr($2, 13); pr[k] = $6; p50[k] = $7; p99[k] = $8; plost[k] = $10; pw[k] = $0 }
	$2 == "big_sweep" { bigsweep = $3 / 1000 }
	$2 == "standby_sync" { sync_ms = $4 }
	$2 == "snapshot" { snap_ms = $11; snap_n = $4 }
	$2 == "takeover" { tk = $0 }
	$2 == "installed" { inst_n = $3; inst_ms = match($0, / in [0-9]+ ms/) ? substr($0, RSTART + 4, RLENGTH - 7) : "" }
	$2 == "new_master" { newidx = $4 }
	END {
		print ""
		split(fab, f, " ")
		printf "fabric 1: %d ibsim nodes (MAXNETNODES), leaves of %d ports, %d hosts; %d GIDs, %d records\n",
			f[4], f[6], f[8], ng["plugin"], R
		printf "loads: stock %s; plugin %s\n", load["stock load@" R], load["plugin load@" R]
		for (i = 1; i <= nsw["stock"]; i++) s[i] = sw["stock", i]
		for (i = 1; i <= nsw["plugin"]; i++) p[i] = sw["plugin", i]
		ms = median(s, nsw["stock"]); mp = median(p, nsw["plugin"])
		printf "\nheavy sweep, SIGHUP to SUBNET UP, ms (median of %d; each):\n", nsw["stock"]
		printf "  stock  %8.1f  (", ms; for (i = 1; i <= nsw["stock"]; i++) printf " %.0f", sw["stock", i]; print " )"
		printf "  plugin %8.1f  (", mp; for (i = 1; i <= nsw["plugin"]; i++) printf " %.0f", sw["plugin", i]; print " )"
		printf "  plugin / stock: %.3f\n", ms ? mp / ms : 0
		printf "\n%d hosts unlinked at once, the sweep that notices them, ms: stock %.1f, plugin %.1f (%.3f)\n",
			D, dep["stock"], dep["plugin"], dep["stock"] ? dep["plugin"] / dep["stock"] : 0
		nfl = kv(fl, "records")
		printf "  plugin flush: %d records, first %.1f ms and last %.1f ms after SUBNET UP (span %.1f ms)\n",
			nfl, kv(fl, "first_us") / 1000, kv(fl, "last_us") / 1000, kv(fl, "span_us") / 1000
		printf "  the SA then holds (GetTable of every ATS record): stock %d, plugin %d (of %d)\n",
			held["stock"], held["plugin"], R
		printf "\nthe worker pass after a heavy sweep (reconcile, index check, scan, writes; file times, 4 ms steps),\n"
		printf "its writes (perf trace: open of the temporary to the rename), ATS lookups (one outstanding, us)\n"
		printf "over %s s without a pass and with one (a re-Set 10 s after the last scan):\n", 2
		printf "%-9s %8s %9s %7s %9s %7s %10s %9s %7s %10s %9s %7s\n", "records", "pass ms", "state ms",
			"bytes", "prom ms", "bytes", "quiet p50", "p99", "/s", "pass p50", "p99", "/s"
		split(R " " B, L, " ")
		for (i = 1; i <= 2; i++) {
			k = L[i]; w = wr["writes_sweep@" k]
			printf "%-9s %8.1f %9.2f %7d %9.2f %7d %10.1f %9.1f %7d %10.1f %9.1f %7d\n", k,
				kv(w, "pass_us") / 1000, kv(wt[k], "state_write_us") / 1000, kv(w, "state_bytes"),
				kv(wt[k], "prom_write_us") / 1000, kv(w, "prom_bytes"), q50[k], q99[k], qr[k],
				p50[k], p99[k], pr[k]
		}
		printf "(fabric 2: %d GIDs, load %s; its heavy sweep: %.1f ms)\n", ng["big"], load["big load@" B], bigsweep
		printf "\nreplication at %d records (fabric 2): snapshot %d records in %d ms (log), standby start to in sync %d ms\n",
			B, snap_n, snap_ms, sync_ms
		printf "  takeover after SIGKILL: SA answers %s ms, sampled records there %s ms (%s of %s found); install %d records in %s ms\n",
			kv(tk, "up_ms"), kv(tk, "records_ms"), kv(tk, "found"), kv(tk, "of"), inst_n, inst_ms
		lost = B - newidx
		printf "  records on the new master %d: lost %d\n", newidx, lost
		per = R / ng["plugin"]
		printf "\ngoals:\n"
		printf "  heavy sweep with the plugin <= 1.05 x stock: %.3f %s\n", mp / ms, ok(ms && mp / ms <= 1.05)
		printf "  %d departed ports flushed in one sweep, all of them: %d records gone, %d held %s\n", D, nfl,
			held["plugin"], ok(nfl >= D * int(per) && nfl <= D * int(per + 1) && held["plugin"] == R - nfl)
		for (i = 1; i <= 2; i++) {
			k = L[i]
			printf "  SA lookups not stalled by the worker at %d records (with a pass: p99 <= 1.5 x, lookups/s >= 0.5 x without, none lost): p99 %.2f, rate %.2f %s\n",
				k, q99[k] ? p99[k] / q99[k] : 0, qr[k] ? pr[k] / qr[k] : 0,
				ok(q99[k] && p99[k] <= 1.5 * q99[k] && pr[k] >= 0.5 * qr[k] && plost[k] == 0 && qlost[k] == 0)
		}
		printf "  replication at %d records, none lost: %d lost %s\n", B, lost, ok(newidx != "" && lost == 0)
	}' "$1"
