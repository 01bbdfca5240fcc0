# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ipoib_membership check: on a real host the kernel's IPoIB driver owns
# the broadcast group membership, and OpenSM drops a port's FullMember
# state on a leave from that port, whoever joined. tests/tools/mcjoin
# joins as the kernel would, before atsd starts; in check mode atsd only
# reads the membership, reports it, and never joins or leaves.
. "$top_srcdir/tests/integration/harness.sh"

host_nets 1 2
fabric_up fabric4.net host1 host2
MCJOIN="$top_builddir/tests/tools/mcjoin"
MGID=ff12:401b:ffff::ffff:ffff
LOG2="$RUN/atsd-host2.log"

member() {
	bcast_member host3 "$1"
}
not_member() {
	! member "$1"
}
syncs() {
	agent "$1" stats | awk '$1 == "syncs" {print $2}'
}
# Two more verifies (each checks the groups) than at the call.
two_verifies() {
	local node=$1 from=$2
	[ "$(syncs "$node")" -ge $((from + 2)) ]
}

check "host1's 'kernel' joins the broadcast group before atsd starts" on host1 "$MCJOIN" join
check "... stock saquery shows host1 as a member" member "$G1"
agent_start host1 "interface v0 netns $N1" "ipoib_membership check" "verify_interval 2"
check "atsctl ipoib shows the kernel's membership as member" wait_for "member" 10 \
	ipoib_says host1 "^0xffff $MGID member qkey=0x[0-9a-f]{8} mlid=0xc[0-9a-f]{3} mtu=[0-9]+ sl=[0-9]+ rate=[0-9]+$"
check_json "--json names the state" 'd[0]["state"] == "member" and d[0]["mgid"] == "ff12:401b:ffff::ffff:ffff"' agent host1 --json ipoib
check_out "... and the log says whose it is" "this port is a member \\(the kernel's; ipoib_membership check\\)" \
	cat "$RUN/atsd-host1.log"
kill "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
check "atsd stopped: host1 is still a member (no leave from atsd)" member "$G1"
check_absent "... and atsd logged no join or leave" "joined IPoIB|left IPoIB" cat "$RUN/atsd-host1.log"

# No membership at all: check mode reports it and never joins.
agent_start host2 "interface v0 netns $N2" "ipoib_membership check" "verify_interval 2"
check "host2 has no kernel membership: atsctl ipoib says not a member" wait_for "not a member" 10 \
	ipoib_says host2 "^0xffff $MGID error not a member"
check_out "... the log names the likely causes" \
	"is not a member, so the host gets no IPoIB broadcast .*ip link.*partitions.conf" cat "$LOG2"
S=$(syncs host2)
check "two verifies later" wait_for "two verifies" 20 two_verifies host2 "$S"
check "... atsd has not joined" not_member "$G2"
check_out "... and said it once, not at every verify" "^1$" grep -c "is not a member, so" "$LOG2"
# The kernel joins later: the next verify sees it.
check "host2's 'kernel' joins" on host2 "$MCJOIN" join
check "... atsctl ipoib shows member at the next verify" wait_for "member" 10 \
	ipoib_says host2 "^0xffff $MGID member "
# The kernel's membership goes: reported again.
check "host2's 'kernel' leaves" on host2 "$MCJOIN" leave
check "... atsctl ipoib says not a member again" wait_for "not a member" 10 \
	ipoib_says host2 "^0xffff $MGID error not a member"
check_out "... logged once more" "^2$" grep -c "is not a member, so" "$LOG2"
kill "$(agent_pid host2)"
wait "$(agent_pid host2)" 2>/dev/null
check "atsd stopped: host2 was never joined" not_member "$G2"

# manage (the ibsim default) leaves at exit even a membership it found:
# the very cut check mode avoids.
check "host1's 'kernel' membership is still there" member "$G1"
agent_start host1 "interface v0 netns $N1" "ipoib_membership manage"
check "manage: atsctl ipoib shows joined" wait_for "joined" 10 ipoib_says host1 "^0xffff $MGID joined "
kill "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
check "... and its leave at exit removes the port's membership" not_member "$G1"
finish
