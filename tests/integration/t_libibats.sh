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
