# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The master answers a client's ServiceRecord Set or Delete once its
# in-sync standbys have the change, without holding OpenSM's one SA Set
# thread (issue 22, finding 1): a standby that pulls but never acks (a
# liar, or a genuine one whose answers are lost) is dropped at most D +
# 0.5 s after the change it owes, however often it pulls; MCMemberRecord joins never
# wait for a standby; a later Set is answered at once. And the master's
# state file and metrics show the head after changes of any service
# (finding 6).
. "$top_srcdir/tests/integration/harness.sh"
repl_fabric fabric4.net
REPLTOOL="$top_builddir/tests/tools/repltool"
MCJOIN="$top_builddir/tests/tools/mcjoin"
M="$RUN/osmats-state.json"
S="$RUN/sm2/osmats-state.json"
MLID=$(port_lid smhost)
D=4000 # the ack timeout: sminfo_polling_timeout 1 s + 3 s

# The standby's simulated host loses the replication answers (class
# 0x35) that reach it while `simhost host3 drop 0x35 on` holds.
second_sm host3 10
check "a standby SM with the plugin is in sync" wait_for "in sync" 30 \
	grep -q "in sync with master" "$RUN/sm2/osm.log"

# Finding 6: Sets of another service only, once the master's state file
# shows the standby (no write pending); it is written at most once a
# second, so 3 s is plenty.
check "the master's state file shows the standby" wait_for "the state file" 10 \
	repl_is "$M" standbys_in_sync=1 head=0
check "20 Sets of another service" srtool host1 --sid 0x1000 --name other --count 20 set
check "the master's state file shows head 20" wait_for "head 20" 3 repl_is "$M" head=20
check "the standby applied 20" wait_for "applied 20" 10 repl_is "$S" applied=20 in_sync=true
check "the metric ibats_sm_repl_head_sequence is 20" wait_for "the metric" 3 \
	grep -q '^ibats_sm_repl_head_sequence 20$' "$RUN/osmats.prom"

# A liar on host2: it asks for the change after the head once (in sync),
# then for that same change for ever, acking nothing.
ANS=$(on host2 "$REPLTOOL" "$MLID" --key-file "$RUN/repl.key" --next 1)
E=$(echo "$ANS" | sed -n 's/.* epoch \(0x[0-9a-f]*\) head \([0-9]*\) .*/\1/p')
H=$(echo "$ANS" | sed -n 's/.* epoch \(0x[0-9a-f]*\) head \([0-9]*\) .*/\2/p')
check "the liar learns the epoch and head ($E, $H)" test -n "$E" -a "$H" = 20
# Its own pid, not that of the subshell on() runs it in: killing that
# would leave it pulling.
on host2 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/liar.pid" "$REPLTOOL" "$MLID" \
	--key-file "$RUN/repl.key" --epoch "$E" --next $((H + 1)) --stay \
	--count 300 --interval 50 --timeout 400 >"$RUN/liar.out" 2>&1 &
T_PIDS="$T_PIDS $!"
wait_for "the liar" 10 test -s "$RUN/liar.pid" || exit 1
LIAR=$(cat "$RUN/liar.pid")
T_PIDS="$T_PIDS $LIAR"
check "the master waits for two standbys" wait_for "two in sync" 5 repl_is "$M" standbys_in_sync=2

ms() { date +%s%3N; }
# A Set owed by the liar is answered once it is dropped: D after it.
T0=$(ms)
atsctl host1 -t 9000 -r 0 register 10.9.0.1 --primary >"$RUN/set1.out" 2>&1 &
SET1=$!
# Meanwhile an IPoIB-style join on the same SA Set thread.
head_at_least() { local h; h=$(repl_field "$M" head) && [ "$h" -ge "$1" ]; }
check "the Set is made (head 21), its answer held" wait_for "head 21" 3 head_at_least 21
T1=$(ms)
check "an MCMemberRecord join meanwhile is answered" on host4 "$MCJOIN" join
T2=$(ms)
echo "# the join took $((T2 - T1)) ms"
check "... at once (< 1 s), not after the held Set" test $((T2 - T1)) -lt 1000
check "the held Set is answered" wait $SET1
T3=$(ms)
echo "# the Set owed by the liar was answered after $((T3 - T0)) ms (D = $D ms)"
check "... within D + 1 s" test $((T3 - T0)) -le $((D + 1000))
check "the master dropped the liar (WRN 7A41)" grep -q "WRN 7A41: standby SM port .* owed a change and acked none in time for $D ms: dropped" "$RUN/osm.log"
check "the liar is still pulling" kill -0 "$LIAR"
T4=$(ms)
check "a later Set is answered" atsctl host1 -t 9000 -r 0 register 10.9.0.2
T5=$(ms)
echo "# a later Set took $((T5 - T4)) ms"
check "... at once (< 1 s) while the liar pulls" test $((T5 - T4)) -lt 1000
check "the genuine standby has every change" wait_for "the standby" 10 repl_synced "$S" "$M"
check "... and is still waited for" repl_is "$M" standbys_in_sync=1
kill "$LIAR" 2>/dev/null

# One-way loss: the genuine standby's pulls reach the master, every
# answer to them is lost on the way back.
check "the standby is in sync again" wait_for "the standby" 10 repl_synced "$S" "$M"
DROPS0=$(grep -c 'WRN 7A41' "$RUN/osm.log")
check_out "host3 loses class 0x35" ok simhost host3 drop 0x35 on
T0=$(ms)
check "a Set under one-way loss is answered" atsctl host1 -t 9000 -r 0 register 10.9.0.3
T1=$(ms)
echo "# a Set under one-way loss to the standby took $((T1 - T0)) ms (D = $D ms)"
check "... within D + 1 s" test $((T1 - T0)) -le $((D + 1000))
check "the master dropped the deaf standby" test "$(grep -c 'WRN 7A41' "$RUN/osm.log")" -gt "$DROPS0"
T2=$(ms)
check "the next Set is answered" atsctl host1 -t 9000 -r 0 register 10.9.0.4
T3=$(ms)
echo "# the next Set took $((T3 - T2)) ms"
check "... at once (< 1 s)" test $((T3 - T2)) -lt 1000
check_out "host3 loses nothing" ok simhost host3 drop 0x35 off
check "the loss over, the standby is in sync with every change" wait_for "the standby" 20 \
	repl_synced "$S" "$M"
finish
