# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Connections by IP between two agents through librdmacm over AF_IB: the
# Annex A11 private data, the listener checks the requester by ATS and
# rejects with the reason; disconnect; without the kernel's rdma_cm, a
# clear error. agent_start loads each CM node's ib_cm, as on a host.
. "$top_srcdir/tests/integration/harness.sh"

# A non-default SA key: OpenSM's default (0x1) earns no trust.
echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
fabric_up fabric4.net host1 host2
agent_start host1 "address 10.0.0.1 primary" "cm yes"
agent_start host2 "address 10.0.0.2 primary" "cm_listen 5001" "cm_policy agree"
# host3 gets no resync: its ATS primary is changed behind its back below.
agent_start host3 "address 10.0.0.3 primary" "cm yes" "verify_interval 3600"
# host4 closes a passive connection 8 s after it is established.
agent_start host4 "address 10.0.0.4 primary" "cm_listen 5002" \
	"cm_policy list" "cm_accept 10.0.0.1" "cm_idle_timeout 8"
for g in "$G1" "$G2" "$(port_gid host3)" "$(port_gid host4)"; do
	check "the agent of $g registered its primary" wait_for "record of $g" 10 has_primary host4 "$g"
done
listens() {
	! grep -q "CM: cannot listen" "$RUN/atsd-$1.log"
}
check "host2 listens on 5001 (rdma_listen on the port's GID)" listens host2

check_out "host1 connects to 10.0.0.2 port 5001" \
	"^0x[0-9a-f]{8} active established sid=0x0000000001061389 local=$G1/lid=[0-9]+/qpn=0x[0-9a-f]{6} remote=$G2/lid=[0-9]+/qpn=0x[0-9a-f]{6} ip=10\.0\.0\.1:[0-9]+->10\.0\.0\.2 pkey=0xffff$" \
	agent host1 connect 10.0.0.2 5001
check_out "host1 lists it (JSON)" '"role": "active", "state": "established"' \
	agent host1 --json connections
passive_established() {
	agent host2 connections | grep -Eq "^0x[0-9a-f]{8} passive established sid=0x0000000001061389 local=$G2.* remote=$G1"
}
check "host2 lists the passive side, established by the RTU" \
	wait_for "host2's ESTABLISHED" 5 passive_established
check_rc "an IP without an ATS record fails locally (ATS 2.2)" 3 \
	"10\.0\.0\.99 has no ATS record: the connection fails locally" \
	agent host1 connect 10.0.0.99 5001
check_rc "a port nobody listens on: the kernel's REJ, invalid service ID" 3 \
	"rejected \(reason 8\)" \
	agent host1 connect 10.0.0.2 5002

check_out "cm_policy list: a listed source is accepted" " active established " \
	agent host1 connect 10.0.0.4 5002
check_rc "cm_policy list: an unlisted source is refused" 3 \
	"rejected \(reason 28\): ibats: source IP 10\.0\.0\.3 is not on the accept list" \
	agent host3 connect 10.0.0.4 5002
ID4=$(agent host1 connections | awk '/10\.0\.0\.4/ {print $1}')
check "host1 closes that connection" agent host1 disconnect "$ID4"

# A peer's flood of requests without the Annex A11 header (stock
# ucmatose, 24 connections to host4's 5002): the REJ has the reason;
# host4's log has at most 10 refusal lines in 10 s (the 11th and on are
# counted, not logged), its lookups go on. ucmatose stops at the first
# REJECTED, so how many REQs one run sends depends on timing: runs until
# 10 lines are logged, then one more whose refusals are not.
if command -v ucmatose >/dev/null; then
	refusal_lines() {
		grep -c "REQ from .* rejected: " "$RUN/atsd-host4.log"
	}
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		on host3 timeout 20 ucmatose -f gid -s "$(port_gid host4)" -p 5002 -c 24 -C 0 \
			>>"$RUN/flood.out" 2>&1
		[ "$(refusal_lines)" -ge 10 ] && break
	done
	on host3 timeout 20 ucmatose -f gid -s "$(port_gid host4)" -p 5002 -c 24 -C 0 \
		>>"$RUN/flood.out" 2>&1
	check_out "a flood of requests without A11 data: REJ, consumer reason" \
		"RDMA_CM_EVENT_REJECTED, error: 28" cat "$RUN/flood.out"
	check_out "... host4 logs 10 refusal lines in 10 s, no more" "^10$" refusal_lines
	check_out "... and still answers lookups" "10\.0\.0\.2" agent host4 resolve 10.0.0.2
else
	for _ in 1 2 3; do
		T_N=$((T_N + 1))
		echo "ok $T_N # SKIP ucmatose not installed (rdmacm-utils)"
	done
fi

# host3's ATS primary becomes 10.0.0.33; its A11 header still says 10.0.0.3.
check "host3's primary is changed behind its agent" \
	atsctl host4 -k 0x5a5a register 10.0.0.33 --primary --gid "$(port_gid host3)"
check_rc "a request whose source IP is not the requester's ATS primary is rejected" 3 \
	"rejected \(reason 28\): ibats: spoofed source: IP 10\.0\.0\.3 is not the requester's ATS primary 10\.0\.0\.33" \
	agent host3 connect 10.0.0.2 5001
check_out "... and host2 logs why" "REQ from .* rejected: ibats: spoofed source" \
	cat "$RUN/atsd-host2.log"
check_count "host2 holds only host1's connection" 1 agent host2 connections

# examples/rdma_ats, the same connect/listen through librdmacm in a
# program of its own (ATS from the SA: no atsd socket at its default
# path), its server on host2 polled by host2's ib_cm listens.
RDMA_ATS="$top_builddir/examples/rdma_ats"
[ -x "$top_builddir/examples/.libs/rdma_ats" ] && RDMA_ATS="$top_builddir/examples/.libs/rdma_ats"
cm_listens() {
	simhost "$1" status | sed -n 's/.* cm_listens=\([0-9]*\).*/\1/p'
}
more_listens() {
	[ "$(cm_listens "$1")" -gt "$2" ]
}
L=$(cm_listens host2)
on host2 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/rdma_ats.pid" "$RDMA_ATS" server -P 6001 \
	>"$RUN/rdma_ats-server.log" 2>&1 &
T_PIDS="$T_PIDS $!"
check "rdma_ats server -P 6001 on host2 listens (one more ib_cm listen)" \
	wait_for "rdma_ats's listen" 10 more_listens host2 "$L"
T_PIDS="$T_PIDS $(cat "$RUN/rdma_ats.pid")"
# rdma_ats sends Annex A11 only: host2's rdma_cm refuses it before the
# server sees it while 10.0.0.2 is on no IPoIB interface of host2 (cma.c
# cma_ib_id_from_event: REJ 28, no private data), as a host does.
check_rc "rdma_ats client to 10.0.0.2, on no IPoIB interface of host2: its kernel's REJ 28, no reason" 3 \
	"rejected \(reason 28\)" on host1 timeout 10 "$RDMA_ATS" client -P 6001 10.0.0.1 10.0.0.2
check "... host2's admin puts 10.0.0.2 on its IPoIB interface ib0" ipoib_addr host2 ib0 10.0.0.2/24
check_out "rdma_ats client on host1 connects to 10.0.0.2 by IP" "^connected to 10\.0\.0\.2$" \
	on host1 timeout 10 "$RDMA_ATS" client -P 6001 10.0.0.1 10.0.0.2
check_rc "... a client on host3 claiming 10.0.0.3 (its primary is 10.0.0.33) is refused with the reason" 3 \
	"rejected \(reason 28\): ibats: A11 source 10\.0\.0\.3 is not the requester's ATS primary 10\.0\.0\.33" \
	on host3 timeout 10 "$RDMA_ATS" client -P 6001 10.0.0.3 10.0.0.2
check_out "... the server printed the one it accepted" \
	"^accepted: A11 source 10\.0\.0\.1 is the requester's ATS primary$" cat "$RUN/rdma_ats-server.log"
check_out "... and the one it refused, with the reason" \
	"^rejected: ibats: A11 source 10\.0\.0\.3 is not the requester's ATS primary 10\.0\.0\.33$" cat "$RUN/rdma_ats-server.log"
stop_pid "$(cat "$RUN/rdma_ats.pid")"
check_out "... the server gone, host2's ib_cm holds atsd's listen only" "^$L$" cm_listens host2
check_rc "... and a client gets the kernel's REJ, invalid service ID, at once" 3 \
	"rejected \(reason 8\)" on host1 timeout 5 "$RDMA_ATS" client -P 6001 10.0.0.1 10.0.0.2

ID=$(agent host1 connections | awk '{print $1}')
check "host1 disconnects (DREQ/DREP)" agent host1 disconnect "$ID"
check_count "host1 has no connection left" 0 agent host1 connections
host2_none() {
	[ "$(agent host2 --json connections)" = "[]" ]
}
check "host2 has none either (an empty list is [] in JSON)" \
	wait_for "host2's DISCONNECTED" 5 host2_none
check_out "host2 saw the peer's DREQ" "connection 0x[0-9a-f]{8} closed by the peer" \
	cat "$RUN/atsd-host2.log"

# cm_listen is restart-only: a SIGHUP that changes it warns and keeps 5001.
sed -i 's/^cm_listen 5001$/cm_listen 5003/' "$RUN/atsd-host2.conf"
kill -HUP "$(agent_pid host2)"
check "a SIGHUP changing cm_listen warns" wait_for "the cm_listen warning" 10 \
	grep -q "'cm_listen' changes only when atsd restarts" "$RUN/atsd-host2.log"
check_out "... and host2 still listens on 5001" " active established " \
	agent host1 connect 10.0.0.2 5001

# Without the kernel's rdma_cm (ib_cm, rdma_ucm not loaded) atsd says
# what is missing once and runs everything else.
kill "$(agent_pid host3)"
wait "$(agent_pid host3)" 2>/dev/null
check "host3's admin unloads ib_cm" simhost host3 rmmod ib_cm
AGENT_NO_KERNEL_CM=1 agent_start host3 "address 10.0.0.3 primary" "cm_listen 5004"
check_out "atsd starts and names what is missing" \
	"connecting by IP needs the kernel's rdma_cm: /dev/infiniband/rdma_cm is missing \(modprobe rdma_ucm\)" \
	cat "$RUN/atsd-host3.log"
host3_registered() {
	agent host3 status | grep -Eq '10\.0\.0\.3 +registered'
}
check "... and registers its address all the same" wait_for "host3's record" 10 host3_registered
check_rc "... a connect is refused with the reason" 3 \
	"/dev/infiniband/rdma_cm is missing \(modprobe rdma_ucm\)" \
	agent host3 connect 10.0.0.2 5001
check_rc "... and a disconnect too" 1 "disconnect 1: connecting by IP needs the kernel's rdma_cm" \
	agent host3 disconnect 1
check_out "... connections lists none" "^\\[\\]$" agent host3 --json connections

# A hostile requester on host3 (no ib_cm now: the CM class is free) sends
# 12 REQs to host4's 5002 claiming the listed 10.0.0.1, asks for the
# longest CM response timeout (the REP would stay outstanding for hours)
# and never sends the RTU. Half-open requests count against no port's
# share (only the RTU shows the REP reached the port the REQ named): at
# most 8 wait at once, the oldest making room (or, younger than 20 ms,
# the newcomer refused); the rest go after cm_timeout (1 s), the
# kernel's REJ telling the requester.
# hostile_req NAME ARG...: tests/tools/hostile req ARG... on host3 in
# the background, its output in $RUN/NAME.out, its pid in $RUN/NAME.pid.
hostile_req() {
	local name=$1
	shift
	on host3 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/$name.pid" \
		"$top_builddir/tests/tools/hostile" req "$@" >"$RUN/$name.out" 2>&1 &
	T_PIDS="$T_PIDS $!"
}
# answers_in FILE N: hostile printed N answers (REP or REJ) or more.
answers_in() {
	[ "$(grep -Ec "^RE[PJ] " "$1")" -ge "$2" ]
}
hostile_req halfopen "$(port_lid host4)" "$(port_gid host4)" 0x000000000106138a 12 10.0.0.1
check "a requester that never sends the RTU: each of its 12 REQs answered" \
	wait_for "the answers to the REQs" 5 answers_in "$RUN/halfopen.out" 12
T_PIDS="$T_PIDS $(cat "$RUN/halfopen.pid")"
half_open4() {
	agent host4 connections | grep -c " passive rep-sent "
}
check_out "... at most 8 wait at once, the oldest dropped for newer ones" "^[0-8]$" half_open4
host4_none() {
	[ "$(agent host4 --json connections)" = "[]" ]
}
check "... and the rest dropped after cm_timeout without the RTU" \
	wait_for "host4's half-open connections to go" 5 host4_none
timeout_rej() {
	[ "$(grep -c "^REJ 0x[0-9a-f]* reason 28: " "$RUN/halfopen.out")" -ge 12 ]
}
check "... the requester gets a REJ for each (atsd's, or the kernel's when dropped)" \
	wait_for "the REJs of the dropped ones" 5 timeout_rej
stop_pid "$(cat "$RUN/halfopen.pid")"

# The same requester claims host1's GID (whose ATS primary 10.0.0.1 it
# names as the A11 source) with its own LID, where the REP comes back:
# host2 asks the SA whose port holds that LID and refuses the spoof
# before any ATS judgement.
LID3=$(printf "0x%04x" "$(port_lid host3)")
hostile_req spoof "$(port_lid host2)" "$G2" 0x0000000001061389 1 10.0.0.1 as "$G1"
check "a REQ naming host1's GID with host3's LID is answered" \
	wait_for "the answer to the spoofed REQ" 5 answers_in "$RUN/spoof.out" 1
T_PIDS="$T_PIDS $(cat "$RUN/spoof.pid")"
check_out "... by a REJ naming both ports, not a REP" \
	"^REJ 0x5eed0000 reason 28: ibats: spoofed requester: LID $LID3 is port 0x$(port_guid host3 | sed 's/^0x//'), not the claimed GID's 0x$(port_guid host1 | sed 's/^0x//')$" \
	cat "$RUN/spoof.out"
check_out "... and host2 logs it under the claimed GID" \
	"REQ from $G1 rejected: ibats: spoofed requester: LID $LID3" cat "$RUN/atsd-host2.log"
stop_pid "$(cat "$RUN/spoof.pid")"

# A requester that completes 12 connections with the RTU and leaves
# without a DREQ: 8 established, its port's share, the rest closed at
# their RTU; host1 still connects at once, and the 8 are closed after
# cm_idle_timeout (8 s) whatever the requester does.
hostile_req fill "$(port_lid host4)" "$(port_gid host4)" 0x000000000106138a 12 10.0.0.1 rtu
check "a requester that sends each RTU: its 12 REQs answered" \
	wait_for "the answers to the REQs" 5 answers_in "$RUN/fill.out" 12
T_PIDS="$T_PIDS $(cat "$RUN/fill.pid")"
eight_established() {
	[ "$(agent host4 connections | grep -c " passive established ")" -eq 8 ]
}
check "... 8 established on host4, its port's share" \
	wait_for "host4's 8 connections" 5 eight_established
# The 4 others: closed at their RTU (DREQ), or, when the machine is slow
# and REQs wait, refused at once (half-open pool full) or after their RTU
# was late (REJ).
fill_closed() {
	[ $(($(grep -c "^DREQ$" "$RUN/fill.out") + $(grep -c "^REJ " "$RUN/fill.out"))) -ge 4 ]
}
check "... the 4 others closed at their RTU (DREQ) or refused (REJ)" wait_for "the DREQs" 15 fill_closed
stop_pid "$(cat "$RUN/fill.pid")"
check_out "... host1 connects to host4 at once while they are held" " active established " \
	agent host1 connect 10.0.0.4 5002
check "... the requester's 8 are closed after cm_idle_timeout" \
	wait_for "host4's idle connections to close" 15 host4_none
check_out "... host4 says why" \
	"connection 0x[0-9a-f]{8} from $(port_gid host3) closed: established 8 s ago \(cm_idle_timeout\)" \
	cat "$RUN/atsd-host4.log"
host1_not_to_4() {
	! agent host1 connections | grep -q "10\.0\.0\.4"
}
check "... host1's connection too, host1 seeing host4's DREQ" \
	wait_for "host1's connection to close" 5 host1_not_to_4
# ib_cm loaded again (agent_start does), a restarted atsd listens.
kill "$(agent_pid host3)"
wait "$(agent_pid host3)" 2>/dev/null
agent_start host3 "address 10.0.0.3 primary" "cm_listen 5004"
check "... its record is back" wait_for "host3's record" 10 has_primary host1 "$(port_gid host3)" 10.0.0.3
check_out "... and atsd on host3 accepts connections again" " active established " \
	agent host1 connect 10.0.0.3 5004
finish
