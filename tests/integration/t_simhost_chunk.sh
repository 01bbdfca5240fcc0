# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A message longer than one AF_UNIX packet can be (about 4 MiB) between a
# process and its simulated kernel (simhost/wire/simhost.h, simhost_frame:
# chunks of SIMHOST_CHUNK): OpenSM writes a GetTable answer of 30,000
# ServiceRecords (5.3 MB) to its kernel, which sends it with RMPP; the
# reader's kernel reassembles it and hands it over. Stock saquery -S gets
# every record intact; atsctl dump reads the ATS-named ones (the same
# 5.3 MB answer) in one GetTable and prints those of the SID block.
. "$top_srcdir/tests/integration/harness.sh"
[ -n "$SAQUERY" ] || skip "saquery not installed"
# 30,000 Sets and a 5.3 MB read take 76 s under ASan, a fifth of CI's
# sanitizer stage; the framing itself runs under it in test_simframe.
[ -z "$SAN_RT" ] || skip "the 5.3 MB table: plain builds only (test_simframe runs under sanitizers)"
rules_off
fabric_start fabric4.net

# 100 ATS records in the block per host's GID; the rest ATS-named on
# host1's GID outside the block (SIDs from 0x2000): 30,000 in all.
NPER=100
TOTAL=30000
for node in host1 host2 host3 host4; do
	n=${node#host}
	check_out "$NPER ATS records of $node's GID set" "set $NPER" \
		srtool host1 --gid "$(port_gid "$node")" --sid 0x10000ce100415400 \
		--ip "10.0.$n.1" --count $NPER set
done
# Set from the four hosts at once, a quarter each: each srtool waits for
# every answer, and OpenSM keeps up with four.
NBIG=$((TOTAL - 4 * NPER))
QUARTER=$((NBIG / 4))
gid1=$(port_gid host1)
t0=$(date +%s%N)
pids=""
for n in 1 2 3 4; do
	srtool "host$n" --gid "$gid1" --sid $((0x2000 + (n - 1) * QUARTER)) --ip 10.9.1.1 \
		--count $QUARTER set >"$RUN/set.$n" 2>&1 &
	pids="$pids $!"
done
# shellcheck disable=SC2086
wait $pids
echo "# $NBIG Sets in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
check "$NBIG ATS-named records outside the block set" \
	test "$(cat "$RUN"/set.[1-4] | grep -c "^set $QUARTER\$")" -eq 4

# The whole transfer must arrive within saquery's one attempt (-t).
t0=$(date +%s%N)
on host3 timeout 120 "$SAQUERY" -t 60000 -S >"$RUN/saq.out" 2>"$RUN/saq.err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
n=$(grep -c '^ServiceRecord dump' "$RUN/saq.out")
echo "# saquery -S of $n records in $ms ms"
check "saquery -S prints all $TOTAL records (got $n, rc $rc)" test "$n" -eq $TOTAL -a "$rc" -eq 0

# Intact: the ServiceIDs printed are exactly those set.
ids_ok() {
	sed -n 's/^[[:space:]]*ServiceID\.*0x0*\([0-9a-fA-F]*\)$/\1/p' "$RUN/saq.out" |
		tr a-f A-F | sort >"$RUN/ids.got"
	{
		for i in $(seq 0 $((NPER - 1))); do
			for node in 1 2 3 4; do printf '10000CE1004154%02X\n' "$i"; done
		done
		for i in $(seq 0 $((NBIG - 1))); do printf '%X\n' $((0x2000 + i)); done
	} | sort >"$RUN/ids.want"
	diff "$RUN/ids.want" "$RUN/ids.got" | head -5
	cmp -s "$RUN/ids.want" "$RUN/ids.got"
}
check "... intact: their ServiceIDs are those set" ids_ok

# atsctl -v logs "dump: N record(s) in Q SA request(s)".
atsctl host2 -n -v -t 30000 -r 1 --json dump >"$RUN/dump.json" 2>"$RUN/dump.err"
rc=$?
read -r NREC NREQ <<EOF
$(sed -n 's/.*dump: \([0-9]*\) record(s) in \([0-9]*\) SA request(s).*/\1 \2/p' "$RUN/dump.err")
EOF
echo "# atsctl dump: ${NREC:-?} records in ${NREQ:-?} SA requests, rc $rc"
check "atsctl dump prints the block's $((4 * NPER)) records" test "${NREC:-0}" -eq $((4 * NPER))
check "... from one GetTable answer, without a walk" \
	sh -c "test '${NREQ:-0}' -eq 1 && ! grep -Eq 'walk|cut' '$RUN/dump.err'"
check "OpenSM is still up" kill -0 "$SM_PID"
finish
