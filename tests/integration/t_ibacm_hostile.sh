# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Red team of the ats provider for ibacm (acmprov/): a broken or hostile
# atsd (tests/integration/fake_atsd.py on host1's ats_socket) never keeps
# a librdmacm caller waiting for ever, and a working atsd that closed an
# idle connection is asked again, not bypassed.
. "$top_srcdir/tests/integration/harness.sh"

cat >"$RUN/partitions.conf" <<'PART'
Default=0x7fff, ipoib : ALL=full ;
PART
fabric_up fabric4.net host1 host2 host3
agent_start host2 "address 10.0.0.2 primary"
agent_start host3 "address 10.0.0.3 primary"
G3=$(port_gid host3)
for g in "$G2" "$G3"; do
	check "the agent of $g registered its primary" wait_for "record of $g" 10 has_primary host1 "$g"
done

FAKE_PID=
fake_start() {
	[ -n "$FAKE_PID" ] && { kill "$FAKE_PID"; wait "$FAKE_PID" 2>/dev/null; }
	rm -f "$RUN/atsd-host1.sock"
	python3 "$top_srcdir/tests/integration/fake_atsd.py" "$RUN/atsd-host1.sock" "$1" "$G2" \
		"$RUN/fake-$1.log" &
	FAKE_PID=$!
	T_PIDS="$T_PIDS $FAKE_PID"
	wait_for "the fake atsd" 10 test -S "$RUN/atsd-host1.sock"
}
# acme IP: ib_acme from host1 to IP, killed after 12 s (rc 124: no answer).
acme() {
	on host1 timeout 12 "$IB_ACME" -f i -s 10.0.0.1 -d "$1"
}
# answered_within MS IP: an answer (any) in less than MS.
answered_within() {
	local t0 t1 rc=0
	t0=$(date +%s%N)
	acme "$2" || rc=$?
	t1=$(date +%s%N)
	echo "# rc $rc in $(((t1 - t0) / 1000000)) ms"
	[ "$rc" -ne 124 ] && [ $(((t1 - t0) / 1000000)) -lt "$1" ]
}

fake_start idle
IBACM_OPTS="ats_timeout 1000" ibacm_start host1 10.0.0.1

# 1. atsd closes a connection idle for client_idle_timeout (60 s; the
# fake: 1 s). The next lookup is atsd's again (10.0.0.51 has no record in
# the SA: asked there, it would be ENODATA).
check_out "the fake atsd answers 10.0.0.50 with host2's GID" "dgid: $G2" acme 10.0.0.50
sleep 2
check_out "after atsd closed the idle connection, 10.0.0.51 is still atsd's answer" \
	"dgid: $G2" acme 10.0.0.51
check "... the fake atsd was asked both" grep -c "resolve 10.0.0.51" "$RUN/fake-idle.log"

# 2. Answers that are no record, a line longer than atsd's, GID ::.
fake_start garbage
check_rc "a record line that is no record: ENODATA" 255 "No data available" acme 10.0.0.52
check "... atsd's answer" grep -q "resolve 10.0.0.52" "$RUN/fake-garbage.log"
fake_start huge
check "a line longer than ATSD_PROTO_LINE_MAX: answered" answered_within 5000 10.0.0.53
fake_start zerogid
check "a record on GID ::: answered" answered_within 5000 10.0.0.54
check_rc "... and not as a path" 255 "." acme 10.0.0.54

# 3. An atsd that accepts no connection (stopped, or wedged, its listen
# backlog full): connect(2) on a Unix socket waits for room in the
# backlog, without a timeout. Every lookup is still answered (the SA's).
fake_start noaccept
for ip in 10.0.0.60 10.0.0.61 10.0.0.62; do
	check "atsd accepts nothing: $ip answered within 5 s" answered_within 5000 $ip
done
check_out "... 10.0.0.3 by the SA's record" "dgid: $G3" acme 10.0.0.3
check "ibacm still answers" answered_within 5000 10.0.0.63

# 4. An atsd that never answers, 4 callers at once: each is answered
# within a bound (not N x ats_timeout).
fake_start silent
acme 10.0.0.2 >/dev/null 2>&1 # drops the connection the last fake left
t0=$(date +%s%N)
HOL=
for ip in 10.0.0.70 10.0.0.71 10.0.0.72 10.0.0.73; do
	acme $ip >"$RUN/hol-$ip.out" 2>&1 &
	HOL="$HOL $!"
done
wait_all_acme() {
	local ip
	for ip in 10.0.0.70 10.0.0.71 10.0.0.72 10.0.0.73; do
		wait_for "ib_acme $ip" 15 grep -q "timed out\|dgid\|No data" "$RUN/hol-$ip.out" || return 1
	done
}
wait_all_acme
t1=$(date +%s%N)
echo "# 4 concurrent callers, atsd silent: all answered after $(((t1 - t0) / 1000000)) ms"
check "4 callers and a silent atsd: all answered within 2.5 s (ats_timeout 1 s)" \
	test $(((t1 - t0) / 1000000)) -lt 2500
wait $HOL

# 5. No atsd: the SA's primary record of an IP in another partition is
# not the answer for host1's endpoint in the default one (ATS records are
# per partition: the same IP may be another host's there).
kill "$FAKE_PID"
wait "$FAKE_PID" 2>/dev/null
rm -f "$RUN/atsd-host1.sock"
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x8001 : %s=full, %s=full ;\n' \
	"$(port_guid host1)" "$(port_guid host2)" >"$RUN/partitions.conf"
check "OpenSM reads partition 0x8001 (host1, host2)" sm_sweep
check "host2 registers 10.8.0.2 in partition 0x8001 alone" \
	srtool host2 --pkey 0x8001 --ip 10.8.0.2 set
check_rc "no atsd: 10.8.0.2 from host1's endpoint in 0xffff is ENODATA, not 0x8001's record" \
	255 "No data available" acme 10.8.0.2
finish
