# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# End-port liveness (vendor class 0x34) and ibping answers from atsd and
# from the plugin on the SM port; stock ibping as the independent witness.
. "$top_srcdir/tests/integration/harness.sh"

VMADTOOL="$top_builddir/tests/tools/vmadtool"
fabric_start fabric4.net
agent_start host2 "address 10.0.0.2 primary"
L2=$(port_lid host2)
L3=$(port_lid host3)
G2=$(port_gid host2)
GUID2=$(port_guid host2)

check_out "stock ibping gets host2's atsd to answer" \
	"3 packets transmitted, 3 received, 0% packet loss" on host1 ibping -f -c 3 "$L2"
check_out "... the answer names the host (ibping server compatible)" \
	"--- $(hostname)[^ ]* \(Lid $L2\) ibping statistics ---" on host1 ibping -f -c 1 "$L2"
check_out "atsctl ping echo to host2's LID" "3 sent, 3 received, 0% loss" \
	atsctl host1 ping "$L2" -c 3 -i 0
# Whole 256-byte MADs both ways: the largest echo of one MAD (208 bytes,
# up to byte 255) comes back intact. A corrupted echo is reported and not
# counted (tests/unit/test_vmad: test_echo_check).
check_out "... with a 176-byte echo payload" "2 sent, 2 received, 0% loss" \
	atsctl host1 ping "$L2" -c 2 -i 0 --size 176
check_out "a 208-byte echo comes back intact" "2 sent, 2 received, 0% loss" \
	atsctl host1 ping "$L2" -c 2 -i 0 --size 208
check_out "atsctl ping by IP, resolved through ATS" "PING 10\.0\.0\.2 \(LID $L2\)" \
	atsctl host1 ping 10.0.0.2 -c 1
check_out "timestamp mode reports the clock offset" "clock offset [+-][0-9]+ ms" \
	atsctl host1 ping 10.0.0.2 -c 2 -i 0 --type timestamp
check_out "info mode by GID reports LID and port GUID" "peer LID $L2 port GUID $GUID2" \
	atsctl host1 ping "$G2" -c 1 --type info
check_out "--json summary" '"sent": 2, "received": 2, "loss_pct": 0, "rtt_us": \{"min": ' \
	atsctl host1 --json ping "$L2" -c 2 -i 0
check_out "the SM port answers (plugin responder): info" "peer LID 1 port GUID 0x" \
	atsctl host1 ping 1 -c 2 -i 0 --type info
check_out "... and stock ibping to the SM LID" "2 received, 0% packet loss" \
	on host1 ibping -f -c 2 1
check_rc "a LID without a responder: 100% loss, exit 1" 1 "3 sent, 0 received, 100% loss" \
	atsctl host1 -t 100 ping "$L3" -c 3 -i 0
check_rc "an IP nobody registered: exit 1" 1 "no ATS record" atsctl host1 ping 10.9.9.9
check_out "unknown request type: answered with a MAD status error" "^status 0x001c" \
	on host1 "$VMADTOOL" "$L2" 9
check_out "a response type sent as a request: the same" "^status 0x001c" \
	on host1 "$VMADTOOL" "$L2" 2
# The kernel routes a request by class version (mad.c find_mad_agent): a
# version-2 Get reaches no agent (atsd registers version 1) and the
# kernel answers it "unsupported method/attribute" (generate_unmatched_resp).
check_out "class version 2: the kernel answers 0x000c (no version-2 agent)" "^status 0x000c" \
	on host1 "$VMADTOOL" "$L2" 1 2
check_out "the SM port answers unknown types the same way" "^status 0x001c" \
	on host1 "$VMADTOOL" 1 7
check "host2's agent is alive after all that" agent host2 status
check_rc "ping: an echo beyond RMPP's 8192 bytes is refused" 2 "--size '8193'" \
	atsctl host1 ping "$L2" --size 8193
# Over 208 bytes the echo is an RMPP transfer both ways (the kernel's
# RMPP; the request waits for its reassembled answer as any send does).
check_out "a 1000-byte echo comes back whole (RMPP)" "1 sent, 1 received, 0% loss" \
	atsctl host1 ping "$L2" -c 1 --size 1000
finish
