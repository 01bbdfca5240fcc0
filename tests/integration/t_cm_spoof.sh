# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Red-team (issue 35, commit df5ac52): the listener believes a REQ's
# claimed GID when the SA says the claimed LID is that GID's port. A
# hostile host can name any other port's GID and LID truthfully: the REP
# goes to that port, whose ib_cm drops a REP it does not know silently
# (cm.c cm_rep_handler -> cm_dup_rep_handler), so the half-open slot is
# held for cm_timeout and counted against the *victim's* port. Resent
# every half second, this locks the victim out of the listener (its
# share, 8) or the whole listener (48 passive, by naming 6+ ports:
# switches and hosts alike under cm_policy list/any). They failed on
# df5ac52; now half-open requests count against no share and wait in a
# pool of 8 whose oldest makes room (rcm_peer.h).
. "$top_srcdir/tests/integration/harness.sh"

echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
fabric_up fabric4.net host1 host2 host3 host4
agent_start host1 "address 10.0.0.1 primary" "cm yes"
agent_start host2 "address 10.0.0.2 primary" "cm_listen 5001" "cm_policy agree"
agent_start host4 "address 10.0.0.4 primary" "cm_listen 5002" \
	"cm_policy list" "cm_accept 10.0.0.1"
for g in "$G1" "$G2" "$G4"; do
	check "the agent of $g registered its primary" wait_for "record of $g" 10 has_primary host2 "$g"
done
check_out "baseline: host1 connects to host2" " active established " \
	agent host1 connect 10.0.0.2 5001
ID=$(agent host1 connections | awk '/10\.0\.0\.2/ {print $1}')
check "... and disconnects" agent host1 disconnect "$ID"

# host3 (no atsd, no ib_cm: a hostile host) names host1's GID and host1's
# real LID, every 500 ms (host2's cm_timeout is 1 s).
L1=$(port_lid host1)
on host3 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/victim.pid" \
	"$top_builddir/tests/tools/hostile" req "$(port_lid host2)" "$G2" \
	0x0000000001061389 8 10.0.0.1 as "$G1" lid "$L1" every 500 >"$RUN/victim.out" 2>&1 &
T_PIDS="$T_PIDS $!"
eight_halfopen() {
	[ "$(agent host2 connections | grep -c " passive rep-sent .*remote=$G1")" -ge 8 ]
}
check "[attack] host2 holds 8 half-open connections 'from host1' that host1 never asked for" \
	wait_for "8 half-open" 5 eight_halfopen
agent host2 connections >"$RUN/host2-conns.txt" 2>&1
# A newcomer is refused only while the pool's oldest is younger than
# 20 ms (rcm_peer.h): a connect may meet that once.
connects() {
	agent host1 connect "$1" "$2" | grep -q " active established "
}
check "host1 still connects to host2 while host3 impersonates it (its share counts established connections only)" \
	wait_for "host1's connection" 10 connects 10.0.0.2 5001
T_PIDS="$T_PIDS $(cat "$RUN/victim.pid")"
stop_pid "$(cat "$RUN/victim.pid")"

# The whole listener: host4 (cm_policy list, 10.0.0.1 listed) gets 8 REQs
# naming each port of the fabric (switch port 0 by its GUID and LID
# included) with source 10.0.0.1: 48 passive slots fill.
on host1 "$SAQUERY" NR >"$RUN/nr.txt" 2>&1
awk '/lid\.*/ {gsub(/\./," "); lid=$2} /port_guid/ {gsub(/\./," "); print lid, $2}' \
	"$RUN/nr.txt" | sort -u >"$RUN/ports.txt"
while read -r lid guid; do
	[ "$lid" = "$L1" ] && continue # host1's own share is not the point here
	echo "fe80:0:0:0:$(echo "${guid#0x}" | sed 's/^\(....\)\(....\)\(....\)\(....\)$/\1:\2:\3:\4/') $lid"
done <"$RUN/ports.txt" >"$RUN/claims.txt"
echo "# claims: $(tr '\n' ' ' <"$RUN/claims.txt")"
on host3 sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/fill.pid" \
	"$top_builddir/tests/tools/hostile" req "$(port_lid host4)" "$G4" \
	0x000000000106138a 8 10.0.0.1 claims "$RUN/claims.txt" every 500 >"$RUN/fill.out" 2>&1 &
T_PIDS="$T_PIDS $!"
pool_full() {
	[ "$(agent host4 connections | grep -c " passive rep-sent ")" -ge 8 ]
}
check "[attack] host4's half-open pool fills (8) with requests their named ports never sent" \
	wait_for "8 half-open" 5 pool_full
half_open() {
	agent host4 connections | grep -c " passive rep-sent "
}
check_out "... and holds no more than that" "^[0-8]$" half_open
check "host1 (not named) still connects to host4" \
	wait_for "host1's connection" 10 connects 10.0.0.4 5002
agent host4 connections >"$RUN/host4-conns.txt" 2>&1
T_PIDS="$T_PIDS $(cat "$RUN/fill.pid")"
stop_pid "$(cat "$RUN/fill.pid")"
finish
