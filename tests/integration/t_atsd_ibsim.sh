# atsd in ibsim mode becomes the node's SM client (the recipe of the ibsim
# note): it survives OpenSM's SMInfo probes, refuses them the way a port
# without an SM does (an unanswered probe would stall OpenSM's sweeps for
# good: ibsim never times it out) and still registers.
. "$top_srcdir/tests/integration/harness.sh"

fabric_start fabric4.net
G2=$(port_gid host2)
agent_start host2 "verify_interval 2" "address 10.0.0.2 primary" "ibsim yes"
check "the agent registers 10.0.0.2" wait_for "registration" 10 has_primary host1 "$G2" 10.0.0.2
check_out "OpenSM saw host2 become an SM client (trap 144, IsSM)" \
	"Received Generic Notice .*num:144.*from LID" cat "$RUN/osm.log"
check "the agent is still alive and answering" agent host2 status
check_absent "OpenSM stayed master" "Entering STANDBY" cat "$RUN/osm.log"
check "OpenSM still completes heavy sweeps" sm_sweep
check "... twice" sm_sweep
check_out "OpenSM got 'not supported' for its SMInfo probe" \
	"error status = 0xC" cat "$RUN/osm.log"
check_absent "... and ignored no SM for its key" "non-matching sm_key" cat "$RUN/osm.log"
verified() {
	agent host2 stats | grep -q '^syncs [2-9]'
}
check "periodic verification keeps working" wait_for "a second sync" 10 verified
# A starting OpenSM probes the agent while DISCOVERING: it must not hang.
sm_stop
sm_start
check "after an SM restart the agent registers again" wait_for "registration" 20 has_primary host1 "$G2" 10.0.0.2
sm_stop
check_absent "OpenSM left no probe pending at either exit" "ERR 5401" cat "$RUN/osm.log"
finish
