# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# SA client behaviour: PKey scoping, the GetTable/walk strategy switch,
# TOO_MANY_RECORDS on a Get, timeouts with retries when the SM hangs,
# the kernel's answer when it is gone.
# The walk's answers: an SA without RMPP (rmpp_off).
. "$top_srcdir/tests/integration/harness.sh"

cat >"$RUN/partitions.conf" <<'PART'
Default=0x7fff, ipoib : ALL=full ;
storage=0x8001 : ALL=full ;
PART
fabric_start fabric4.net
rmpp_off
G1=$(port_gid host1)
G2=$(port_gid host2)
P=0x10000ce1004154

check "host1 registers 10.0.0.1 in partition 0x8001" atsctl host1 register 10.0.0.1 --pkey 0x8001
check "host2 registers 10.0.0.1 in the default partition" atsctl host2 register 10.0.0.1
check_out "resolve in 0x8001 finds host1" "^${P}53 +$G1 +0x8001 " atsctl host3 resolve 10.0.0.1 --pkey 0x8001
check_count "... and only host1" 1 atsctl host3 resolve 10.0.0.1 --pkey 0x8001
check_out "resolve in 0xffff finds host2" "^${P}53 +$G2 +0xffff " atsctl host3 resolve 10.0.0.1
check_count "... and only host2" 1 atsctl host3 resolve 10.0.0.1
check_rc "host1 has no primary in the default partition" 1 "no primary" atsctl host3 primary "$G1"
check_out "host1's primary in 0x8001" "10\.0\.0\.1 \(primary\)" atsctl host3 primary "$G1" --pkey 0x8001
check_rc "a partition the port does not hold is refused by the SA" 3 "SA status 0x0200" \
	atsctl host1 register 10.0.0.9 --pkey 0x8002

check "host1 adds 10.0.1.1 (0xffff)" atsctl host1 register 10.0.1.1
check_out "--rmpp off walks at once" "SubnAdmGet walk" atsctl host3 -v --rmpp off dump --gid "$G1"
check_out "--rmpp auto learns from a cut GetTable answer" "GetTable answer cut after 1 record" \
	atsctl host3 -v dump
check_out "the SA answers a Get matching two records with TOO_MANY_RECORDS" \
	"Got 2 records for SubnAdmGet\(ServiceRecord\)" cat "$RUN/osm.log"
check_out "a one-record table is complete without RMPP" "1 record\(s\) in 1 SA request" \
	atsctl host3 -v dump --gid "$G2"

# A hung OpenSM (SIGSTOP): its kernel queues the requests, nothing
# answers, every retry times out.
kill -STOP "$SM_PID"
check_rc "SM hung: timeout after every retry, exit 3" 3 \
	"no answer from the SA \(SM LID [0-9]+\) after 3 attempt\(s\) of 100 ms" \
	atsctl host3 -t 100 -r 2 primary "$G1"
kill -CONT "$SM_PID"
# OpenSM stopped on a live port: its kernel has no SA agent and answers
# the Get "unsupported" at once (mad.c generate_unmatched_resp).
sm_stop
check_rc "SM gone from a live port: its kernel's 'unsupported' at once" 3 \
	"SA status 0x000c" atsctl host3 -t 100 -r 2 primary "$G1"
finish
