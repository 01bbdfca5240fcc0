# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Stock saquery, an independent decoder, sees what atsctl registered; and
# atsctl whois names a holder as saquery -N and smpquery do.
. "$top_srcdir/tests/integration/harness.sh"

fabric_start fabric4.net
[ -n "$SAQUERY" ] || skip "saquery not installed"
G1=$(port_gid host1)

check "host1 registers 192.168.1.10" atsctl host1 register 192.168.1.10
on host2 "$SAQUERY" -S -K >"$RUN/sa.txt" 2>&1
check_out "saquery: ServiceID is the primary SID" 'ServiceID\.+0x10000ce100415453$' cat "$RUN/sa.txt"
check_out "saquery: ServiceGID is host1's" "ServiceGID\.+$G1\$" cat "$RUN/sa.txt"
check_out "saquery: PKey 0xFFFF" 'ServiceP_Key\.+0xFFFF$' cat "$RUN/sa.txt"
check_out "saquery: infinite lease" 'ServiceLease\.+0xFFFFFFFF$' cat "$RUN/sa.txt"
check_out "saquery: ServiceKey zero" 'ServiceKey\.+0x0{32}$' cat "$RUN/sa.txt"
check_out "saquery: ATS service name" 'ServiceName\.+DAPL Address Translation Service$' cat "$RUN/sa.txt"
check_out "saquery: IPv4 in ServiceData8 octets 12..15" \
	'ServiceData8\.13\.+0xC0' cat "$RUN/sa.txt"
check "saquery: ServiceData8 1..12 zero, 13..16 = 192.168.1.10" sh -c "
	sed -n 's/.*ServiceData8\.\([0-9]*\)\.*\(0x.*\)/\1=\2/p' $RUN/sa.txt | tr '\n' ' ' |
	grep -qx '1=0x0 2=0x0 3=0x0 4=0x0 5=0x0 6=0x0 7=0x0 8=0x0 9=0x0 10=0x0 11=0x0 12=0x0 13=0xC0 14=0xA8 15=0x1 16=0xA '"
check "saquery's dump of that record equals the captured golden text" sh -c "
	sed 's/fe80::10:3/$G1/' $top_srcdir/tests/unit/saquery-S-v4.txt | diff - $RUN/sa.txt"

check "host1 deregisters it" atsctl host1 deregister 192.168.1.10
check_absent "saquery -S finds no ServiceRecord afterwards" ServiceID on host2 "$SAQUERY" -S

check "host1 registers fd00::7" atsctl host1 register fd00::7
check_out "saquery: IPv6 fills ServiceData8 from octet 1" 'ServiceData8\.1\.+0xFD$' \
	on host2 "$SAQUERY" -S

# whois: the holder's LID and NodeDescription, as the stock tools see them.
L1=$(port_lid host1)
on host2 "$SAQUERY" NR "$L1" >"$RUN/nr.txt" 2>&1
DESC=$(sed -n 's/^[[:space:]]*NodeDescription\.*\(.*\)$/\1/p' "$RUN/nr.txt")
NGUID=$(sed -n 's/^[[:space:]]*node_guid\.*\(0x[0-9a-fA-F]*\)$/\1/p' "$RUN/nr.txt")
NGUID=$(printf '0x%016x' "$NGUID")
check "saquery NR $L1 names host1's node" test -n "$DESC" -a "$NGUID" != 0x0000000000000000
check_out "whois fd00::7: host1's GID, LID and saquery's NodeDescription" \
	"^0x10000ce100415453  $G1 +0xffff  fd00::7 +$L1 +$DESC \(primary\)\$" atsctl host3 whois fd00::7
check_out "... which smpquery reads from the node itself" "^Node Description:\.*$DESC\$" \
	on host3 "$SMPQUERY" nodedesc "$L1"
check_json "... as JSON objects" \
	"d['ip'] == 'fd00::7' and d['records'][0]['lid'] == $L1 and d['records'][0]['node_description'] == '$DESC' and d['records'][0]['node_guid'] == '$NGUID'" \
	atsctl host3 --json whois fd00::7
printf '# site names\n%s "rack7 node1"  # host1\n0x1 "other"\n' "$NGUID" >"$RUN/node.map"
check_out "--node-name-map: the mapped name instead" "  $L1 +rack7 node1 \(primary\)\$" \
	atsctl host3 whois fd00::7 --node-name-map "$RUN/node.map"
check_out "resolve --names: the NodeDescription column" "fd00::7 +$L1 +$DESC \(primary\)\$" \
	atsctl host3 resolve fd00::7 --names
check_out "dump --names with the map" "fd00::7 +$L1 +rack7 node1 \(primary\)\$" \
	atsctl host3 dump --gid "$G1" --node-name-map "$RUN/node.map"
# Issue 37: the stock syntax, the name bare (ibnetdiscover's own output).
printf '%s rack7-node1   # host1\n' "$NGUID" >"$RUN/stock.map"
check_out "--node-name-map: a bare name, as saquery and ibnetdiscover take it" \
	"  $L1 +rack7-node1 \(primary\)\$" atsctl host3 whois fd00::7 --node-name-map "$RUN/stock.map"
printf 'g%s "rack7"\n' "$NGUID" >"$RUN/bad.map"
check_rc "a bad map line: file:line, usage error" 2 "$RUN/bad.map:1: not a GUID" \
	atsctl host3 whois fd00::7 --node-name-map "$RUN/bad.map"
check_rc "whois of an address nobody holds: exit 1" 1 "^atsctl: 10\.9\.9\.9: not found: no ATS record$" \
	atsctl host3 whois 10.9.9.9
finish
