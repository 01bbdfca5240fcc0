# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The simulated kernel times out a request whose response never comes,
# as the kernel's MAD layer does on a host (simhost/kernel/kwait.c; mad.c
# timeout_sends). The case that needs it: an SM that stopped reading
# (SIGSTOP: hung). Its agents stay registered, so a new SM's SMInfo Get
# reaches its queue and is never answered; the Get times out in the new
# SM's kernel after OpenSM's retries (ETIMEDOUT to OpenSM) and the new
# SM becomes master, where without the timeout it would wait for the
# answer for ever in its first sweep (wait_for_pending_transactions).
. "$top_srcdir/tests/integration/harness.sh"
two_sm_opts >"$RUN/opensm.extra"
fabric_start fabric4.net
kill -STOP "$SM_PID"

# kernel timeouts counted by host3's simulated kernel so far.
timeouts() {
	simhost host3 status | sed -n 's/.* timeouts=\([0-9]*\) .*/\1/p'
}
T0=$(timeouts)
second_sm host3 10
check "the new SM becomes master" wait_for "SUBNET UP" 30 \
	grep -q "SUBNET UP" "$RUN/sm2/osm.log"
check "... after its kernel timed out a request (timeouts $T0 -> $(timeouts))" \
	test "$(timeouts)" -gt "$T0"
check "its SA answers" wait_for "the SA" 20 sa_answers host1
kill -9 "$SM_PID"
wait "$SM_PID" 2>/dev/null
finish
