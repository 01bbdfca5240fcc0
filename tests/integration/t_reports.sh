# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Report subscriptions (Reports reach atsd's agent by registration): atsd
# subscribes to traps 64/65 at the SA; with cache TTLs of ten minutes only
# a Report can explain a fresh answer. A host unplugged: the other host's
# cached answer goes on trap 65 and its next lookup misses; plugged back:
# trap 64 drops the cached "no record", and it resolves as soon as the
# record is back. OpenSM gets a ReportResp for each Report; forged
# Reports from another host are refused; after an SA restart atsd
# subscribes again and empties its cache; it unsubscribes at exit. The
# delays from Unlink to the cache drop and to the first miss are printed
# (# lines).
. "$top_srcdir/tests/integration/harness.sh"

fabric_up fabric4.net host2
L1=$(port_lid host1)
L2=$(port_lid host2)
agent_start host2 "verify_interval 1" "sm_poll_interval 1" \
	"address 10.0.0.2 primary"
agent_start host1 "cache_ttl 600" "negative_ttl 600" "sm_poll_interval 1" \
	"verify_interval 2" "address 10.0.0.1 primary"

stat() { # the value of stat $2 of node $1's agent
	agent "$1" stats | sed -n "s/^$2 //p"
}
stat_ge() { # stat $2 of node $1 is at least $3
	[ "$(stat "$1" "$2")" -ge "$3" ] 2>/dev/null
}
resolves() {
	agent host1 resolve 10.0.0.2 | grep -q "$G2"
}
misses() {
	agent host1 resolve 10.0.0.2 2>&1 | grep -q "no ATS record"
}

check "host1's agent subscribes to SA reports" wait_for "subscription" 10 stat_ge host1 subscribed 1
check_out "... and says so" "subscribed to SA reports of traps 64/65" cat "$RUN/atsd-host1.log"
check "host2 registers 10.0.0.2" wait_for "registration" 10 has_primary host1 "$G2" 10.0.0.2
check "host1 resolves 10.0.0.2" resolves
check "... again, from its cache" resolves
check_out "... counted as a hit" "^cache_hits 1$" agent host1 stats
agent host1 resolve 10.0.0.9 >/dev/null 2>&1
check_rc "... twice, the second time from the negative cache" 1 "no ATS record \(cached\)" \
	agent host1 resolve 10.0.0.9

t0=$(date +%s%N)
sim 'Unlink "host2"'
check "host2 unplugged: host1 drops its cached answer on a report" \
	wait_for "trap 65" 10 stat_ge host1 invalidations 1
t1=$(date +%s%N)
echo "# invalidation delay (Unlink -> cache drop, polled every 50 ms): $(((t1 - t0) / 1000000)) ms"
check "... and its next lookup misses" wait_for "a miss" 10 misses
t2=$(date +%s%N)
echo "# Unlink -> first miss: $(((t2 - t0) / 1000000)) ms"
# The issue's bound is the plain build's; a sanitizer build (SAN_RT) runs
# every process several times slower (2.5 s measured under ASan at load 3).
LIMIT=2000
[ -n "$SAN_RT" ] && LIMIT=8000
check "... within $((LIMIT / 1000)) seconds of the unplug" [ $(((t2 - t0) / 1000000)) -lt $LIMIT ]
check_out "... the report logged" "SA report: $G2 out of service, 1 cached answer" \
	cat "$RUN/atsd-host1.log"
check "... the miss is cached (no report since)" misses
check_rc "... as a negative hit" 1 "no ATS record \(cached\)" agent host1 resolve 10.0.0.2
# The Report OpenSM sent to host2's gone port: resent by OpenSM's kernel,
# then timed out (the pattern the check on host1's answers looks for).
check "OpenSM's Report to host2, unplugged, timed out" \
	wait_for "the Report's timeout" 10 grep -q "SubnAdmReport(Notice), attr_mod 0x0, LID $L2," "$RUN/osm.log"

sim 'ReLink "host2"'
check "host2 plugged back: host1 resolves it again as soon as its record is back" \
	wait_for "record back" 20 resolves
check_out "... on trap 64" "SA report: $G2 in service" cat "$RUN/atsd-host1.log"
check_out "... the negative answers dropped" "^invalidations [3-9]" agent host1 stats
check_out "no duplicate, nothing refused yet" "^report_duplicates 0$" agent host1 stats
check_absent "OpenSM got host1's ReportResps (no Report to LID $L1 timed out)" \
	"SubnAdmReport\(Notice\), attr_mod 0x0, LID $L1," cat "$RUN/osm.log"

check_out "forged Reports from host3 to host1" "^sent 16 forged Reports, 0 answered" \
	on host3 "$top_builddir/tests/tools/hostile" "$L1" 1 reports
check "... all refused" wait_for "refusals" 5 stat_ge host1 reports_refused 16
check_out "... none acted on" "^reports 2$" agent host1 stats
check "... and the agent lives" agent host1 status

# An SA restart forgets subscriptions: the verify period subscribes again.
# Counted from when the agent saw the SA gone (a subscribe failed).
fails=$(stat host1 subscription_failures)
sm_stop
check "OpenSM stopped: host1's subscribe fails" \
	wait_for "a failure" 20 stat_ge host1 subscription_failures $((fails + 1))
subs_before=$(stat host1 subscriptions)
sm_start
check "OpenSM restarted: host1 subscribes again" \
	wait_for "resubscription" 20 stat_ge host1 subscriptions $((subs_before + 1))
check_out "... and empties its cache: reports may have been missed" "^cache_entries 0$" \
	agent host1 stats
check "... logged once" \
	[ "$(grep -c "cannot subscribe to SA reports" "$RUN/atsd-host1.log")" -eq 1 ]
check "... host2 registers again" wait_for "registration" 20 has_primary host1 "$G2" 10.0.0.2
check "... host1 resolves it" resolves
n=$(stat host1 invalidations)
sim 'Unlink "host2"'
check "... host2 unplugged again: its answer dropped" \
	wait_for "trap 65" 20 stat_ge host1 invalidations $((n + 1))
sim 'ReLink "host2"'

kill "$(agent_pid host1)"
check "host1's agent exits" wait_for "exit" 10 sh -c "! kill -0 $(agent_pid host1) 2>/dev/null"
check_out "... after unsubscribing" "unsubscribed from SA reports" cat "$RUN/atsd-host1.log"
finish
