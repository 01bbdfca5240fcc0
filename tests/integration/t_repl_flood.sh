# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Issue 35's red team flood: three processes on one host, no key, each
# re-Setting its own non-ATS ServiceRecord with thousands of requests
# outstanding, while a standby SM is in sync. The standby pulls the
# change stream in windows (doc/design.md, "Standby SMs") and keeps up:
# the master never drops it (no WRN 7A41), the flooding port alone is
# refused (its share of the held answers, WRN 7A47 naming its LID),
# another host's Sets are answered during the flood, and the standby
# ends with the master's head.
. "$top_srcdir/tests/integration/harness.sh"
repl_fabric fabric4.net
S="$RUN/sm2/osmats-state.json"
M="$RUN/osmats-state.json"
# Requests per flooder, and how many it keeps outstanding.
FLOOD_N=${FLOOD_N:-40000}
FLOOD_W=${FLOOD_W:-4000}

second_sm host3 10
check "in sync" wait_for "in sync" 30 repl_synced "$S" "$M"
FLOODER_LID=$(port_lid host1)
head0=$(repl_field "$M" head)

# Every 100 ms: "ms behind in_sync lag_ms", the standby's changes behind
# and whether the master waits for it (its state file), and the time
# since the standby's last answered pull (the standby's).
sample() {
	local t0=$1
	while :; do
		"$PYTHON3" -c 'import json, sys, time
m = json.load(open(sys.argv[1]))["replication"].get("standbys", [])
s = json.load(open(sys.argv[2]))["replication"]
print(int(time.time() * 1000) - int(sys.argv[3]), max([x["behind"] for x in m] or [-1]),
      int(all(x["in_sync"] for x in m) and len(m) > 0), s["lag_ms"])' \
			"$M" "$S" "$t0" 2>/dev/null
		sleep 0.1
	done
}
t0=$(date +%s%3N)
sample "$t0" >"$RUN/lag.txt" &
SAMPLER=$!
for i in 1 2 3; do
	srtool host1 --sid $((0x35000 + i)) --name flood --repeat "$FLOOD_N" --window "$FLOOD_W" \
		set >"$RUN/flood$i.out" 2>&1 &
	eval "FLOOD$i=\$!"
done
head_past() { [ "$(repl_field "$M" head)" -gt "$1" ]; }
wait_for "the flood" 20 head_past "$((head0 + 1000))"
# Another host's Sets while the flood goes on: each answered, none
# refused.
other_ok=0 other_failed=0
for j in $(seq 20); do
	if srtool host2 --sid $((0x36000 + j)) --name other set >"$RUN/other.out" 2>&1; then
		other_ok=$((other_ok + 1))
	else
		other_failed=$((other_failed + 1))
		sed 's/^/# other: /' "$RUN/other.out"
	fi
	kill -0 "$FLOOD1" 2>/dev/null || kill -0 "$FLOOD2" 2>/dev/null ||
		kill -0 "$FLOOD3" 2>/dev/null || break
done
echo "# other host's Sets during the flood: $other_ok answered, $other_failed failed"
check "the flood was still on for some of them" test "$j" -gt 1
wait "$FLOOD1" "$FLOOD2" "$FLOOD3"
t1=$(date +%s%3N)
for i in 1 2 3; do echo "# flooder $i: $(cat "$RUN/flood$i.out")"; done
echo "# flood over after $((t1 - t0)) ms; head $(repl_field "$M" head)"
check "another host's Sets are answered during the flood" test "$other_failed" -eq 0
check "... ($other_ok of them)" test "$other_ok" -ge 1
check "the standby catches up: its copy ends at the master's head" wait_for "the copy" 20 \
	repl_synced "$S" "$M"
t2=$(date +%s%3N)
check "... and the master sees it 0 behind, in sync" wait_for "the master's view" 10 \
	repl_is "$M" standbys_in_sync=1
stop_pid "$SAMPLER"
awk -v t1=$((t1 - t0)) '$1 <= t1 { n++; if ($2 > b) b = $2; if (!$3) out++; if ($4 > l) l = $4 }
	END { printf "# during the flood (%d samples): at most %d changes behind, not in sync in %d, lag_ms at most %d\n", n, b, out, l }' "$RUN/lag.txt"
echo "# in sync with the master's head $((t2 - t1)) ms after the flood"
check "the master never dropped the standby (no WRN 7A41)" test "$(grep -c 'WRN 7A41' "$RUN/osm.log")" -eq 0
# Refusals name the flooder's LID only.
check "the flooding port's requests are refused (WRN 7A47, its LID)" \
	grep -q "WRN 7A47: ServiceRecord SubnAdmSet from LID $FLOODER_LID refused (NO_RESOURCES)" "$RUN/osm.log"
check_absent "... and no other port's" "refused (NO_RESOURCES)" \
	grep -v "from LID $FLOODER_LID refused" "$RUN/osm.log"
check "... for its share of the held answers only" \
	sh -c "! grep 'WRN 7A47' '$RUN/osm.log' | grep -v 'share of the answers'"
echo "# WRN 7A47 lines: $(grep -c 'WRN 7A47' "$RUN/osm.log"), WRN 7A41 lines: $(grep -c 'WRN 7A41' "$RUN/osm.log")"
finish
