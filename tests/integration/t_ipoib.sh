# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsd joins the IPoIB IPv4 broadcast group of each interface's partition,
# joins again when a restarted SM lost it, and leaves it at exit; stock
# saquery sees the membership.
. "$top_srcdir/tests/integration/harness.sh"

host_nets 1
fabric_up fabric4.net host1
MGID=ff12:401b:ffff::ffff:ffff

member() {
	bcast_member host2 "$G1"
}
not_member() {
	! member
}

check "host1 is no member before its agent starts" not_member
agent_start host1 "interface v0 netns $N1" "interface v1 netns $N1 pkey 0x0005" "verify_interval 2"
check "atsd joins the broadcast group of its partition" wait_for "join" 10 member
check_out "atsctl ipoib shows the group's Q_Key, MLID, MTU, SL and rate" \
	"^0xffff $MGID joined qkey=0x[0-9a-f]{8} mlid=0xc[0-9a-f]{3} mtu=[0-9]+ sl=[0-9]+ rate=[0-9]+$" \
	agent host1 ipoib
check_out "--json names the fields" \
	"\"pkey\": \"0xffff\", \"mgid\": \"$MGID\", \"state\": \"joined\", \"qkey\": \"0x" \
	agent host1 --json ipoib
check_json "--json: MTU, SL and rate as numbers, Q_Key and MLID hex strings" \
	'[type(d[0][k]) for k in ("mtu", "sl", "rate")] == [int] * 3 and d[0]["qkey"].startswith("0x") and d[0]["mlid"].startswith("0x")' \
	agent host1 --json ipoib
check_out "a partition without an IPoIB group is reported, not hidden" \
	"^0x8005 ff12:401b:8005::ffff:ffff error " agent host1 ipoib
check_out "... with a log line that says what to check" \
	"cannot join IPoIB broadcast group ff12:401b:8005::ffff:ffff .*partitions.conf.*ipoib flag" \
	cat "$RUN/atsd-host1.log"
ip -n "$N1" neigh add 10.0.0.9 lladdr 00:11:22:33:44:55 dev v0
check_out "atsctl verify reads the netns neighbour table (Ethernet ones are not IPoIB)" \
	"^0 IPoIB neighbour\(s\) checked, 0 disagree with ATS$" atsctl host1 verify --netns "$N1"
check_rc "a namespace that does not exist: exit 3" 3 "cannot read the neighbour table of netns nosuchns" \
	atsctl host1 verify --netns nosuchns
# OpenSM restarted on the same node: a new SA without the membership, and
# no port event under ibsim. The agent's periodic check finds the
# membership gone and joins again.
sm_kill "$SM_PID"
sm_start
check "OpenSM killed and restarted: atsd is a member of the new SA's group" \
	wait_for "join again" 20 member
check_out "... and says why it joined again" \
	"joined IPoIB broadcast group $MGID again \\(the SA had lost our membership\\)" \
	cat "$RUN/atsd-host1.log"
check_out "a partition without a group is reported once, not at every check" "^1$" sh -c \
	"grep -c 'cannot join IPoIB broadcast group ff12:401b:8005' '$RUN/atsd-host1.log'"
kill "$(agent_pid host1)"
check "at exit it leaves the group" wait_for "leave" 10 not_member
check_out "... and says so" "left IPoIB broadcast group $MGID" cat "$RUN/atsd-host1.log"
finish
