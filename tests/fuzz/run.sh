#!/bin/bash
# Build the libFuzzer targets with clang and run them.
#   tests/fuzz/run.sh            short run (make check): 20k inputs per target
#   tests/fuzz/run.sh RUNS       RUNS inputs per target (the long run)
# Each target first replays the inputs under tests/fuzz/regress/<target>/
# (the crashes fuzzing found, fixed since). Prints "fuzz_X: N execs,
# 0 crashes" per target and ends with the usual "N passed, N failed".
# Without clang's libFuzzer it skips (exit 77).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
RUNS=${1:-20000}
CC_FUZZ=${CC_FUZZ:-clang}
OUT="$top_builddir/tests/fuzz/bin"
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
INC="-I$top_srcdir/lib/core -I$top_srcdir/lib/host -I$top_srcdir/plugin -I$top_srcdir/hostagent/atsd"
C="$top_srcdir/lib/core"
LIBSRC="$C/ats.c $C/sr.c $C/sa.c $C/mad.c $C/vmad.c $C/smp.c $C/cm.c $C/ipoib.c $C/mcm.c
	$C/cfg.c $C/log.c $C/sa_client.c $C/mport.c
	$top_srcdir/lib/host/ifev.c $top_srcdir/lib/host/ats_query.c
	$top_srcdir/plugin/policy.c $top_srcdir/plugin/conf.c
	$top_srcdir/hostagent/atsd/agent_conf.c $top_srcdir/hostagent/atsd/cm_ep.c"

command -v "$CC_FUZZ" >/dev/null || { echo "SKIP: no clang"; exit 77; }
mkdir -p "$OUT"
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long s) { (void)d; (void)s; return 0; }' \
	>"$OUT/probe.c"
"$CC_FUZZ" -fsanitize=fuzzer "$OUT/probe.c" -o "$OUT/probe" 2>/dev/null ||
	{ echo "SKIP: clang has no libFuzzer (libclang-rt-14-dev)"; exit 77; }

passed=0
failed=0
for t in sr vmad cm nl conf; do
	bin="$OUT/fuzz_$t"
	if ! "$CC_FUZZ" $FLAGS $INC -DIBATS_VERSION='"fuzz"' "$top_srcdir/tests/fuzz/fuzz_$t.c" \
		$LIBSRC -o "$bin" -libumad -lmnl 2>"$OUT/fuzz_$t.build"; then
		echo "fuzz_$t: build failed"; cat "$OUT/fuzz_$t.build"
		failed=$((failed + 1))
		continue
	fi
	regress=$(find "$top_srcdir/tests/fuzz/regress/$t" -type f 2>/dev/null | sort)
	if [ -n "$regress" ] && ! "$bin" $regress >"$OUT/fuzz_$t.regress.log" 2>&1; then
		echo "fuzz_$t: a regression input crashes again"
		grep -A30 -E 'ERROR|runtime error|deadly' "$OUT/fuzz_$t.regress.log" | head -40
		failed=$((failed + 1))
		continue
	fi
	mkdir -p "$OUT/corpus_$t"
	if "$bin" -runs="$RUNS" -max_len=512 -seed=1 -timeout=10 -print_final_stats=1 \
		"$OUT/corpus_$t" >"$OUT/fuzz_$t.log" 2>&1; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$OUT/fuzz_$t.log")
		echo "fuzz_$t: ${execs:-?} execs, 0 crashes"
		passed=$((passed + 1))
	else
		echo "fuzz_$t: crash"
		grep -A30 -E 'ERROR|runtime error|deadly' "$OUT/fuzz_$t.log" | head -40
		failed=$((failed + 1))
	fi
done
rm -f /tmp/ibats-fuzz-conf.*
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
