# librmppsim times out a request whose response never comes, as the
# kernel's MAD layer does on a host (tests/rmppsim/wait.c). The case that
# needs it: an SM that stopped reading (SIGSTOP: hung, or killed with its
# queue unread). A new SM's SMInfo Get to it is never answered; under
# umad2sim alone that SM waits for the answer for ever in its first sweep
# (OpenSM's wait_for_pending_transactions) and never brings the subnet
# up. With the shim the Get times out after OpenSM's retries and the new
# SM becomes master.
. "$top_srcdir/tests/integration/harness.sh"
[ -z "${PLAIN_SIM:-}" ] || skip "without librmppsim"
two_sm_opts >"$RUN/opensm.extra"
fabric_start fabric4.net
kill -STOP "$SM_PID"

# umad2sim alone: the Get stays outstanding.
SIM_PRELOAD=$PLAIN_PRELOAD
second_sm host3 10
SIM_PRELOAD=$RMPP_PRELOAD
check "without the shim the new SM starts sweeping" wait_for "the second SM" 30 \
	grep -q "Entering DISCOVERING state" "$RUN/sm2/osm.log"
not_up() {
	! wait_for "SUBNET UP (must not come)" 10 grep -q "SUBNET UP" "$RUN/sm2/osm.log"
}
check "... and is still not master 10 s later" not_up
sm_kill "$SM2"

# With the shim (the harness's default).
mkdir -p "$RUN/sm3"
sed -e "s|^log_file .*|log_file $RUN/sm3/osm.log|" \
	-e "s|^dump_files_dir .*|dump_files_dir $RUN/sm3|" \
	-e "/^sm_priority /d" "$RUN/opensm.conf" >"$RUN/sm3/opensm.conf"
echo "sm_priority 10" >>"$RUN/sm3/opensm.conf"
osm_launch host4 "$RUN/sm3" "$RUN/sm3/opensm.conf"
check "with the shim the new SM becomes master" wait_for "SUBNET UP" 30 \
	grep -q "SUBNET UP" "$RUN/sm3/osm.log"
check "its SA answers" wait_for "the SA" 20 sa_answers host1
kill -9 "$SM_PID"
wait "$SM_PID" 2>/dev/null
finish
