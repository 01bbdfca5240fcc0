# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# ipoib_membership across a SIGHUP: manage leaves at exit a group it
# joined even when the reload took its interface away (and the shutdown
# does not wait for a leave it never sends); a group joined in manage mode
# is not left once a SIGHUP switched to check.
. "$top_srcdir/tests/integration/harness.sh"
host_nets 1 2
fabric_up fabric4.net host1 host2
MCJOIN="$top_builddir/tests/tools/mcjoin"
MGID=ff12:401b:ffff::ffff:ffff
member() { bcast_member host3 "$1"; }
not_member() { ! member "$1"; }

# manage joins; a SIGHUP drops the interface.
agent_start host1 "interface v0 netns $N1" "ipoib_membership manage"
check "manage: joined" wait_for "joined" 10 ipoib_says host1 "^0xffff $MGID joined "
check "... saquery shows the membership" member "$G1"
sed -i '/^interface/d' "$RUN/atsd-host1.conf"
echo "address 10.0.0.1" >>"$RUN/atsd-host1.conf"
kill -HUP "$(agent_pid host1)"
check "... reloaded" wait_for "reload" 10 grep -q "reloaded" "$RUN/atsd-host1.log"
T0=$(date +%s)
kill "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
T1=$(date +%s)
check "SIGHUP without the interface, SIGTERM: atsd exits at once" test $((T1 - T0)) -le 3
check "... and leaves the group it joined" not_member "$G1"

# The kernel's membership; manage, then a SIGHUP to check, then SIGTERM.
check "host2's \"kernel\" joins" on host2 "$MCJOIN" join
agent_start host2 "interface v0 netns $N2" "ipoib_membership manage" "verify_interval 2"
check "manage: joined" wait_for "joined" 10 ipoib_says host2 "^0xffff $MGID joined "
sed -i 's/ipoib_membership manage/ipoib_membership check/' "$RUN/atsd-host2.conf"
kill -HUP "$(agent_pid host2)"
check "SIGHUP to check: atsctl ipoib shows member" wait_for "member" 10 ipoib_says host2 "^0xffff $MGID member "
kill "$(agent_pid host2)"
wait "$(agent_pid host2)" 2>/dev/null
check "SIGTERM in check: host2 is still a member" member "$G2"
check_absent "... atsd logged no leave" "left IPoIB" cat "$RUN/atsd-host2.log"
finish
