# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# No SA (DAT ATS 5.1, point to point): "the initial registration will
# fail and the IB driver may create local records to satisfy translation
# requests going forward". With OpenSM stopped, atsd answers its own
# address and another port's default GID written as IPv6, marked local;
# an unknown address gets no answer. With OpenSM back the agent
# registers and the SA answers again, nothing local.
. "$top_srcdir/tests/integration/harness.sh"

fabric_up fabric4.net host2 host3
sm_stop
# Short SA timeouts and backoff: the test waits less, nothing else changes.
agent_start host2 "address 10.0.0.2 primary" "sa_timeout 200" \
	"sa_retries 1" "backoff_max 2"
check "no SA: the initial registration fails" \
	wait_for "a failed sync" 10 grep -q "SA sync failed" "$RUN/atsd-host2.log"
check_out "no SA: the agent's own address resolves, marked local" \
	"^0x10000ce100415453  $G2 +0xffff  infinite +10\.0\.0\.2 \(primary\) \(local\)$" \
	agent host2 resolve 10.0.0.2
check_out "... with a note that the SA does not answer" \
	"the SA does not answer: atsd's own records \(local" agent host2 resolve 10.0.0.2
check_json "... --json: \"local\": true, the record on the agent's GID" \
	"d['local'] is True and len(d['records']) == 1 and d['records'][0]['local'] is True and d['records'][0]['ip'] == '10.0.0.2' and d['records'][0]['gid'] == '$G2'" \
	agent host2 --json resolve 10.0.0.2
check_out "another port's GID as an IPv6 address resolves to that GID, local" \
	"^0x10000ce100415453  $G3 +0xffff  infinite +$G3 \(primary\) \(local\)$" \
	agent host2 resolve "$G3"
check_json "... --json" \
	"d['local'] is True and d['records'][0]['gid'] == '$G3' and d['records'][0]['ip'] == '$G3'" \
	agent host2 --json resolve "$G3"
check_out "primary of the agent's GID: its address, local" \
	"^0x10000ce100415453  $G2 .* 10\.0\.0\.2 \(primary\) \(local\)$" agent host2 primary "$G2"
check_rc "an unknown address gets no answer (exit 3, the SA's silence)" 3 "10\.9\.9\.9" \
	agent host2 resolve 10.9.9.9
check_absent "... nothing local about it" "local|^0x" agent host2 resolve 10.9.9.9
check_out "the local answers are counted" "^local_answers [6-9]$" agent host2 stats
check_out "... and none was cached" "^cache_entries 0$" agent host2 stats
check "the agent logged the SA's silence once, not per lookup" \
	sh -c "[ \$(grep -c 'the SA does not answer .*ATS 5\.1' '$RUN/atsd-host2.log') -eq 1 ]"

sm_start
check "SA back: the agent registers 10.0.0.2 (no restart)" \
	wait_for "registration" 20 has_primary host1 "$G2" 10.0.0.2
sa_served() {
	agent host2 resolve 10.0.0.2 >"$RUN/served.out" 2>&1 &&
		grep -q "10\.0\.0\.2 (primary)$" "$RUN/served.out"
}
check "... its address is the SA's answer again, not local" wait_for "an SA answer" 20 sa_served
check_json "... --json without \"local\"" \
	"'local' not in d and d['records'][0]['ip'] == '10.0.0.2' and 'local' not in d['records'][0]" \
	agent host2 --json resolve 10.0.0.2
check_rc "the SA's 'no record' is the answer: never a local one" 1 "no ATS record" \
	agent host2 resolve "$G3"
check_rc "... nor for an unknown address" 1 "no ATS record" agent host2 resolve 10.9.9.9
check_out "the agent logged the SA answering again" "the SA answers again" \
	cat "$RUN/atsd-host2.log"
finish
