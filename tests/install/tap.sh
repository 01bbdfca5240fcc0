# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# TAP for the install tests, which run without a fabric (no harness.sh):
# . tap.sh NAME makes $TMP (kept when a check failed), check DESC CMD...
# is one result (skip DESC WHY one that cannot run), tap_end prints the
# plan last.
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
T_PASS=0
T_FAIL=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ibats-$1.XXXXXX")
trap 'if [ "$T_FAIL" -eq 0 ]; then rm -rf "$TMP"; else echo "# kept $TMP"; fi' EXIT

check() {
	local desc=$1
	shift
	if "$@" >"$TMP/last.out" 2>&1; then
		T_PASS=$((T_PASS + 1))
		echo "ok - $desc"
	else
		T_FAIL=$((T_FAIL + 1))
		echo "not ok - $desc"
		sed 's/^/#   /' "$TMP/last.out"
	fi
}

# skip DESC WHY: a check that cannot run here, counted in the plan.
skip() {
	T_PASS=$((T_PASS + 1))
	echo "ok - $1 # SKIP $2"
}

tap_end() {
	echo "1..$((T_PASS + T_FAIL))"
	[ "$T_FAIL" -eq 0 ]
}
