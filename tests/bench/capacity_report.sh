#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The capacity bench's summary (capacity.sh runs it; also by hand on a
# kept output): capacity_report.sh OUT. Prints the tables and the issue's
# goals and writes OUT.dat for capacity_plot.sh: per size, lookups/s and
# Sets/s (re-Sets at saturation) of stock and plugin ("-" when not run),
# and each run's ClassPortInfo capacity.
# Raw lines: "SM KEY NAME ok secs per_second p50 p99 failed lost ...";
# capacity.sh's header says what the rest of each kind holds.
out=$1
awk -v dat="$out.dat" '
	function r(sm, k) { return (sm" "k) in rate ? rate[sm" "k] : -1 }
	function x(a, b) { return a > 0 && b > 0 ? sprintf("%.2f", a / b) : "-" }
	function v(a) { return a >= 0 ? sprintf("%.0f", a) : "-" }
	function ok(c) { return c ? "met" : "NOT MET" }
	# One RMPP table (kind "table" or "dump"): a row a size, stock then plugin.
	function rmpp(kind, title,    i, j, s, m, c) {
		printf "%-8s %-34s %-34s\n", "records", title, "plugin"
		for (i = 1; i <= ns; i++) {
			s = size[i]
			printf "%-8s", s
			for (j = 0; j < 2; j++) {
				m = (j ? "plugin" : "stock") " " kind "@" s
				if (!(m in rate))
					c = sprintf("%-34s", "-")
				else if (kind == "table")
					c = sprintf("%6s/s p50 %6.0f us, %3.0f recs", v(rate[m]), p50[m], recs[m])
				else
					c = sprintf("%-34s", sprintf("%d records in %.2f s%s", recs[m], secs[m], bad[m] ? " FAILED" : ""))
				printf " %s", c
			}
			printf "\n"
		}
	}
	{ sm = $1; k = $2 }
	$3 ~ /^(cpi|lookup|reset|table|dump|atsd|libibats)$/ {
		rate[sm" "k] = $6; p50[sm" "k] = $7; p99[sm" "k] = $8; bad[sm" "k] = $9 + $10
		us[sm" "k] = $11; smcpu[sm" "k] = $12; ibcpu[sm" "k] = $13; idle[sm" "k] = $14
		if ($3 == "table") recs[sm" "k] = $12
		if ($3 == "dump") { recs[sm" "k] = $12; secs[sm" "k] = $5 }
		if ($3 == "atsd" || $3 == "libibats") { n[sm" "k] = $4; q[sm" "k] = $12 }
	}
	$3 == "load" { rate[sm" "k] = $6; secs[sm" "k] = $5; us[sm" "k] = $12; bad[sm" "k] = $8 + $10 }
	k ~ /^rss@/ { rss[sm" "substr(k, 5)] = $3 }
	k ~ /^skipped@/ { skip[sm] = $0 }
	k ~ /^lookup@/ && k != "lookup@1" { s = substr(k, 8); if (!(s in seen)) { seen[s] = 1; size[++ns] = s } }
	END {
		cs = r("stock", "cpi"); cp = r("plugin", "cpi")
		printf "\nClassPortInfo capacity (the transport ceiling): stock run %s/s, plugin run %s/s; one client, one outstanding: %s/s, %s/s\n",
			v(cs), v(cp), v(r("stock", "cpi1")), v(r("plugin", "cpi1"))
		printf "during it, CPU of one core: ibsim %s%% (stock run), %s%% (plugin run); OpenSM %s%%, %s%%; the machine idle %s%%, %s%%\n",
			ibcpu["stock cpi"], ibcpu["plugin cpi"], smcpu["stock cpi"], smcpu["plugin cpi"], idle["stock cpi"], idle["plugin cpi"]
		l1s = r("stock", "lookup@1"); l1p = r("plugin", "lookup@1")
		printf "ATS lookups/s with one record: stock %s (%s cpi), plugin %s (%s cpi)\n\n", v(l1s), x(l1s, cs), v(l1p), x(l1p, cp)
		printf "ATS lookups/s (st stock, pl plugin; /cpi, /one: ratios to the ClassPortInfo and one-record\n"
		printf "capacity of the same run; us: OpenSM CPU per request; ib%%: ibsim CPU share; idle: the machine):\n"
		printf "%-8s %9s %6s %6s %9s %6s %6s %7s %7s %7s %6s %6s %7s\n", "records", "st lk/s", "/cpi", "/one",
			"pl lk/s", "/cpi", "/one", "pl/st", "st us", "pl us", "st ib%", "pl ib%", "pl idle"
		for (i = 1; i <= ns; i++) {
			s = size[i]; a = r("stock", "lookup@"s); b = r("plugin", "lookup@"s)
			printf "%-8s %9s %6s %6s %9s %6s %6s %7s %7s %7s %6s %6s %6s%%\n", s, v(a), x(a, cs), x(a, l1s),
				v(b), x(b, cp), x(b, l1p), x(b, a), (a > 0 ? us["stock lookup@"s] : "-"), us["plugin lookup@"s],
				(a > 0 ? ibcpu["stock lookup@"s] : "-"), ibcpu["plugin lookup@"s], idle["plugin lookup@"s]
		}
		printf "\nSets/s: the pipelined load to this size, then re-Sets at saturation; OpenSM CPU per re-Set;\n"
		printf "OpenSM RSS growth per record from none:\n"
		printf "%-8s %9s %9s %7s %9s %6s %9s %6s %7s %7s %7s %9s %9s\n", "records", "st load/s", "pl load/s", "pl/st",
			"st set/s", "/cpi", "pl set/s", "/cpi", "pl/st", "st us", "pl us", "st B/rec", "pl B/rec"
		for (i = 1; i <= ns; i++) {
			s = size[i]; a = r("stock", "reset@"s); b = r("plugin", "reset@"s)
			ms = ("stock "s) in rss ? (rss["stock "s] - rss["stock 0"]) * 1024 / s : -1
			mp = (rss["plugin "s] - rss["plugin 0"]) * 1024 / s
			mem[s] = x(mp, ms)
			printf "%-8s %9s %9s %7s %9s %6s %9s %6s %7s %7s %7s %9s %9s\n", s, v(r("stock", "load@"s)), v(r("plugin", "load@"s)),
				x(r("plugin", "load@"s), r("stock", "load@"s)), v(a), x(a, cs), v(b), x(b, cp), x(b, a),
				(a > 0 ? us["stock reset@"s] : "-"), us["plugin reset@"s], v(ms), v(mp)
		}
		printf "\nRMPP (in the simulated kernel), one client, one request at a time (one-outstanding ClassPortInfo: %s/s stock run, %s/s plugin run):\n", v(r("stock", "cpi1")), v(r("plugin", "cpi1"))
		rmpp("table", "GetTable of one GID: stock")
		rmpp("dump", "full dump: stock")
		printf "\natsd, 64 local clients on one agent, and libibats direct to the SA, 64 threads on one handle\n"
		printf "(lookups/s; ratios to the ClassPortInfo capacity of the run and one-outstanding rate; SA requests\n"
		printf "per lookup; p50/p99 us):\n"
		nk = 0
		for (k2 in n)
			keys[++nk] = k2
		for (i = 2; i <= nk; i++) # by SM, then by name
			for (j = i; j > 1 && keys[j - 1] > keys[j]; j--) { t = keys[j]; keys[j] = keys[j - 1]; keys[j - 1] = t }
		for (i = 1; i <= nk; i++) {
			k2 = keys[i]
			split(k2, kk, " ")
			printf "  %-6s %-17s %6s/s %5s cpi %5s cpi1  %.3f SA/lookup  p50 %.0f p99 %.0f  (%d lookups, %d failed)\n",
				kk[1], kk[2], v(rate[k2]), x(rate[k2], r(kk[1], "cpi")), x(rate[k2], r(kk[1], "cpi1")),
				(n[k2] ? q[k2] / n[k2] : 0), p50[k2], p99[k2], n[k2], bad[k2]
		}
		for (m in skip) printf "\n%s\n", skip[m]
		print "# records stock_lookup plugin_lookup stock_set plugin_set stock_cpi plugin_cpi" >dat
		for (i = 1; i <= ns; i++) {
			s = size[i]
			print s, v(r("stock", "lookup@"s)), v(r("plugin", "lookup@"s)), v(r("stock", "reset@"s)),
				v(r("plugin", "reset@"s)), v(cs), v(cp) >dat
		}
		lo = size[1]; top = size[ns]
		printf "\ngoals:\n"
		a = r("plugin", "lookup@"top); b = r("plugin", "lookup@"lo)
		printf "  plugin lookups/s at %s within 15%% of %s: %+.1f%% %s\n", top, lo, (a / b - 1) * 100, ok(a >= 0.85 * b)
		if (r("stock", "lookup@100000") > 0) {
			a = r("plugin", "lookup@100000") / r("stock", "lookup@100000")
			printf "  plugin lookups/s at 100000 >= 15x stock: %.1fx %s\n", a, ok(a >= 15)
			a = r("plugin", "reset@100000") / r("stock", "reset@100000")
			printf "  plugin Sets/s at 100000 >= 10x stock: %.1fx %s\n", a, ok(a >= 10)
		}
		for (i = ns; i >= 1 && !(("stock "size[i]) in rss); i--)
			;
		if (i >= 1)
			printf "  plugin memory per record <= 1.25x stock (at %s%s): %s %s\n", size[i],
				size[i] == top ? "" : ", the largest size stock was loaded to", mem[size[i]], ok(mem[size[i]] <= 1.25)
		# OpenSM CPU per re-Set, the plugin flat from the smallest size to the largest.
		a = us["plugin reset@"top]; b = us["plugin reset@"lo]
		if (top != lo && b > 0)
			printf "  plugin re-Set CPU at %s within 10%% of %s: %.1f us against %.1f us, %+.1f%% %s\n", top, lo,
				a, b, (a / b - 1) * 100, ok(a <= 1.1 * b)
		# Issue 27, goal 1: cold lookups at the SA capacity, through atsd
		# and through libibats without atsd.
		for (i = 1; i <= nk; i++) {
			split(keys[i], kk, " ")
			if (kk[1] != "plugin" || kk[2] !~ /^(atsd|libibats)_cold@/)
				continue
			a = x(rate[keys[i]], cp)
			printf "  %s >= 0.8 cpi (%s): %s %s\n",
				(kk[2] ~ /^atsd/ ? "cold lookups through atsd" : "libibats direct cold lookups"),
				kk[2], a, ok(a != "-" && a + 0 >= 0.8)
		}
	}' "$out"
