# A master without the plugin and a standby with it (a rolling upgrade
# that starts with the standby). On hardware the master's kernel answers
# the standby's pulls "unsupported" (ib_mad generate_unmatched_resp), which
# the standby takes as no answer. Under ibsim (umad2sim 0.10) a MAD of a
# class the receiving process has not registered crashes that process.
. "$top_srcdir/tests/integration/harness.sh"
{ two_sm_opts; echo "sm_key 0x00000000000ABCDE"; } >"$RUN/opensm.extra"
SM_CONF="$RUN/opensm-stock.conf" fabric_start fabric4.net
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
second_sm host3 10
check "standby" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
sleep 5
check "the master (no plugin) still runs" kill -0 "$SM_PID"
check "the master still answers the SA" sa_answers host4
tail -3 "$RUN/opensm.out" "$RUN/sm2/osm.log"
grep -o '"replication.*' "$RUN/sm2/osmats-state.json"
finish
