# Replication pulls (class 0x35) from a host, not an SM: with no, the
# default or a wrong SM_Key they get no answer and are logged (WRN 7A43,
# rate-limited); hostile field values get no answer or "snapshot needed"
# and nothing crashes; with the right SM_Key a host is trusted by design
# and can read every record (ServiceKeys included), as an SA GetTable
# with that key could.
. "$top_srcdir/tests/integration/harness.sh"
{ two_sm_opts; echo "sm_key 0x00000000000ABCDE"; } >"$RUN/opensm.extra"
fabric_start fabric4.net
REPLTOOL="$top_builddir/tests/tools/repltool"
rt() { on host2 "$REPLTOOL" "$@"; }
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
check "host1 sets 40 other records" srtool host1 --sid 0x1000 --name other --count 40 set
second_sm host3 10
check "standby in sync" wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
M=1
check_out "no SM_Key: no answer" "answered 0 of 3" rt $M --count 3
check_out "SM_Key 1: no answer" "answered 0 of 3" rt $M --key 1 --count 3
check_out "wrong SM_Key, snapshot: no answer" "answered 0 of 3" rt $M --key 0xABCDF --flags 1 --count 3
check_out "wrong SM_Key, leaving: no answer" "answered 0 of 1" rt $M --key 0xABCDF --flags 2
check "the master logged the refusals" grep -q "WRN 7A43: replication pull from LID .* dropped: wrong SM_Key" "$RUN/osm.log"
check_out "20 more with a wrong SM_Key: no answer" "answered 0 of 20" rt $M --key 0xABCDF --count 20 --timeout 20
check "rate-limited (5 a minute and a summary)" test "$(grep -c 'WRN 7A43' "$RUN/osm.log")" -le 6
check_out "unknown flags: no answer" "answered 0 of 1" rt $M --key 0xABCDE --raw-mod 0x80000001
check_out "truncated MAD: no answer" "answered 0 of 1" rt $M --key 0xABCDE --len 60
check_out "snapshot pos 2^32-1: start over" "answer kind 5 " rt $M --key 0xABCDE --flags 1 --next 7 --pos 0xffffffff
check_out "stream next 2^64-1: start over" "answer kind 5 " rt $M --key 0xABCDE --epoch 5 --next 0xffffffffffffffff
check_out "stream, epoch 0, next 1: start over" "answer kind 5 " rt $M --key 0xABCDE --next 1
check_out "the right SM_Key reads the records (trusted by design)" "answered 45 of 45" rt $M --key 0xABCDE --flags 1 --count 45
check_out "500 new snapshots in a row" "answered 500 of 500" rt $M --key 0xABCDE --flags 1 --count 500 --pos 0 --timeout 300
check "the master still answers the SA" sa_answers host4
check "a Set is still answered (committed)" srtool host1 --sid 0x2000 --name other set
check "the standby is still in sync" sh -c "grep -o '\"in_sync\": true' '$RUN/sm2/osmats-state.json'"
check "both SMs live" sh -c "kill -0 $SM_PID && kill -0 $SM2"
grep "WRN 7A4" "$RUN/osm.log" "$RUN/sm2/osm.log" | tail -5
finish
