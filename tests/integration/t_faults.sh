# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Faults: 10% MAD loss on the SM's link and on two agents' links, an agent
# killed under loss, a link flap, OpenSM killed with SIGKILL. Every
# agent's records converge, with no duplicates, no stuck state and
# nothing orphaned.
. "$top_srcdir/tests/integration/harness.sh"

fabric_up fabric4.net host1 host2 host3
COMMON="verify_interval 2
sm_poll_interval 1
backoff_max 2
sa_timeout 200
sa_retries 5"

settled() {
	gid_records "$G1" 2 && gid_records "$G2" 1 && gid_records "$G3" 1
}

sim 'Error "smhost"[1] 10'
sim 'Error "host1"[1] 10'
sim 'Error "host2"[1] 10'
IFS_SAVE=$IFS
IFS='
'
agent_start host1 $COMMON "address 10.0.0.1 primary" "address 10.0.1.1"
agent_start host2 $COMMON "address 10.0.0.2 primary"
agent_start host3 $COMMON "address 10.0.0.3 primary"
IFS=$IFS_SAVE
check "with 10% loss on the SM's and agents' links, every record gets registered" \
	wait_for "settle" 60 settled
kill -9 "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
IFS='
'
agent_start host1 $COMMON "address 10.0.0.1 primary" "address 10.0.1.1"
IFS=$IFS_SAVE
check "host1's agent killed and restarted under loss: still exactly 2 records" \
	wait_for "restart settle" 60 settled
check_count "... and exactly one of each address" 1 atsctl host4 -n -t 300 -r 5 resolve 10.0.1.1
sim 'Error "smhost"[1] 0'
sim 'Error "host1"[1] 0'
sim 'Error "host2"[1] 0'
check_out "no agent is stuck: host2 syncs" "^syncs [1-9]" agent host2 stats

sim 'Unlink "host3"'
check "host3 unplugged: the SM flushes its record" wait_for "flush" 20 gid_records "$G3" 0
sim 'ReLink "host3"'
check "host3 back: its agent registers again" wait_for "relink" 30 gid_records "$G3" 1

sm_kill "$SM_PID"
sm_start
check "OpenSM killed with SIGKILL and restarted: everything is back" \
	wait_for "SM restart" 30 settled
check_count "no duplicates after all that" 2 atsctl host4 -n dump --gid "$G1"
check_out "... and nothing orphaned: the audit is clean" "^0 finding\(s\): clean$" \
	atsctl host4 audit
finish
