#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The fuzz targets (automake check programs), in TAP:
#   tests/fuzz/run.sh            make check: 20k inputs per target
#   tests/fuzz/run.sh RUNS       RUNS inputs per target (make fuzz)
# Each target first replays the inputs under tests/fuzz/regress/<target>/
# (seeds, and the crashes fuzzing found, fixed since). Linked with
# libFuzzer (FUZZ_ENGINE=libfuzzer: configured with clang) each then
# fuzzes RUNS inputs, starting from those; with the standalone driver
# (gcc) the replay is all.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${FUZZ_ENGINE:=standalone}"
RUNS=${1:-20000}
OUT="$top_builddir/tests/fuzz"
n=0

# The sanitizer's report, as TAP diagnostics.
report() {
	grep -A30 -E 'ERROR|runtime error|deadly|cannot' "$1" | head -40 | sed 's/^/# /'
}

for t in sr vmad cm cmwire nl conf repl rmpp notice smq atsd acmats; do
	bin="$OUT/fuzz_$t"
	regress=$(find "$top_srcdir/tests/fuzz/regress/$t" -type f 2>/dev/null | sort)
	n=$((n + 1))
	if [ -z "$regress" ]; then
		echo "ok $n - fuzz_$t: regression inputs # SKIP none yet"
	elif "$bin" $regress >"$OUT/fuzz_$t.regress.out" 2>&1; then
		echo "ok $n - fuzz_$t: $(echo "$regress" | wc -l) regression input(s)"
	else
		echo "not ok $n - fuzz_$t: a regression input crashes again"
		report "$OUT/fuzz_$t.regress.out"
	fi
	[ "$FUZZ_ENGINE" = libfuzzer ] || continue
	n=$((n + 1))
	mkdir -p "$OUT/corpus_$t"
	seeds=
	[ -d "$top_srcdir/tests/fuzz/regress/$t" ] && seeds="$top_srcdir/tests/fuzz/regress/$t"
	if "$bin" -runs="$RUNS" -max_len=512 -seed=1 -timeout=10 -print_final_stats=1 \
		"$OUT/corpus_$t" ${seeds:+"$seeds"} >"$OUT/fuzz_$t.out" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz_$t.out")
		echo "ok $n - fuzz_$t: ${execs:-?} execs, 0 crashes"
	else
		echo "not ok $n - fuzz_$t: crash"
		report "$OUT/fuzz_$t.out"
	fi
done
rm -f /tmp/ibats-fuzz-conf.*
echo "1..$n"
