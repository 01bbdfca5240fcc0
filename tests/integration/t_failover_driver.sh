# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# SM failover under each driver profile of the simulated kernel
# (simhost/kernel/kdriver.h): the master SM dies and the standby on host3
# takes over with a new SM LID. No Mellanox driver raises SM_CHANGE (mlx5
# handle_port_change, mlx4 handle_port_mgmt_change_event): an agent there
# hears of the failover from CLIENT_REREGISTER, when the new master sets
# ClientReregister, or else from its own poll of the port. qib's SMA
# raises SM_CHANGE. Each agent must use the new SM within its poll bound;
# the test prints each one's detection time, from the kill to the agent's
# log naming the new SM LID.
#   host1 mlx5                     CLIENT_REREGISTER
#   host2 mlx5, no ClientReregister nothing: the poll
#   host3 qib (the new master)     SM_CHANGE, CLIENT_REREGISTER
#   host4 mlx4                     CLIENT_REREGISTER
. "$top_srcdir/tests/integration/harness.sh"

POLL=2
two_sm_opts >"$RUN/opensm.extra"
echo "--driver mlx5" >"$RUN/simhost-host1.extra"
echo "--driver mlx5 --no-client-rereg" >"$RUN/simhost-host2.extra"
echo "--driver qib" >"$RUN/simhost-host3.extra"
echo "--driver mlx4" >"$RUN/simhost-host4.extra"
fabric_up fabric4.net host1 host2 host3 host4
LID3=$(port_lid host3)
[ -n "$LID3" ] || { echo "no LID of host3"; exit 1; }

check_out "host2's simulated kernel runs the mlx5 profile" "driver mlx5\)" \
	cat "$RUN/simhost-host2.log"
check_out "host4's the mlx4 profile" "driver mlx4\)" cat "$RUN/simhost-host4.log"
for n in 1 2 3 4; do
	agent_start "host$n" "sm_poll_interval $POLL" "verify_interval 30" "backoff_max 2" \
		"address 10.0.0.$n primary"
done
settled() {
	local g
	for g in "$G1" "$G2" "$G3" "$G4"; do
		gid_records "$g" 1 || return 1
	done
}
check "every agent registers with the first SM" wait_for "registration" 30 settled

second_sm host3 10
check "a second SM on host3 goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"

# Detection: the agent's log names the new SM LID ("SM LID a -> LID3"),
# from the sync a port event starts or from its poll. Timed from the kill
# and from the new master's Set(PortInfo) on the agent's port (its sysfs
# sm_lid, which the simulated kernel updates within 50 ms).
declare -A MS PORT
sm_lid_file() { echo "$SIMHOST_DIR/host$1/sys/class/infiniband/ibsim0/ports/1/sm_lid"; }
now_ms() { echo $(( ($(date +%s%N) - T0) / 1000000 )); }
NEW=$(printf '0x%x' "$LID3")
declare -A KLINES
for n in 1 2 3 4; do
	KLINES[$n]=$(wc -l <"$RUN/simhost-host$n.log")
done
T0=$(date +%s%N)
sm_kill "$SM_PID"
left=4
while [ "$left" -gt 0 ] && [ "$(now_ms)" -lt 30000 ]; do
	for n in 1 2 3 4; do
		[ -z "${PORT[$n]:-}" ] && [ "$(cat "$(sm_lid_file "$n")")" = "$NEW" ] &&
			PORT[$n]=$(now_ms)
		[ -z "${MS[$n]:-}" ] || continue
		if grep -Eq "SM LID [0-9]+ -> $LID3[,:]" "$RUN/atsd-host$n.log"; then
			MS[$n]=$(now_ms)
			left=$((left - 1))
		fi
	done
	sleep 0.05
done
for n in 1 2 3 4; do
	echo "# host$n ($(cat "$RUN/simhost-host$n.extra")): port names the new SM ${PORT[$n]:-never} ms after the kill, the agent ${MS[$n]:-never} ms, $(( ${MS[$n]:-0} - ${PORT[$n]:-0} )) ms after its port"
done

# What each port raised since the kill (the simulated kernel logs it) and
# what the agent heard (atsd logs the last event of a batch).
kevents() {
	tail -n +$((KLINES[$1] + 1)) "$RUN/simhost-host$1.log" | grep -o "port event [A-Za-z ]* (" |
		sort -u
}
aevents() { grep -o "port event [A-Za-z ]*:" "$RUN/atsd-host$1.log" | sort -u; }
check_out "host1 (mlx5) raises CLIENT_REREGISTER" "client reregistration" kevents 1
check_absent "... and no SM_CHANGE" "SM change" kevents 1
check_out "... which its agent hears" "client reregistration" aevents 1
check_absent "host2 (mlx5, no ClientReregister) raises no event" "port event" kevents 2
check_out "host3 (qib) raises SM_CHANGE" "SM change" kevents 3
check_out "... and CLIENT_REREGISTER" "client reregistration" kevents 3
check_out "... and its agent hears them" "port event" aevents 3
check_out "host4 (mlx4) raises CLIENT_REREGISTER" "client reregistration" kevents 4
check_absent "... and no SM_CHANGE" "SM change" kevents 4

# The bound, from the port's change: the poll (sm_poll_interval) plus
# reading the port, on a loaded machine: 1.5 s more.
within() {
	[ -n "${MS[$1]:-}" ] && [ -n "${PORT[$1]:-}" ] &&
		[ $(( MS[$1] - PORT[$1] )) -le $(( POLL * 1000 + 1500 )) ]
}
for n in 1 2 3 4; do
	check "host$n's agent uses the new SM within its poll bound" within "$n"
done
check_out "host2's agent found it by its poll" "SM LID [0-9]+ -> $LID3, .*: checking our records" \
	cat "$RUN/atsd-host2.log"
check "every agent registers again with the new SM" wait_for "re-registration" 30 settled
finish
