# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# libibats from a program linked against the built shared library: the
# same answers through atsd and straight from the SA, threads sharing one
# handle, a handle shared across fork(), and atsd killed mid-run (no
# SIGPIPE; the SA answers instead).
. "$top_srcdir/tests/integration/harness.sh"

LOOKUP="$top_builddir/tests/tools/.libs/ibats_lookup"
[ -x "$LOOKUP" ] || LOOKUP="$top_builddir/tests/tools/ibats_lookup"
# lib NODE ARGS...: the program on NODE, talking to host1's agent socket.
lib() {
	local node=$1
	shift
	on "$node" env LD_LIBRARY_PATH="$top_builddir/lib/libibats/.libs" "$LOOKUP" \
		-S "$RUN/atsd-host1.sock" "$@"
}
# same DESC ARGS...: the agent-only and the SA-only answers are identical
# (output and exit status), and not empty.
same() {
	local desc=$1 ra rs
	shift
	check "$desc" _same "$@"
}
_same() {
	lib host1 -A "$@" >"$RUN/agent.out" 2>"$RUN/agent.err"
	ra=$?
	lib host1 -n "$@" >"$RUN/sa.out" 2>"$RUN/sa.err"
	rs=$?
	echo "atsd: exit $ra"
	cat "$RUN/agent.out" "$RUN/agent.err"
	echo "SA: exit $rs"
	cat "$RUN/sa.out" "$RUN/sa.err"
	[ "$ra" -eq "$rs" ] && cmp -s "$RUN/agent.out" "$RUN/sa.out" &&
		[ "$ra" -ne 0 -o -s "$RUN/agent.out" ]
}

# Two holders of 10.0.0.2 (a failover pair): host2 as its primary,
# host3 as a secondary.
echo "duplicate_address allow" >"$RUN/osmats.conf"
fabric_up fabric4.net host2 host3 host4
P=0x10000ce1004154
check "host2 registers 10.0.0.2 (primary)" atsctl host2 register 10.0.0.2 --primary
check "host2 registers fd00::2" atsctl host2 register fd00::2
check "host3 registers 10.0.0.3 (primary)" atsctl host3 register 10.0.0.3 --primary
check "host3 registers 10.0.0.2 too (secondary)" atsctl host3 register 10.0.0.2
agent_start host1 "address 10.0.0.1 primary"

check_out "resolve through atsd: host2, the primary holder, first" \
	"^${P}53 $G2 0xffff 4294967295 10\.0\.0\.2 \(primary\)" lib host1 -A resolve 10.0.0.2
check_count "... and host3 after it" 2 lib host1 -A resolve 10.0.0.2
check_out "... atsd answered (its counters moved)" "^sa_lookups [1-9]" agent host1 stats
same "resolve 10.0.0.2: atsd and SA agree" resolve 10.0.0.2
same "resolve ::ffff:10.0.0.2 (IPv4-mapped)" resolve ::ffff:10.0.0.2
same "resolve fd00::2" resolve fd00::2
same "reverse of host2" reverse "$G2"
same "primary of host2" primary "$G2"
same "resolve of an unknown address: exit 1 both ways" resolve 10.9.9.9
same "primary of a GID without records: exit 1 both ways" primary "$G4"
check_rc "not found is exit 1" 1 "" lib host1 -n resolve 10.9.9.9
check_rc "a bad address is exit 2" 2 "" lib host1 resolve 10.0.0.256
check_out "anti-spoof: host2 claiming 10.0.0.2 is accepted" \
	"is the requester's ATS primary" lib host1 check "$G2" 10.0.0.2
check_rc "anti-spoof: host3 claiming 10.0.0.2 is refused (exit 3)" 3 \
	"A11 source 10\.0\.0\.2 is not the requester's ATS primary 10\.0\.0\.3" \
	lib host1 check "$G3" 10.0.0.2
check_rc "anti-spoof: a GID without a primary: exit 1" 1 "no ATS primary" \
	lib host1 -n check "$G4" 10.0.0.4
# The claimed GID against the port the REQ came from (its LID): the red
# team's REQ names host2's GID and address with host3's own LID. Through
# atsd (-A: its "lid" request) and straight from the SA (-n) alike.
L2=$(port_lid host2)
L3=$(port_lid host3)
G2F=$(echo "$G2" | sed 's/^fe80:/fec0:/')
GUID2=$(port_guid host2)
GUID3=$(port_guid host3)
for how in -A -n; do
	check_out "check_peer_lid $how: host2's GID from host2's LID, claiming 10.0.0.2, is accepted" \
		"^A11 source 10\.0\.0\.2 is the requester's ATS primary\$" \
		lib host1 "$how" checklid "$G2" "$L2" 10.0.0.2
	check_rc "check_peer_lid $how: host2's GID from host3's LID is refused (exit 3), both ports named" 3 \
		"requester LID $(printf 0x%04x "$L3") is port $GUID3's .*not claimed GID $G2's port $GUID2" \
		lib host1 "$how" checklid "$G2" "$L3" 10.0.0.2
	check_rc "check_peer_lid $how: a LID no port holds is refused" 3 \
		"no port holds requester LID 0x0bff" lib host1 "$how" checklid "$G2" 0xbff 10.0.0.2
	check_rc "check_peer_lid $how: host3 from its own LID claiming 10.0.0.2 is refused by the address" 3 \
		"A11 source 10\.0\.0\.2 is not the requester's ATS primary 10\.0\.0\.3" \
		lib host1 "$how" checklid "$G3" "$L3" 10.0.0.2
done
# raw LINE: host1's atsd's answer to one request line, as sent.
raw() {
	python3 - "$RUN/atsd-host1.sock" "$1" <<'PYEOF'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(15)
s.sendall(sys.argv[2].encode() + b"\n")
s.shutdown(socket.SHUT_WR)
out = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    out += d
sys.stdout.write(out.decode(errors="replace"))
PYEOF
}
# The answer on one line.
raw1() {
	raw "$1" | tr '\n' ' '
}
check_out "atsd's lid: one line, host3's port GUID and base LID" \
	"^OK 1 $GUID3 $(printf 0x%04x "$L3") \$" raw1 "lid $L3"
check_out "... the same LID in hex" "^$GUID3 $(printf 0x%04x "$L3")\$" raw "lid $(printf 0x%x "$L3")"
check_out "... a LID no port holds: ENOENT" "^ERR ENOENT no port holds LID 0x0bff\$" raw "lid 0xbff"
for lid in 0 0xc000 0xffff 65536 -1 +3 0x 12abc; do
	check_out "... lid $lid: EINVAL, nothing asked" "^ERR EINVAL '.*' is not a unicast LID" raw "lid $lid"
done
check_out "... lid without a LID, or with two: EINVAL" "^ERR EINVAL unknown request 'lid' or wrong arguments" \
	raw "lid 1 2"
for lid in 0 0xc000 0xc001 0xffff; do
	check_rc "check_peer_lid: LID $lid is no port's: refused without asking" 3 \
		"is not a unicast LID" lib host1 -A checklid "$G2" "$lid" 10.0.0.2
done
check_rc "check_peer_lid: a GID under another subnet prefix is refused" 3 \
	"is off this subnet: the claim cannot be verified" \
	lib host1 -A checklid "$G2F" "$L2" 10.0.0.2
check_rc "check_peer_lid: with neither atsd nor an SA answer it refuses" 3 \
	"cannot read which port holds LID" \
	lib host1 -A -S "$RUN/none.sock" checklid "$G2" "$L2" 10.0.0.2
check_out "eight threads share one handle through atsd" "^8 thread\(s\): 0 different" \
	lib host1 -A -T 8 -c 50 resolve 10.0.0.2
check_out "four threads share one handle through the SA" "^4 thread\(s\): 0 different" \
	lib host1 -n -T 4 -c 5 reverse "$G2"
# fork() after the handle connected: parent and child ask at once, each
# for its own address, and get their own answers (the child connects
# anew). The SA path after fork() is test_libibats_fork's.
check_out "after fork() parent and child each get their own answers through atsd" \
	"^fork: 0 different answer\(s\) in the parent, child all its own" \
	lib host1 -A -c 3000 -F 10.0.0.3 resolve 10.0.0.2
check "a handle without a socket path asks the SA" \
	on host1 env LD_LIBRARY_PATH="$top_builddir/lib/libibats/.libs" "$LOOKUP" \
	-S "$RUN/none.sock" primary "$G2"

# atsd dies while the program keeps asking: every answer stays the same
# (first from atsd, then from the SA), no SIGPIPE (exit 141).
lib host1 -T 2 -s 4 resolve 10.0.0.2 >"$RUN/kill.out" 2>&1 &
LPID=$!
sleep 1.5
kill -9 "$(agent_pid host1)"
wait "$LPID"
rc=$?
check "atsd killed mid-run: the program exits 0 (got $rc)" [ "$rc" -eq 0 ]
check_out "... and every answer was the same" "^2 thread\(s\): 0 different" cat "$RUN/kill.out"
finish
