# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A resolver in the background (prober_start, prober_stop) and what its
# attempts show (prober_window, prober_fails): failover benches and
# tests measure outages with it.
# Sourced by harness.sh, in its order: not a script of its own.

# prober_start NODE IP FILE: in the background, resolve IP on NODE straight
# from the SA (no agent, one 200 ms try), one attempt at a time, each 50 ms
# after the last one started (or as soon as it ends: an atsctl process
# takes 40-70 ms under ibsim); one line per attempt, "<ms since the epoch
# at its end> ok|fail <ms at its start>", until prober_stop FILE.
prober_start() {
	local node=$1 ip=$2 file=$3 dir="$3.d"
	mkdir -p "$dir"
	node_up "$node" || exit 1
	rm -f "$file.stop"
	(
		cd "$dir" || exit 1
		while [ ! -e "$file.stop" ]; do
			t0=$(date +%s%3N)
			if SIM_HOST=$node LD_PRELOAD=$SIM_PRELOAD "$ATSCTL" -n -t 200 -r 0 \
				resolve "$ip" >/dev/null 2>&1; then r=ok; else r=fail; fi
			t1=$(date +%s%3N)
			echo "$t1 $r $t0" >>"$file"
			[ $((t1 - t0)) -lt 50 ] && sleep "$(printf '0.%03d' $((50 - (t1 - t0))))"
		done
	) &
	echo $! >"$file.pid"
	T_PIDS="$T_PIDS $!"
}

prober_stop() {
	touch "$1.stop"
	wait "$(cat "$1.pid")" 2>/dev/null
}

# prober_window FILE: "attempts A failures F first T1 last T2 longest N
# (M ms)", times in ms since the epoch (- without failures); M runs from the
# last success before the longest run to the first one after it.
prober_window() {
	awk '{ n++ }
	$2 == "fail" { f++; if (!first) first = $1; last = $1; if (!run) from = prev ? prev : $1; run++ }
	$2 == "ok" { if (run > best) { best = run; ms = $1 - from } run = 0 }
	{ prev = $1 }
	END { if (run > best) { best = run; ms = prev - from }
		printf "attempts %d failures %d first %s last %s longest %d (%d ms)\n",
			n, f, first ? first : "-", last ? last : "-", best, best ? ms : 0 }' "$1"
}

# prober_fails FILE FROM TO: how many attempts in FILE failed that started
# at or after FROM and ended at or before TO (ms since the epoch).
prober_fails() {
	awk -v a="$2" -v b="$3" '$2 == "fail" && $3 >= a && $1 <= b { n++ } END { print n + 0 }' "$1"
}
