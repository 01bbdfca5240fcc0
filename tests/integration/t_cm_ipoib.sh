# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Connecting by IP against a kernel that checks IP requests against
# IPoIB (cma.c cma_ib_id_from_event): an address on the peer's
# (simulated) IPoIB interface, which atsd learns by rtnetlink and
# registers, is reached with the Annex A11 header as sent; a static one,
# which the peer's kernel refuses in that form (REJ 28, no private data),
# is reached with the same identity in the AF_IB form; a downed
# interface's address is withdrawn by atsd.
. "$top_srcdir/tests/integration/harness.sh"

host_ns host2
N2=$(ns host2)
echo 'Default=0x7fff, ipoib : ALL=full ;' >"$RUN/partitions.conf"
fabric_up fabric4.net host1 host2
# Partition 0x8001 for host1 and host2, read at a sweep.
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x8001, ipoib : %s=full, %s=full ;\n' \
	"$(port_guid host1)" "$(port_guid host2)" >"$RUN/partitions.conf"
check "OpenSM reads partition 0x8001" sm_sweep
agent_start host1 "address 10.0.0.1 primary" "cm yes"
agent_start host2 "address 10.0.0.2 primary" "interface ib0 netns $N2" \
	"interface ib1 netns $N2 pkey 0x8001" "cm_listen 5001" "cm_policy agree"
for g in "$G1" "$G2"; do
	check "the agent of $g registered its primary" wait_for "record of $g" 10 has_primary host1 "$g"
done
refused() {
	simhost host2 status | sed -n 's/.* cma_ip_refused=\([0-9]*\).*/\1/p'
}

# The admin's command alone: the simulated kernel holds the address, and
# the node's namespace (host_ns host2) shows it on ib0 as rtnetlink does.
ib0_addr() {
	simhost host2 ipoib addr ib0 192.168.5.22/24 >/dev/null 2>&1 ||
		{ simhost host2 ipoib add ib0 >/dev/null && simhost host2 ipoib addr ib0 192.168.5.22/24; }
}
check "host2's admin: simhost host2 ipoib addr ib0 192.168.5.22/24" ib0_addr
resolves() {
	agent host1 resolve "$@" | grep -q "$G2"
}
check "atsd on host2 follows it: 192.168.5.22 registered" \
	wait_for "192.168.5.22's record" 10 resolves 192.168.5.22
check_out "host1 connects to 192.168.5.22 (on host2's IPoIB) at the record's P_Key" \
	" active established .*ip=10\.0\.0\.1:[0-9]+->192\.168\.5\.22 pkey=0xffff$" \
	agent host1 connect 192.168.5.22 5001
check_absent "... with the Annex A11 header: host2's kernel took it" \
	"192\.168\.5\.22 is not on the peer's IPoIB" cat "$RUN/atsd-host1.log"
check_out "... host2's kernel refused nothing" "^0$" refused
check_out "... and host2's atsd judged it (A11 form)" \
	"REQ from $G1 for service 0x0000000001061389: accepted, connection 0x[0-9a-f]{8}$" \
	cat "$RUN/atsd-host2.log"

check_out "host1 connects to 10.0.0.2 (static, on no IPoIB interface of host2)" \
	" active established .*ip=10\.0\.0\.1:[0-9]+->10\.0\.0\.2 pkey=0xffff$" \
	agent host1 connect 10.0.0.2 5001
check_out "... after host2's kernel refused the A11 request" \
	"CM: 10\.0\.0\.2 is not on the peer's IPoIB interface at P_Key 0xffff \(its kernel refused the Annex A11 request\): asking again in the AF_IB form" \
	cat "$RUN/atsd-host1.log"
check_out "... (REJ 28 before any listener: host2's kernel counts one)" "^1$" refused
check_out "... host2's atsd judged the AF_IB form" "accepted, connection 0x[0-9a-f]{8} \(AF_IB form\)$" \
	cat "$RUN/atsd-host2.log"

# A P_Key child interface: its address is registered at its P_Key, and
# the connection goes there (resolve, PathRecord, REQ at 0x8001), where
# host2's kernel finds ib1 holding it: Annex A11 as sent.
check "host2's admin: ib1 at P_Key 0x8001 holding 10.1.0.2/16" \
	sh -c "'$SIMHOSTD' -n host2 -d '$SIMHOST_DIR' -C 'ipoib add ib1:0x8001' >/dev/null"
check "... (the kernel's and rtnetlink's view)" ipoib_addr host2 ib1 10.1.0.2/16 "$N2"
check "atsd on host2 registers 10.1.0.2 in partition 0x8001" \
	wait_for "10.1.0.2's record" 10 resolves 10.1.0.2 --pkey 0x8001
# host1 holds no primary in 0x8001: host2's listener, reached there (its
# kernel took the A11 request at that P_Key), refuses with the reason.
check_rc "host1 connects to 10.1.0.2 (--pkey 0x8001): host2's listener judges it there" 3 \
	"connect 10\.1\.0\.2 5001 pkey=0x8001: rejected \(reason 28\): ibats: the requester's GID has no ATS primary IP" \
	agent host1 connect 10.1.0.2 5001 --pkey 0x8001
check_absent "... the Annex A11 header: host2's kernel took it at that P_Key" \
	"10\.1\.0\.2 is not on the peer's IPoIB" cat "$RUN/atsd-host1.log"
check_out "... (host2's kernel refused no more)" "^1$" refused

# ib0 down: the kernel no longer takes IP requests for it, and atsd
# withdraws what it registered from it.
check "host2's admin downs ib0" simhost host2 ipoib link ib0 down
ip -n "$N2" link set ib0 down
gone() {
	! atsctl host1 -n resolve 192.168.5.22 >/dev/null 2>&1
}
check "atsd on host2 withdraws 192.168.5.22" wait_for "192.168.5.22's record to go" 10 gone
check_rc "... a connect to it fails locally (ATS 2.2)" 3 "192\.168\.5\.22 has no ATS record" \
	agent host1 connect 192.168.5.22 5001
finish
