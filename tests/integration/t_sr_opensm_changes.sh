# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# OpenSM changes its ServiceRecords by itself: it empties its SA when its
# own port goes down, and loads its SA database (sa_db_file) in the first
# master sweep (lease expiry is in t_sr_diff). The plugin's index must
# follow: never serve the cleaned records, serve the loaded ones, and Sets
# afterwards must neither lose nor duplicate any.
. "$top_srcdir/tests/integration/harness.sh"

# drop_event_subscriptions: only then does OpenSM drop ServiceRecords with
# its port (state_mgr_sa_clean).
printf 'sa_db_dump TRUE\ndrop_event_subscriptions TRUE\n' >"$RUN/opensm.extra"
fabric_up fabric4.net host1
STATE="$RUN/osmats-state.json"
register_all() {
	check "host1 registers 10.7.0.1 and 10.7.0.2" \
		sh -c "cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL register 10.7.0.1 --primary && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL register 10.7.0.2"
	check "host2 registers 10.7.0.3" atsctl host2 register 10.7.0.3 --primary
}
register_all
check_count "3 records" 3 atsctl host4 -n dump

# The SM's own port goes down: OpenSM drops every ServiceRecord.
sim 'Unlink "smhost"'
kill -HUP "$SM_PID"
check "OpenSM sees its port down and cleans the SA" wait_for "SM port down" 20 \
	grep -q "SM port is down" "$RUN/osm.log"
n=$(subnet_ups)
sim 'ReLink "smhost"'
kill -HUP "$SM_PID"
check "the port is back: OpenSM sweeps as master" wait_subnet_up "$n"
check "the SA answers again" wait_for "the SA" 20 sa_answers host4
check_absent "none of the cleaned records is served" "10\.7\.0" atsctl host4 -n dump
check "host2 registers 10.7.0.3 again" atsctl host2 register 10.7.0.3 --primary
check_count "... which is then the only record" 1 atsctl host4 -n dump
register_all
check_count "3 records again, none twice" 3 atsctl host4 -n dump

# Stop (OpenSM dumps its SA database), then start loading that file at the
# first master sweep.
sm_stop
check "OpenSM dumped its SA database at exit" test -s "$RUN/opensm-sa.dump"
cp "$RUN/opensm-sa.dump" "$RUN/saved-sa.dump"
echo "sa_db_file $RUN/saved-sa.dump" >>"$RUN/opensm.conf"
sm_start
check "after its first sweep the index holds the 3 loaded records" wait_for "the index" 10 \
	grep -q '"index": {"records": 3,' "$STATE"
fallback=$(sed -n 's/.*"gets_fallback": \([0-9]*\),.*/\1/p' "$STATE")
check_count "the loaded records are served: 3 in all" 3 atsctl host4 -n dump
check_out "... host1's secondary by address" "$G1 .*10\.7\.0\.2$" atsctl host4 -n resolve 10.7.0.2
check "host1 registers 10.7.0.4 after the load" atsctl host1 register 10.7.0.4
check "... and registers 10.7.0.2 again (an update, not a second record)" \
	atsctl host1 register 10.7.0.2
check_count "4 records, none twice" 4 atsctl host4 -n dump
check "OpenSM sweeps" sm_sweep
check "the queries after the load came from the index" wait_for "the state file" 10 \
	grep -Eq "\"index\": \\{\"records\": 4, .*\"gets_indexed\": [1-9][0-9]*, \"gets_fallback\": ${fallback:-x}," "$STATE"
finish
