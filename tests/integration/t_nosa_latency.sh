# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Life without an SA is fast and dependable (DAT ATS 5.1; doc/design.md
# "Without the SA"). atsd registered with OpenSM, then OpenSM frozen
# (SIGSTOP: its agent stays registered and never answers, silence for
# every method) and killed (its port's kernel answers a Get with
# "unsupported", mad.c generate_unmatched_resp, and drops a GetTable):
# each time, N lookups of the host's own address through atsd, with
# atsd's default SA timeouts (500 ms, 3 retries), each answered
# locally, rc 0, within one SA timeout and slack (BOUND_MS), and atsctl
# never falls back to the SA itself. When OpenSM answers again, lookups
# go to the SA again.
. "$top_srcdir/tests/integration/harness.sh"

N=10
BOUND_MS=1500 # one SA timeout (500 ms) + 1 s for atsctl's start on a loaded host

fabric_up fabric4.net host2 host3
# No caching: every lookup goes past the cache to the SA or the local answer.
agent_start host2 "address 10.0.0.2 primary" "cache_ttl 0" "negative_ttl 0"
check "registered" wait_for "registration" 20 has_primary host1 "$G2" 10.0.0.2

# N timed lookups of $1 (atsctl ARGS...): "rc ms warnings local" lines in $RUN/$2.
timed_lookups() {
	local out=$1 i t0 t1 rc
	shift
	: >"$RUN/$out"
	for i in $(seq $N); do
		t0=$(date +%s%N)
		rc=0
		agent host2 "$@" >"$RUN/lookup.out" 2>&1 || rc=$?
		t1=$(date +%s%N)
		echo "$rc $(((t1 - t0) / 1000000)) $(grep -c 'asking the SA' "$RUN/lookup.out")" \
			"$(grep -c '(local)$' "$RUN/lookup.out")" >>"$RUN/$out"
	done
	echo "# $out (rc ms fallbacks local): $(tr '\n' ',' <"$RUN/$out")"
}
all_fast() {
	awk -v n=$N -v b=$BOUND_MS '$1 == 0 && $2 <= b && $3 == 0 && $4 == 1 { k++ }
		END { exit k == n ? 0 : 1 }' "$RUN/$1"
}
sa_served() {
	agent host2 resolve 10.0.0.2 >"$RUN/served.out" 2>&1 &&
		grep -q "10\.0\.0\.2 (primary)$" "$RUN/served.out"
}

kill -STOP "$SM_PID"
timed_lookups frozen resolve 10.0.0.2
check "SM frozen: $N lookups of the own address, each rc 0, local, within $BOUND_MS ms, no fallback" \
	all_fast frozen
timed_lookups frozen_primary primary "$G2"
check "... and of its primary, the same" all_fast frozen_primary
t0=$(date +%s%N)
check_rc "... an unknown address: no answer (exit 3), from atsd, not atsctl's fallback" 3 \
	"10\.9\.9\.9" agent host2 resolve 10.9.9.9
t1=$(date +%s%N)
echo "# unknown address: $(((t1 - t0) / 1000000)) ms"
check "... within atsd's bound (8 s) and before atsctl's (10 s)" \
	test $(((t1 - t0) / 1000000)) -lt 9500
check_absent "... without atsctl asking the SA itself" "asking the SA" \
	agent host2 resolve 10.9.9.9
check "the agent logged the SA's silence once" \
	sh -c "[ \$(grep -c 'the SA does not answer .*ATS 5\.1' '$RUN/atsd-host2.log') -eq 1 ]"
kill -CONT "$SM_PID"
check "SM thawed: the SA answers the own address again, not local" \
	wait_for "an SA answer" 20 sa_served
check_out "the agent logged the SA answering again" "the SA answers again" \
	cat "$RUN/atsd-host2.log"

sm_kill "$SM_PID"
timed_lookups killed resolve 10.0.0.2
check "SM killed: $N lookups of the own address, each rc 0, local, within $BOUND_MS ms, no fallback" \
	all_fast killed
timed_lookups killed_primary primary "$G2"
check "... and of its primary (a Get: 'unsupported' at once)" all_fast killed_primary

sm_start
check "SM back: the SA answers the own address again, not local" \
	wait_for "an SA answer" 30 sa_served
finish
