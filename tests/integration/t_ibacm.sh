# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Unmodified programs resolve by ATS: stock ibacm on host1 with the ats
# provider (acmprov/) answers ib_acme and librdmacm's rdma_getaddrinfo()
# from ATS (atsd's socket, else the SA) and a PathRecord; stock ucmatose
# connects by IP to a server listening on the peer's GID; an unregistered
# IP is ENODATA at once, an atsd that does not answer ETIMEDOUT within
# ats_timeout.
. "$top_srcdir/tests/integration/harness.sh"

fabric_up fabric4.net host1 host2 host3
agent_start host1 "address 10.0.0.1 primary"
agent_start host2 "address 10.0.0.2 primary"
agent_start host3 "address 10.0.0.3 primary" "address 10.0.0.33"
for g in "$G2" "$(port_gid host3)"; do
	check "the agent of $g registered its primary" wait_for "record of $g" 10 has_primary host1 "$g"
done
# ibacm's own SA timeout and retries short: the test waits less.
IBACM_OPTS="ats_timeout 1000
timeout 500
retries 1" ibacm_start host1 10.0.0.1
check "ibacm on host1 listens in host1's /run (its socket and the librdmacm link)" \
	ibacm_socket host1
check_out "ibacm loaded the ats provider" "Provider ats \(.*libibacmats\.so\) loaded" \
	cat "$RUN/ibacm-host1/ibacm.log"

check_out "ib_acme -f i -s 10.0.0.1 -d 10.0.0.2: the path to host2's GID" "dgid: $G2" \
	on host1 "$IB_ACME" -f i -s 10.0.0.1 -d 10.0.0.2
check_out "... checked against the SA by ib_acme -v" "SA verification: success" \
	on host1 "$IB_ACME" -f i -s 10.0.0.1 -d 10.0.0.2 -v
# timed_acme IP OUT TEXT MS: host1's ib_acme for IP answers TEXT (into
# $RUN/OUT.out) within MS ms; the time as a TAP comment.
timed_acme() {
	local t0 t1
	t0=$(date +%s%N)
	on host1 "$IB_ACME" -f i -s 10.0.0.1 -d "$1" >"$RUN/$2.out" 2>&1
	grep -q "$3" "$RUN/$2.out" || return 1
	t1=$(date +%s%N)
	echo "# $3 in $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -lt "$4" ]
}
check "an IP without an ATS record: ENODATA, within 1 s" timed_acme 10.0.0.99 nodata "No data available" 1000
# Stock ucmatose by IP: librdmacm asks host1's ibacm (rdma_getaddrinfo,
# acm.c ucma_ib_resolve), gets the route, connects in the AF_IB form to
# a server on host2's GID. -C 0: no data (the simulated host has no
# data path).
simhost host1 modprobe ib_cm >/dev/null
simhost host2 modprobe ib_cm >/dev/null
# librdmacm puts AF_IB first only where the kernel's rdma_cm takes it
# (acm.c ucma_ib_resolve: af_ib_support, found at ucma_init).
check_out "a plain rdma_getaddrinfo(10.0.0.2) caller gets AF_IB first, with the route" \
	"^AF_IB dgid $G2 sid 0x0000000001061f40 pkey 0xffff route [1-9]" \
	on host1 "$top_builddir/tests/tools/gai" 10.0.0.1 10.0.0.2 8000
# NODELAY (RAI_NUMERICHOST): the cache's answer or none at once; a miss
# is looked up for the next asker, as ibacm's own provider does.
check_out "NODELAY, not cached: no path at once (librdmacm falls back to AF_INET)" \
	"^AF_INET$" on host1 "$top_builddir/tests/tools/gai" 10.0.0.1 10.0.0.33 8000 nodelay
nodelay_af_ib() {
	on host1 "$top_builddir/tests/tools/gai" 10.0.0.1 10.0.0.33 8000 nodelay |
		grep -q "^AF_IB dgid $(port_gid host3) "
}
check "... looked up meanwhile: the next NODELAY asker gets AF_IB" \
	wait_for "the read-ahead" 5 nodelay_af_ib

on host2 timeout 20 ucmatose -f gid -b "$G2" -c 1 -C 0 >"$RUN/ucmatose-server.log" 2>&1 &
SERVER=$!
T_PIDS="$T_PIDS $SERVER"
server_listens() {
	[ "$(simhost host2 status | sed -n 's/.* cm_listens=\([0-9]*\).*/\1/p')" -ge 1 ]
}
check "ucmatose listens on host2's GID" wait_for "ucmatose's listen" 10 server_listens
# The REQ carries the IP header (ucma_resolve_af_ib): host2's kernel
# checks it against its IPoIB interfaces (cma.c cma_ib_id_from_event)
# and refuses it, before the listener, while 10.0.0.2 is on none.
check_rc "stock ucmatose -s 10.0.0.2: host2's kernel refuses it while 10.0.0.2 is on no IPoIB interface (REJ 28)" \
	28 "RDMA_CM_EVENT_REJECTED, error: 28" \
	on host1 timeout 10 ucmatose -s 10.0.0.2 -b 10.0.0.1 -c 1 -C 0
check "host2's admin puts 10.0.0.2 on ib0" ipoib_addr host2 ib0 10.0.0.2/24
check_out "stock ucmatose -s 10.0.0.2 -b 10.0.0.1 on host1 connects by IP through ibacm" \
	"return status 0" on host1 timeout 10 ucmatose -s 10.0.0.2 -b 10.0.0.1 -c 1 -C 0
wait "$SERVER"
check_out "... the server saw it connect and disconnect" "disconnected" \
	cat "$RUN/ucmatose-server.log"

# Stock cmtime by IP (its client: connect and disconnect, no data)
# against a server on host2's GID. rdma_client/rdma_server and cmtime's
# server cannot run on the bench: their servers bind an IP (an AF_INET
# rdma_cm id, not modelled) and rdma_client moves data (no data path).
on host2 timeout 20 ucmatose -f gid -b "$G2" -p 7471 -c 1 -C 0 >"$RUN/ucmatose-cmtime.log" 2>&1 &
SERVER=$!
T_PIDS="$T_PIDS $SERVER"
L=1
more_listens() {
	[ "$(simhost host2 status | sed -n 's/.* cm_listens=\([0-9]*\).*/\1/p')" -ge "$L" ]
}
check "ucmatose listens on host2's GID, port 7471" wait_for "ucmatose's listen" 10 more_listens
check_out "stock cmtime -s 10.0.0.2 -b 10.0.0.1 on host1 connects by IP through ibacm" \
	"^connect +:" on host1 timeout 10 cmtime -s 10.0.0.2 -b 10.0.0.1 -c 1 -p 7471
wait "$SERVER"

# The SA reports host3's port out of service (trap 65, host3 unplugged):
# host1's atsd drops the answers holding host3's GID, and the provider
# sees that within a second (atsd's stats: invalidations) and forgets its
# own, though its ats_cache_ttl (30 s) has not run out.
check_out "ib_acme -d 10.0.0.3: host3's GID (now cached by the provider)" \
	"dgid: $(port_gid host3)" on host1 "$IB_ACME" -f i -s 10.0.0.1 -d 10.0.0.3
sim 'Unlink "host3"'
forgotten() {
	grep -q "atsd dropped answers .*: answers forgotten" "$RUN/ibacm-host1/ibacm.log"
}
check "host3 unplugged: the provider forgets its answers on the SA's report" \
	wait_for "the provider's flush" 10 forgotten

# atsd stopped (SIGSTOP): a lookup the provider has not cached (it
# forgot 10.0.0.2 above) times out within ats_timeout (1 s); atsd gone,
# the provider asks the SA itself.
kill -STOP "$(agent_pid host1)"
timedout() {
	local t0 t1
	t0=$(date +%s%N)
	on host1 "$IB_ACME" -f i -s 10.0.0.1 -d 10.0.0.2 2>&1 | grep -q "timed out" || return 1
	t1=$(date +%s%N)
	echo "# ETIMEDOUT in $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -lt 3000 ]
}
check "atsd does not answer: ETIMEDOUT within ats_timeout" timedout
kill -CONT "$(agent_pid host1)"
kill "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
check_out "atsd gone: the provider asks the SA (one-MAD Get of the primary record)" \
	"dgid: $G2" on host1 "$IB_ACME" -f i -s 10.0.0.1 -d 10.0.0.2
check_rc "... and an IP without a record is still ENODATA" 255 "No data available" \
	on host1 "$IB_ACME" -f i -s 10.0.0.1 -d 10.0.0.98
# The SA silent too (OpenSM stopped): ibacm's SA queue times out (timeout
# 500 ms, 1 retry), the answer is ETIMEDOUT.
kill -STOP "$SM_PID"
check "the SA does not answer: ETIMEDOUT within ibacm's SA timeout and retries" \
	timed_acme 10.0.0.97 satimeout "timed out" 5000
kill -CONT "$SM_PID"
finish
