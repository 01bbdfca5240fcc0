# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# TAP output and checks (automake's tap-driver.sh): one result a check,
# the plan last, so a test that dies midway has none and counts as an
# ERROR. wait_for polls for readiness; finish ends every test.
# Sourced by harness.sh, in its order: not a script of its own.

# A skip after some checks is one more result; before any, a skip plan.
skip() {
	if [ "$T_N" -eq 0 ]; then
		echo "1..0 # SKIP $*"
	else
		T_N=$((T_N + 1))
		echo "ok $T_N # SKIP $*"
		echo "1..$T_N"
	fi
	exit 0
}

wait_for() {
	local desc=$1 secs=$2 i
	shift 2
	for i in $(seq $((secs * 20))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "timed out after ${secs}s waiting for $desc"
	return 1
}

check() {
	local desc=$1
	shift
	T_N=$((T_N + 1))
	if "$@" >"$RUN/last.out" 2>&1; then
		T_PASS=$((T_PASS + 1))
		echo "ok $T_N - $desc"
	else
		T_FAIL=$((T_FAIL + 1))
		echo "not ok $T_N - $desc"
		sed 's/^/#   /' "$RUN/last.out"
	fi
}

# check_json DESC EXPR CMD...: CMD's standard output is one JSON document
# by Python's parser, and the Python expression EXPR over it (d) holds.
check_json() { check "$1" _json "${@:2}"; }

_json() {
	local expr=$1
	shift
	"$@" >"$RUN/json.out" 2>"$RUN/json.err"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1], "rb"))
ok = eval(sys.argv[2])
print(json.dumps(d)[:2000])
sys.exit(0 if ok else 1)' "$RUN/json.out" "$expr"
}

# check_out DESC REGEX CMD...: CMD succeeds and its output matches REGEX.
check_out() { check_rc "$1" 0 "${@:2}"; }

# check_rc DESC RC REGEX CMD...: CMD exits with RC, output matches REGEX.
check_rc() { check "$1" _match "${@:2}"; }

_match() {
	local want=$1 re=$2 rc
	shift 2
	"$@" >"$RUN/cmd.out" 2>&1
	rc=$?
	cat "$RUN/cmd.out"
	if [ "$rc" -ne "$want" ]; then
		echo "exit status $rc, expected $want: $*"
		return 1
	fi
	grep -Eq -- "$re" "$RUN/cmd.out" || { echo "no match for /$re/: $*"; return 1; }
}

# check_count DESC N CMD...: CMD prints exactly N record lines ("0x...").
check_count() { check "$1" _count "${@:2}"; }

_count() {
	local want=$1 got
	shift
	got=$("$@" 2>&1 | grep -c '^0x')
	[ "$got" -eq "$want" ] || { echo "$got records, expected $want: $*"; return 1; }
}

# check_absent DESC REGEX CMD...: CMD's output does not match REGEX.
check_absent() { check "$1" _absent "${@:2}"; }

_absent() {
	local re=$1
	shift
	! "$@" 2>&1 | grep -Eq -- "$re"
}

# Stop what the test started (a race at exit is reported then), then one
# check: no ThreadSanitizer report names code of plugin/, lib/ or
# hostagent/; those that do are printed symbolized.
tsan_check() {
	stop_all
	check "no ThreadSanitizer report names ibats code" \
		"$PYTHON3" "$top_srcdir/tests/integration/tsan_report.py" "$top_srcdir" \
		"$top_builddir" "$RUN"/tsan.*
}

# check: nothing the test started outlives stop_all; what does is killed
# and named.
survivors_check() {
	stop_all
	check "no process the test started outlives it" reap_survivors
}

finish() {
	[ -n "$TSAN" ] && tsan_check
	survivors_check
	echo "# $T_NAME: $T_PASS passed, $T_FAIL failed in ${SECONDS}s"
	echo "1..$T_N"
	[ "$T_FAIL" -eq 0 ]
}
