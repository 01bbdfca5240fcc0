# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Replication pulls (class 0x35) from a host, not an SM: without the key
# file the SMs share (no tag, or another key's) they get no answer and are
# logged (WRN 7A43, rate-limited), and a stream pull of the head makes
# no standby the master's Sets wait for; hostile field values get no
# answer or "snapshot needed" and nothing crashes (a window's NOACK
# pulls too: answered at once, never an ack); with the key file a
# host is trusted by design and can read every record (ServiceKeys
# included), as an SA GetTable with OpenSM's sa_key could.
. "$top_srcdir/tests/integration/harness.sh"
repl_fabric fabric4.net
REPLTOOL="$top_builddir/tests/tools/repltool"
rt() { on host2 "$REPLTOOL" "$@"; }
KEY=$RUN/repl.key
key_file "$RUN/other.key"
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
check "host1 sets 40 other records" srtool host1 --sid 0x1000 --name other --count 40 set
second_sm host3 10
check "standby in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
M=1
check_out "no key: no answer" "answered 0 of 3" rt $M --count 3
check_out "another key, snapshot: no answer" "answered 0 of 3" rt $M --key-file "$RUN/other.key" --flags 1 --count 3
check_out "another key, leaving: no answer" "answered 0 of 1" rt $M --key-file "$RUN/other.key" --flags 2
check "the master logged the refusals" grep -q "WRN 7A43: replication pull from LID .* dropped: bad authentication tag" "$RUN/osm.log"
check_out "20 more with another key: no answer" "answered 0 of 20" rt $M --key-file "$RUN/other.key" --count 20 --timeout 20
check "rate-limited (5 a minute and a summary)" test "$(grep -c 'WRN 7A43' "$RUN/osm.log")" -le 6
# The head and epoch, as a key holder learns them ("snapshot needed"
# carries both); then the pull an in-sync standby sends, without the key:
# had the master taken it, its Sets would wait for this "standby's" ack
# (WRN 7A41 after the ack timeout, 4 s here).
rt $M --key-file "$KEY" --next 1 >"$RUN/head.out"
E=$(sed -n 's/^answer kind 5 epoch \(0x[0-9a-f]*\) head \([0-9]*\) .*/\1/p' "$RUN/head.out")
H=$(sed -n 's/^answer kind 5 epoch \(0x[0-9a-f]*\) head \([0-9]*\) .*/\2/p' "$RUN/head.out")
check "a key holder reads the head, tag checked" grep -q "^answer kind 5 epoch $E head $H .* tag ok" "$RUN/head.out"
check_out "the head's next without the key: no answer" "answered 0 of 1" rt $M --epoch "$E" --next $((H + 1))
check_out "... with another key: no answer" "answered 0 of 1" rt $M --key-file "$RUN/other.key" --epoch "$E" --next $((H + 1))
t0=$(date +%s%N)
check "a Set after them is answered" srtool host1 --sid 0x3000 --name other set
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "... without waiting for them (${ms} ms)" test "$ms" -lt 2000
check_absent "... and nobody dropped (no WRN 7A41)" "WRN 7A41" cat "$RUN/osm.log"
check_out "unknown flags: no answer" "answered 0 of 1" rt $M --key-file "$KEY" --raw-mod 0x80000001
check_out "truncated MAD: no answer" "answered 0 of 1" rt $M --key-file "$KEY" --len 60
check_out "snapshot pos 2^32-1: start over" "answer kind 5 " rt $M --key-file "$KEY" --flags 1 --next 7 --pos 0xffffffff
check_out "stream next 2^64-1: start over" "answer kind 5 " rt $M --key-file "$KEY" --epoch 5 --next 0xffffffffffffffff
check_out "stream, epoch 0, next 1: start over" "answer kind 5 " rt $M --key-file "$KEY" --next 1
# A window's NOACK pulls (0x08) from a key holder: answered at once from
# the log, never an ack, never a standby the Sets wait for.
check_out "NOACK, next 2^63: nothing new" "answer kind 0 " rt $M --key-file "$KEY" --epoch "$E" --next 0x8000000000000000 --flags 8
check_out "NOACK, next 0: start over" "answer kind 5 " rt $M --key-file "$KEY" --epoch "$E" --next 0 --flags 8
check_out "NOACK with SNAPSHOT: no answer" "answered 0 of 1" rt $M --key-file "$KEY" --flags 9
check_out "NOACK with LEAVING: no answer" "answered 0 of 1" rt $M --key-file "$KEY" --flags 10
H=$(repl_field "$RUN/osmats-state.json" head)
check_out "20 NOACK pulls of the head's next, never acking: nothing new" "answered 20 of 20" \
	rt $M --key-file "$KEY" --epoch "$E" --next $((H + 1)) --flags 8 --stay --count 20
t0=$(date +%s%N)
check "a Set after them is answered" srtool host1 --sid 0x3001 --name other set
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check "... without waiting for them (${ms} ms)" test "$ms" -lt 2000
check "... and the master waits for one standby only" \
	wait_for "the state file" 5 repl_is "$RUN/osmats-state.json" standbys_in_sync=1
rt $M --key-file "$KEY" --flags 1 --count 46 >"$RUN/snap.out"
check "the key file reads the records (trusted by design)" grep -q "answered 46 of 46" "$RUN/snap.out"
check "... every answer's tag checked" test "$(grep -c ' tag ok$' "$RUN/snap.out")" -eq 46
check_out "500 new snapshots in a row" "answered 500 of 500" rt $M --key-file "$KEY" --flags 1 --count 500 --pos 0 --timeout 300
check "the master still answers the SA" sa_answers host4
check "a Set is still answered (committed)" srtool host1 --sid 0x2000 --name other set
check "the standby is still in sync" sh -c "grep -o '\"in_sync\": true' '$RUN/sm2/osmats-state.json'"
check "both SMs live" sh -c "kill -0 $SM_PID && kill -0 $SM2"
grep "WRN 7A4" "$RUN/osm.log" "$RUN/sm2/osm.log" | tail -5
finish
