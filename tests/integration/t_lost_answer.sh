# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# One lost SA answer costs one retry, on a kernel that refuses a request
# whose TID another still waiting has (user_mad.c is_duplicate: EINVAL
# from write(); simhost/kernel/kmad.c kmad_duplicate). The reader's port
# loses SA MADs (`simhost host3 drop 0x03 on`) until one answer is lost,
# then nothing: a lookup by atsctl alone, then one through atsd, each
# succeeds on its retry (a fresh TID, lib/core/mport.c and
# lib/host/ats_window.c), the SA saw at least two requests for it, and
# host3's kernel refused no write.
. "$top_srcdir/tests/integration/harness.sh"

fabric_start fabric4.net
check_out "host1 registers 10.0.0.1" "SID" atsctl host1 register 10.0.0.1 --primary

field() { # NODE NAME: a counter of simhost's status
	simhost "$1" status | tr ' ' '\n' | sed -n "s/^$2=//p"
}
lost_more() { [ "$(field host3 lost)" -gt "$1" ]; }

# lose_one CMD...: runs CMD on host3 while host3 loses SA MADs until one
# is lost; its output in $RUN/lost.out, its status in LOST_RC, the SA
# requests smhost received meanwhile in LOST_REQS.
lose_one() {
	local r0 l0 pid
	r0=$(field smhost sa_requests_in)
	l0=$(field host3 lost)
	simhost host3 drop 0x03 on >/dev/null
	"$@" >"$RUN/lost.out" 2>&1 &
	pid=$!
	wait_for "an SA answer lost on host3" 10 lost_more "$l0"
	simhost host3 drop 0x03 off >/dev/null
	wait "$pid"
	LOST_RC=$?
	LOST_REQS=$(($(field smhost sa_requests_in) - r0))
}

# resolved_despite WHO HOW CMD...: CMD (host3 resolving 10.0.0.1) with
# an SA answer lost (lose_one) still resolves it, on a retry.
resolved_despite() {
	local who=$1 how=$2 t0 ms
	shift 2
	t0=$(date +%s%N)
	lose_one "$@"
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	echo "# $how: rc $LOST_RC, $LOST_REQS SA requests, $ms ms"
	check "$who resolves 10.0.0.1 despite a lost answer (rc $LOST_RC)" \
		grep -q "10\.0\.0\.1" "$RUN/lost.out"
	check "... on its retry: the SA saw $LOST_REQS requests (>= 2)" test "$LOST_REQS" -ge 2
}

resolved_despite atsctl "atsctl alone" atsctl host3 resolve 10.0.0.1
agent_start host3
resolved_despite atsd "through atsd" agent host3 resolve 10.0.0.1
check "host3's kernel refused no write as a duplicate TID" \
	test "$(field host3 dup_refused)" -eq 0
finish
