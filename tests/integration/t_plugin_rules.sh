# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The plugin rejects ATS records that break the SID-block, name and
# address rules with REQ_INVALID, logs a numbered line naming the rule and
# the requester, and the SA keeps nothing of them.
. "$top_srcdir/tests/integration/harness.sh"

fabric_up fabric4.net host1
GUID1=$(port_guid host1)
# The version the OpenSM in use prints (configure made it the headers'),
# its dots escaped: no test names one.
OSM_RUNS=$("$OPENSM" --version 2>/dev/null | grep -m 1 '^OpenSM ' | sed 's/\./\\./g')
check_out "OpenSM loaded the plugin" "osmats_create: osmats .* for ${OSM_RUNS:-no OpenSM version} loaded" \
	cat "$RUN/osm.log"

ATS="DAPL Address Translation Service"
reject() {
	local desc=$1
	shift
	check_rc "$desc: REQ_INVALID" 3 '^status 0x0200$' srtool host1 "$@" set
}

reject "ATS name on SID 0x10000CE100415553 (outside the block)" \
	--sid 0x10000CE100415553 --ip 10.1.0.1
check_out "log line WRN 7A01 names the rule, requester and record" \
	"WRN 7A01: ATS rule sid-block: rejected ServiceRecord Set from LID [0-9]+ port GUID $GUID1: SID 0x10000ce100415553 GID $G1" \
	cat "$RUN/osm.log"
reject "other name on an ATS SID" --sid 0x10000CE100415460 --name "My Service" --ip 10.1.0.2
# A client's refusal is not the SM's fault: OpenSM's info level (0x02
# before the arrow), never its error level (libosmats(8) LOG CODES).
check_out "... at OpenSM's info level, not ERR" \
	" 0x02 -> .*WRN 7A01: ATS rule sid-block: rejected" cat "$RUN/osm.log"
check_absent "... no refusal at the error level (0x01)" " 0x01 -> .*7A0[0-9A-B]: " \
	cat "$RUN/osm.log"
check_out "log line WRN 7A02" "WRN 7A02: ATS rule service-name: .*SID 0x10000ce100415460" cat "$RUN/osm.log"
reject "ServiceData8 all zero" --data8 00000000000000000000000000000000
check_out "log line WRN 7A03" "WRN 7A03: ATS rule address: .*ServiceData8 holds no address" cat "$RUN/osm.log"
reject "IPv4 loopback" --ip 127.0.0.1
reject "IPv4 0.0.0.0/8" --ip 0.1.2.3
reject "IPv4 multicast" --ip 224.0.0.9
reject "IPv4 limited broadcast" --ip 255.255.255.255
reject "IPv6 multicast" --ip ff02::1
reject "IPv6 loopback" --data8 00000000000000000000000000000001
reject "::ffff:127.0.0.1" --data8 00000000000000000000ffff7f000001
check_out "log says why: IPv4 loopback" "WRN 7A03: .*: IPv4 loopback" cat "$RUN/osm.log"

check_rc "nothing of the rejected records is in the SA" 1 "no ATS records" atsctl host2 dump
check_absent "no record of the bad SID either (Get by SID)" ServiceID on host2 "$SAQUERY" -S

check_out "::ffff:10.1.0.9 (mapped form) is accepted" '^status 0x0000$' \
	srtool host1 --data8 00000000000000000000ffff0a010009 set
check_out "atsctl decodes the mapped form as IPv4" "10\.1\.0\.9 \(primary\)" atsctl host2 dump
check_out "a valid ATS record passes" '^status 0x0000$' srtool host1 --sid 0x10000CE100415454 --ip 10.1.0.3 set
check_out "another service passes untouched" '^status 0x0000$' \
	srtool host1 --sid 0x1234 --name "Other Service" --data8 00000000000000000000000000000000 set
check_out "saquery sees the other service" "ServiceName\.+Other Service" \
	on host2 "$SAQUERY" -S
check_out "Delete is not policed: cleanup of any record works" '^status 0x0000$' \
	srtool host1 --sid 0x1234 delete
check_rc "atsctl reports the rejection in words" 3 "SA status 0x0200: request rejected as invalid" \
	atsctl host1 register 10.1.0.4 --sid 0x10000CE100415553
finish
