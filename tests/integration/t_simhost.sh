# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The simulated host (simhost) behaves as a host's kernel, with
# stock tools as witnesses: osmtest's whole-MAD SA flows, ibping served
# by whichever process of a node registered its class, sysfs and verbs
# events that follow the port, ClientReregister, ib_ipoib's broadcast
# membership and ib_cm, changed at run time as an admin does
# (`simhost NODE ipoib add|del`, `modprobe|rmmod ib_cm`).
. "$top_srcdir/tests/integration/harness.sh"

# Stock tools: infiniband-diags beside saquery, osmtest beside opensm.
DIAGS=$(dirname "$SAQUERY")
IBPING="$DIAGS/ibping"
IBSTAT="$DIAGS/ibstat"
OSMTEST="$(dirname "$OPENSM")/osmtest"
for t in "$IBPING" "$IBSTAT" "$OSMTEST"; do
	[ -x "$t" ] || skip "$t not installed"
done

host_ns h3
N3=$(ns h3)
ip -n "$N3" addr add 10.0.0.3/24 dev v0
fabric_start fabric4.net
MGID=ff12:401b:ffff::ffff:ffff
SYSPORT=/sys/class/infiniband/ibsim0/ports/1

# Whether PATH exists on NODE (stat: a program, so the path is the
# node's; test is a shell builtin).
exists() {
	on "$1" stat -- "$2" >/dev/null 2>&1
}
absent() {
	! exists "$@"
}

# osmtest FLOW: stock osmtest on host4 against the SA, bounded; its log
# shown when it fails.
osmtest() {
	local rc
	on host4 timeout 120 "$OSMTEST" -f "$1" -i "$RUN/scratch/osmtest.dat" \
		-l "$RUN/osmtest-$1.log" >/dev/null 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || tail -n 20 "$RUN/osmtest-$1.log"
	return $rc
}
check "osmtest -f c: the inventory from SA queries on host4 (whole 256-byte MADs, RMPP)" osmtest c
check "osmtest -f a: every validation flow against the plugin SM passes" osmtest a

# ibping: the node's kernel delivers class 0x32 to whichever process of
# the node registered it.
L2=$(port_lid host2)
L4=$(port_lid host4)
agent_start host2 "address 10.0.0.2 primary"
node_up host4 || exit 1
on host4 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/ibping-host4.pid" "$IBPING" -S \
	>"$RUN/ibping-host4.log" 2>&1 &
T_PIDS="$T_PIDS $!"
wait_for "ibping -S on host4" 10 test -s "$RUN/ibping-host4.pid" || exit 1
T_PIDS="$T_PIDS $(cat "$RUN/ibping-host4.pid")"
pong() {
	on host1 "$IBPING" -c 1 -t 500 "$1" | grep -q "Pong from .*Lid $1"
}
check "stock ibping from host1: ibping -S on host4 answers" wait_for "host4's pong" 10 pong "$L4"
check "... and atsd on host2 answers too" pong "$L2"
check_rc "a second server on host2 (atsd holds the class) fails at registration" 255 \
	"" on host2 timeout 10 "$IBPING" -S
stop_pid "$(cat "$RUN/ibping-host4.pid")"

# The node's sysfs and verbs events follow the port.
SMLID=$(port_lid smhost)
sm_lid_is() {
	[ "$(($(on host1 cat "$SYSPORT/sm_lid")))" -eq "$SMLID" ]
}
state_is() {
	on host1 cat "$SYSPORT/state" | grep -q "$1"
}
port_events() {
	grep -c "port event" "$RUN/atsd-host1.log"
}
check "host1's sysfs sm_lid is the SM's LID ($SMLID)" sm_lid_is
check_out "ibstat on host1: the port is Active" "State: Active" on host1 "$IBSTAT" ibsim0 1
agent_start host1 "address 10.0.0.1 primary"
E=$(port_events)
sim 'Unlink "host1"'
check "host1 unlinked: sysfs says DOWN" wait_for "DOWN" 10 state_is "1: DOWN"
check_out "... and so does ibstat" "State: Down" on host1 "$IBSTAT" ibsim0 1
sim 'ReLink "host1"'
check "host1 relinked: ACTIVE again" wait_for "ACTIVE" 20 state_is "4: ACTIVE"
check_out "... ibstat says Active" "State: Active" on host1 "$IBSTAT" ibsim0 1
more_events() {
	[ "$(port_events)" -gt "$1" ]
}
check "... and atsd on host1 logged a port event" wait_for "a port event" 10 more_events "$E"

# An admin's ClientReregister (the SM's bit): atsd re-checks its records.
syncs() {
	agent host2 stats | awk '$1 == "syncs" {print $2}'
}
more_syncs() {
	[ "$(syncs)" -gt "$1" ]
}
S=$(syncs)
check_out "simhost host2 rereg" "^ok$" simhost host2 rereg
check "... atsd on host2 logs the port event" wait_for "client reregistration" 10 \
	grep -q "port event client reregistration" "$RUN/atsd-host2.log"
check "... and syncs its records again" wait_for "a sync" 10 more_syncs "$S"

# ib_ipoib at run time: the interface appears and the kernel joins.
G3=$(port_gid host3)
member3() {
	bcast_member host3 "$G3"
}
not_member3() {
	! member3
}
leaves3() {
	simhost host3 status | sed -n 's/.* leaves=\([0-9]*\).*/\1/p'
}
check "host3 is not in the broadcast group before" not_member3
check_out "simhost host3 ipoib add ib0" "^ok$" simhost host3 ipoib add ib0
check_out "... ib0 is in host3's sysfs, an IPoIB interface of P_Key 0xffff" "^32 0xffff$" \
	on host3 sh -c 'echo $(cat /sys/class/net/ib0/type /sys/class/net/ib0/pkey)'
check "... and host3's kernel joined the broadcast group (stock saquery)" \
	wait_for "host3's join" 10 member3
check_rc "a second ib0 is refused" 1 "^error: File exists" simhost host3 ipoib add ib0
agent_start host3 "interface v0 netns $N3" "verify_interval 1"
check "atsd on host3 (ipoib_membership auto) leaves the group to the kernel" \
	wait_for "member" 10 ipoib_says host3 "^0xffff $MGID member "
kill "$(agent_pid host3)"
wait "$(agent_pid host3)" 2>/dev/null
check "atsd on host3 stopped: the port is still a member" member3
check_absent "... atsd neither joined nor left" "joined IPoIB|left IPoIB" cat "$RUN/atsd-host3.log"
check_out "a second interface of P_Key 0xffff: simhost host3 ipoib add ib1" "^ok$" \
	simhost host3 ipoib add ib1
check_out "simhost host3 ipoib del ib1" "^ok$" simhost host3 ipoib del ib1
check "... ib1 is gone from sysfs" absent host3 /sys/class/net/ib1
check_out "... no leave: ib0 still uses the P_Key" "^0$" leaves3
check "... host3 is still a member" member3
check "... ib0 is still there" exists host3 /sys/class/net/ib0
check_out "simhost host3 ipoib del ib0: the last of the P_Key" "^ok$" simhost host3 ipoib del ib0
check "... ib0 is gone from sysfs" absent host3 /sys/class/net/ib0
check_out "... the kernel left the group" "^1$" leaves3
check "... host3 is no longer a member" wait_for "the leave" 10 not_member3
check_rc "deleting it again fails" 1 "^error: No such device" simhost host3 ipoib del ib0

# ib_cm at run time: class 0x07 held, /sys/module/ib_cm there.
check "host4 has no ib_cm" absent host4 /sys/module/ib_cm
check "... nor rdma_ucm's class/misc/rdma_cm" absent host4 /sys/class/misc/rdma_cm
check "... nor /dev/infiniband/rdma_cm" absent host4 /dev/infiniband/rdma_cm
check_out "simhost host4 modprobe ib_cm" "^ok$" simhost host4 modprobe ib_cm
check "... /sys/module/ib_cm appears" exists host4 /sys/module/ib_cm
check_out "... and rdma_ucm's ABI version, as librdmacm reads it" "^4$" \
	on host4 cat /sys/class/misc/rdma_cm/abi_version
check_out "... and its misc device number" "^10:58$" on host4 cat /sys/class/misc/rdma_cm/dev
check_out "... /dev/infiniband/rdma_cm is a character device 10:58 (librdmacm's open_cdev checks)" \
	"^character special file 10:58$" on host4 stat -c '%F %Hr:%Lr' /dev/infiniband/rdma_cm
# The stock librdmacm on it (tests/tools/ucmabind): its AF_IB probe, an id
# bound to the port's GID, QUERY, a taken service ID, an empty channel.
UCMABIND="$top_builddir/tests/tools/ucmabind"
check_out "... the stock librdmacm binds an AF_IB id to host4's GID (ucmabind)" \
	"^bound 0x0000000001061d2f$" on host4 "$UCMABIND" "$(port_gid host4)"
# rdma_resolve_addr to host2's GID: ADDR_RESOLVED at once (no ARP on IB),
# the channel's fd readable through epoll, the event through a blocking
# rdma_get_cm_event; then rdma_resolve_route (the kernel's PathRecord Get
# to the SA) with a blocking get called before the answer: ROUTE_RESOLVED,
# and the path leads to host2's LID.
check_out "... and resolves host2's GID and a route to its LID (ADDR_RESOLVED, ROUTE_RESOLVED)" \
	"^resolved dlid $L2$" on host4 timeout 10 "$UCMABIND" "$(port_gid host4)" 7471 "$(port_gid host2)"
# With the SA class dropped on host4 the PathRecord Get times out:
# ROUTE_ERROR, status -ETIMEDOUT (cma.c cma_query_handler); with the drop
# lifted a retry on the same id resolves (ucmabind -e waits for a line).
check_out "simhost host4 drop 3 on" "^ok$" simhost host4 drop 3 on
mkfifo "$RUN/ucmabind.in"
on host4 timeout 10 "$UCMABIND" -e "$(port_gid host4)" 7471 "$(port_gid host2)" \
	<"$RUN/ucmabind.in" >"$RUN/ucmabind.out" 2>&1 &
UCMA_PID=$!
exec 9>"$RUN/ucmabind.in"
check "... a short rdma_resolve_route gives ROUTE_ERROR -ETIMEDOUT (ucmabind -e)" \
	wait_for "ROUTE_ERROR" 5 grep -q "^route error -110$" "$RUN/ucmabind.out"
check_out "simhost host4 drop 3 off" "^ok$" simhost host4 drop 3 off
echo go >&9
exec 9>&-
wait "$UCMA_PID"
UCMA_RC=$?
check_rc "... and the retry on the same id resolves host2's route" 0 \
	"^resolved dlid $L2$" sh -c 'cat "$1"; exit "$2"' - "$RUN/ucmabind.out" "$UCMA_RC"
# Interop: the stock librdmacm's ucmatose (rdmacm-utils) connects across
# the simulated fabric through both nodes' simulated rdma_ucm and ib_cm
# (simhost/RDMACM.md 8), no data (-C 0). The server is polled by
# its node's ib_cm listens (simhost status), not waited for blindly.
G2=$(port_gid host2)
cm_listens() {
	simhost "$1" status | sed -n 's/.* cm_listens=\([0-9]*\).*/\1/p'
}
listening() {
	[ "$(cm_listens "$1")" -gt 0 ]
}
# ucma_pair NAME "SERVER OPTS" "CLIENT OPTS": a server on host2 bound to
# its GID, a client on host4; each one's exit status in $RUN/ucmatose-NAME-*.rc.
# shellcheck disable=SC2086 # the OPTS strings split into words
ucma_pair() {
	local srv
	on host2 timeout 20 "$UCMATOSE" -f gid -b "$G2" -C 0 $2 >"$RUN/ucmatose-$1-server.log" 2>&1 &
	srv=$!
	T_PIDS="$T_PIDS $srv"
	if wait_for "ucmatose $1 listening on host2" 10 listening host2 >"$RUN/ucmatose-$1-client.log"; then
		on host4 timeout 20 "$UCMATOSE" -f gid -s "$G2" -C 0 $3 >"$RUN/ucmatose-$1-client.log" 2>&1
		echo $? >"$RUN/ucmatose-$1-client.rc"
	else
		echo "not started: the server never listened" >"$RUN/ucmatose-$1-client.rc"
	fi
	wait "$srv"
	echo $? >"$RUN/ucmatose-$1-server.rc"
}
# ucma_ok NAME SIDE: that side exited 0 and printed "test complete".
ucma_ok() {
	cat "$RUN/ucmatose-$1-$2.log"
	[ "$(cat "$RUN/ucmatose-$1-$2.rc")" = 0 ] && grep -q "^test complete$" "$RUN/ucmatose-$1-$2.log"
}
UCMATOSE=$(command -v ucmatose)
if [ -z "$UCMATOSE" ]; then
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP ucmatose not installed (rdmacm-utils)"
else
	check "host2 has no ib_cm listen before" test "$(cm_listens host2)" = 0
	check_out "simhost host2 modprobe ib_cm" "^ok$" simhost host2 modprobe ib_cm
	ucma_pair tcp "-c 4 -m" "-c 4 -a 14"
	check "stock ucmatose: the server on host2 (-c 4 -m: MIGRATE_ID) completes" ucma_ok tcp server
	check "... and the client on host4 (-c 4 -a 14: SET_OPTION) too" ucma_ok tcp client
	ucma_pair ib "-P ib" "-P ib"
	check "ucmatose -P ib (RDMA_PS_IB): the server completes" ucma_ok ib server
	check "... and the client too" ucma_ok ib client
	check_out "... host2's ib_cm listens on nothing once the server is gone" "^0$" cm_listens host2
	# Nobody listens: host2's ib_cm answers the REQ with REJ invalid
	# service ID (8) at once, not after the REQ's retries (ucmatose exits
	# with the status: 8).
	check_rc "a client to host2's GID with no server is REJECTED (reason 8) at once" 8 \
		"event: RDMA_CM_EVENT_REJECTED, error: 8" \
		on host4 timeout 5 "$UCMATOSE" -f gid -s "$G2" -C 0
fi
agent_start host4 "address 10.0.0.4 primary" "cm yes"
host4_registered() {
	agent host4 status | grep -Eq '10\.0\.0\.4 +registered'
}
wait_for "host4's record" 10 host4_registered
rdma_cm_found() {
	! grep -q "needs the kernel's rdma_cm" "$RUN/atsd-host4.log"
}
check "... atsd with cm yes on host4 opens the kernel's rdma_cm (librdmacm)" rdma_cm_found
kill "$(agent_pid host4)"
wait "$(agent_pid host4)" 2>/dev/null
check_out "simhost host4 rmmod ib_cm" "^ok$" simhost host4 rmmod ib_cm
check "... /sys/module/ib_cm is gone" absent host4 /sys/module/ib_cm
check "... and class/misc/rdma_cm with it" absent host4 /sys/class/misc/rdma_cm
check "... and /dev/infiniband/rdma_cm" absent host4 /dev/infiniband/rdma_cm
check_rc "... librdmacm finds no device (ucmabind)" 1 "rdma_create_event_channel" \
	on host4 "$UCMABIND" "$(port_gid host4)"
check_rc "... rmmod again: not loaded" 1 "^error: " simhost host4 rmmod ib_cm
AGENT_NO_KERNEL_CM=1 agent_start host4 "address 10.0.0.4 primary" "cm yes"
wait_for "host4's record" 10 host4_registered
check_rc "... without it atsd on host4 answers a connect with what is missing" 3 \
	"/dev/infiniband/rdma_cm is missing \(modprobe rdma_ucm\)" agent host4 connect 10.0.0.2 5001

# The SM node's SA counters (storm.sh's backlog): a GetTable from host1
# is one request in and one answer out, its RMPP ACKs no request.
sa_counts() {
	simhost smhost status | sed -n 's/.* sa_requests_in=\([0-9]*\) sa_answers_out=\([0-9]*\).*/\1 \2/p'
}
sa_one_more() { # sa_one_more "IN OUT" "IN OUT"
	set -- $1 $2
	[ -n "${4:-}" ] && [ "$3" -eq $(($1 + 1)) ] && [ "$4" -eq $(($2 + 1)) ]
}
c0=$(sa_counts)
atsctl host1 -n dump >/dev/null 2>&1
check "simhost smhost status: a GetTable is one SA request in, one answer out" \
	sa_one_more "$c0" "$(sa_counts)"
for n in smhost host1 host2 host3 host4; do
	check_out "simhost $n status: no queue drops" "queue_drops=0 " simhost "$n" status
done
finish
