# Malformed MADs from a hostile host to an agent and to the SM: nobody
# crashes, the SA keeps nothing of them, the plugin's counters move.
. "$top_srcdir/tests/integration/harness.sh"

fabric_start fabric4.net
G2=$(port_gid host2)
agent_start host2 "address 10.0.0.2 primary" "cm_listen 5001"
check "host2's agent registered" wait_for "record" 10 has_primary host3 "$G2"
L2=$(port_lid host2)

check_out "host1 sends its hostile MADs" "^sent [0-9]+ hostile MADs" \
	on host1 "$top_builddir/tests/tools/hostile" "$L2" 1
check "the agent is alive" agent host2 status
check_out "... and still answers liveness" "1 received" atsctl host1 ping "$L2" -c 1
check "OpenSM is alive: the SA answers" sa_answers host3
check_count "the SA kept nothing of them: one ATS record in all" 1 atsctl host3 -n dump
check "the plugin refused ATS Sets and counted them" wait_for "the counter" 10 \
	grep -Eq '"rejected": \{"sid-block": [1-9]' "$RUN/osmats-state.json"
check_out "... with numbered log lines" "ERR 7A0[0-9]: ATS rule" cat "$RUN/osm.log"
check "a real connection still works afterwards" \
	agent host2 connections
finish
