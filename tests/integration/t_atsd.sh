# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsd on three hosts, each following a veth in its own network namespace:
# the SA follows their addresses, primaries, links, holds, SIGTERM, SIGKILL
# and an SM restart; lookups are cached.
. "$top_srcdir/tests/integration/harness.sh"

host_ns h1
host_ns h2
host_ns h3
N1=$(ns h1)
N2=$(ns h2)
N3=$(ns h3)
fabric_up fabric4.net host1 host2 host3
P=0x10000ce1004154
COMMON="verify_interval 2
sm_poll_interval 1
backoff_max 2
cache_ttl 60
negative_ttl 60"

ip -n "$N1" addr add 10.0.0.1/24 dev v0
ip -n "$N1" addr add 10.0.0.11/24 dev v0
ip -n "$N1" addr add fd00::1/64 dev v0 nodad
ip netns exec "$N1" sysctl -qw net.ipv4.conf.v0.promote_secondaries=1
ip -n "$N2" addr add 10.0.0.2/24 dev v0
ip -n "$N3" addr add 10.0.0.3/24 dev v0

# count NODE N GID: the SA holds N ATS records of GID (asked from host4).
count() {
	[ "$(atsctl host4 -n dump --gid "$3" 2>/dev/null | grep -c '^0x')" -eq "$2" ]
}
# has GID SID IP: the SA holds exactly that record.
has() {
	atsctl host4 -n dump --gid "$1" 2>/dev/null | grep -Eq "^$2 +$1 +0x[0-9a-f]+ +[a-z0-9]+ +$3( |\$)"
}

IFS_SAVE=$IFS
IFS='
'
agent_start host1 $COMMON "interface v0 netns $N1"
IFS=$IFS_SAVE
check "host1's three addresses are registered" wait_for "host1" 10 count host4 3 "$G1"
check_out "stock saquery sees host1's records" "ServiceGID\.+$G1" on host4 "$SAQUERY" -S
IFS='
'
agent_start host2 $COMMON "interface v0 netns $N2"
agent_start host3 $COMMON "interface v0 netns $N3"
IFS=$IFS_SAVE

check "... 10.0.0.1, the interface's primary IPv4, on the primary SID" has "$G1" ${P}53 10.0.0.1
check "... the secondary IPv4 on ...54" has "$G1" ${P}54 10.0.0.11
check "... the IPv6 ULA on ...55" has "$G1" ${P}55 fd00::1
check "host2: 10.0.0.2" wait_for "host2" 10 has "$G2" ${P}53 10.0.0.2
check "host3: 10.0.0.3" wait_for "host3" 10 has "$G3" ${P}53 10.0.0.3
check_out "atsd status lists what it keeps" "^${P}55 +$G1 .*fd00::1" agent host1 status

# Addresses come and go.
ip -n "$N2" addr add 10.0.2.2/24 dev v0
check "host2 adds 10.0.2.2: registered on ...54" wait_for "add" 10 has "$G2" ${P}54 10.0.2.2
ip -n "$N2" addr del 10.0.2.2/24 dev v0
check "host2 removes it: deregistered" wait_for "del" 10 count host4 1 "$G2"
ip -n "$N2" addr add 10.0.2.2/24 dev v0
check "host2 adds it again" wait_for "re-add" 10 has "$G2" ${P}54 10.0.2.2

# Primary change: the kernel promotes the secondary when the primary goes.
ip -n "$N1" addr del 10.0.0.1/24 dev v0
check "host1 loses its primary: 10.0.0.11 takes the primary SID" \
	wait_for "promotion" 10 has "$G1" ${P}53 10.0.0.11
check "... and 10.0.0.1 is gone" wait_for "old primary gone" 10 count host4 2 "$G1"
ip -n "$N1" addr add 10.0.0.1/24 dev v0
check "10.0.0.1 comes back as a secondary" wait_for "back" 10 has "$G1" ${P}54 10.0.0.1
# A configured primary moves the primary SID; the old one stays secondary.
printf 'socket %s\nstate_file %s\n%s\ninterface v0 netns %s primary 10.0.0.1\n' \
	"$RUN/atsd-host1.sock" "$RUN/atsd-host1.state" "$COMMON" "$N1" >"$RUN/atsd-host1.conf"
kill -HUP "$(agent_pid host1)"
check "SIGHUP with 'primary 10.0.0.1': it is primary again" \
	wait_for "configured primary" 10 has "$G1" ${P}53 10.0.0.1
check "... 10.0.0.11 stays as a secondary" wait_for "old primary kept" 10 sh -c \
	"cd $RUN/scratch && SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n dump --gid $G1 | grep -q ' 10\.0\.0\.11\$'"
check "... three records in all" wait_for "3 records" 10 count host4 3 "$G1"

# Link down and up.
ip -n "$N3" link set v0 down
check "host3's link goes down: its record is deleted" wait_for "down" 10 count host4 0 "$G3"
ip -n "$N3" link set v0 up
check "... and comes back with the link" wait_for "up" 10 has "$G3" ${P}53 10.0.0.3

# Holds: two programs share one address; it lives until both let go.
check "program A holds 10.0.9.3 on host3" agent host3 hold 10.0.9.3 --owner progA
check "program B holds it too" agent host3 hold 10.0.9.3 --owner progB
check "the held address is registered" wait_for "hold" 10 has "$G3" ${P}54 10.0.9.3
check "A releases it" agent host3 release 10.0.9.3 --owner progA
check_out "... A's release is seen by the agent" "^holds 1$" agent host3 stats
check "... the record stays (B holds it)" has "$G3" ${P}54 10.0.9.3
check "B releases it" agent host3 release 10.0.9.3 --owner progB
check "... now it is deregistered" wait_for "release" 10 count host4 1 "$G3"
check_rc "releasing what nobody holds: exit 1" 1 "not held by this owner" \
	agent host3 release 10.0.9.3 --owner progB

# The local resolver and its cache.
check_out "host1 resolves 10.0.0.2 through its agent" "^${P}53 +$G2 .*10\.0\.0\.2" \
	agent host1 -v resolve 10.0.0.2
before=$(agent host1 stats | sed -n 's/^sa_lookups //p')
check_out "the same lookup again" "10\.0\.0\.2" agent host1 resolve 10.0.0.2
check_out "... is a cache hit" "^cache_hits [1-9]" agent host1 stats
check "... that asked the SA nothing" sh -c \
	"[ \$(cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -S $RUN/atsd-host1.sock stats | sed -n 's/^sa_lookups //p') -eq $before ]"
check_rc "an unknown address: exit 1" 1 "no ATS record" agent host1 resolve 10.9.9.9
check_rc "asked again: answered from the negative cache" 1 "cached" agent host1 resolve 10.9.9.9
check_out "... counted" "^negative_hits 1" agent host1 stats
check_out "reverse and primary through the agent" "10\.0\.0\.3 \(primary\)" \
	agent host1 primary "$G3"

# Identical lookups that miss together share one SA lookup: with the SM
# stopped the first one waits for the SA, and the others join it.
coalesced() {
	[ "$(agent host1 stats | sed -n 's/^coalesced //p')" -ge 1 ]
}
kill -STOP "$SM_PID"
pids=""
for i in 1 2 3 4 5; do
	agent host1 resolve 10.0.0.3 >/dev/null 2>&1 &
	pids="$pids $!"
done
wait_for "a lookup to join another" 10 coalesced
kill -CONT "$SM_PID"
wait $pids
check_out "... the five lookups were coalesced" "^coalesced [1-4]$" agent host1 stats

# SIGKILL and restart: the agent adopts its records, no duplicates.
kill -9 "$(agent_pid host2)"
wait "$(agent_pid host2)" 2>/dev/null
IFS='
'
agent_start host2 $COMMON "interface v0 netns $N2"
IFS=$IFS_SAVE
check "after SIGKILL and restart host2 has synced" \
	wait_for "adoption" 10 grep -q "adopted 2 record" "$RUN/atsd-host2.log"
check "... and still holds exactly 2 records" count host4 2 "$G2"

# OpenSM restart: the new SA knows nothing; agents put everything back.
sm_stop
sm_start
check "after an SM restart host1's 3 records are back" wait_for "SM restart" 15 count host4 3 "$G1"
check "... host2's 2" wait_for "host2 back" 15 count host4 2 "$G2"
check "... host3's 1" wait_for "host3 back" 15 count host4 1 "$G3"

# SIGTERM: an agent deletes everything it registered.
kill "$(agent_pid host1)"
check "SIGTERM: host1's records are deleted" wait_for "cleanup" 10 count host4 0 "$G1"
check_out "... secondaries before the primary" \
	"deregistered .* from SID ${P}5[45].*deregistered .* from SID ${P}5[45].*deregistered .* from SID ${P}53" \
	sh -c "tr '\n' ' ' <$RUN/atsd-host1.log"
kill "$(agent_pid host2)" "$(agent_pid host3)"
check "SIGTERM to the other two: the SA holds no ATS record" \
	wait_for "empty SA" 10 sh -c "cd $RUN/scratch && SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n dump; [ \$? -eq 1 ]"
check_absent "... stock saquery agrees" "ServiceID" on host4 "$SAQUERY" -S
finish
