# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Handover with replication (issue 14): with both SMs in sync the master
# lowers its priority and hands over; the new master's plugin installs its
# shadow: every record there, nothing deleted comes back. Changes made on
# the second master replicate to the first, which then takes the SM role
# back and must serve exactly the second master's set, not what its own SA
# still held from before the handover.
. "$top_srcdir/tests/integration/harness.sh"

repl_fabric fabric4.net host1 host2 host4
M="$RUN/osmats-state.json"
S="$RUN/sm2/osmats-state.json"
OTHER=0x1234567800000002

# host4 is in trusted_guids of both SMs (atsctl sm, below).
GUID4=$(port_guid host4)
echo "trusted_guids $GUID4" >>"$RUN/osmats.conf"
check "the first SM reloads osmats.conf" sm_sweep
check "... reloaded" wait_for "reload" 10 grep -q "reloaded $RUN/osmats.conf" "$RUN/osm.log"
second_sm host3 10
check "a second SM with the plugin on host3 goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
records() {
	atsctl host1 register 10.1.0.1 --primary && atsctl host1 register 10.1.0.2 &&
		atsctl host2 register 10.2.0.1 --primary &&
		srtool host2 --sid $OTHER --name "Other Service" --ip 10.2.9.9 set &&
		atsctl host4 register 10.4.0.1 --primary && atsctl host4 deregister 10.4.0.1
}
check "4 records registered (3 ATS, 1 other), one more registered and deleted" records
check "the master's index holds 4 records" wait_for "the state file" 10 \
	grep -q '"index": {"records": 4,' "$M"
check "the standby is in sync" wait_for "the shadow" 30 repl_synced "$S" "$M"

# What the SA holds, sorted (ATS records, and the other service's).
dump() {
	{
		atsctl host4 -n -t 300 -r 5 dump 2>/dev/null
		srtool host4 --sid $OTHER --gid "$G2" get | grep '^sid'
	} | sort
}
dump >"$RUN/before"
check_count "the first master serves 3 ATS records" 3 cat "$RUN/before"

repl_handover
# The SM query places a requester by OpenSM's LID table on the master
# only: a former master's is left from its sweeps and may name a port
# whose LID another holds now.
# Exit 0, or 5 saying why while the first SM is not yet in sync with it.
sm_full() {
	local rc=0
	atsctl host4 sm --lid "$(port_lid host3)" >"$RUN/sm.out" 2>&1 || rc=$?
	grep -q "^replication: epoch" "$RUN/sm.out" &&
		{ [ $rc -eq 0 ] || { [ $rc -eq 5 ] && grep -q "^atsctl: sm: no standby SM is in sync" "$RUN/sm.out"; }; }
}
check "atsctl sm: the new master answers trusted host4 in full (exit 0, or 5: no standby in sync yet)" sm_full
check_out "... the first SM, now standby, only the public part (trust by key alone)" \
	"public part only" atsctl host4 sm --lid "$(port_lid smhost)"
dump >"$RUN/after"
check "it serves every record at once" diff "$RUN/before" "$RUN/after"
check_rc "... not the deleted one" 1 "no ATS records" atsctl host4 -n dump --gid "$G4"
check "it logs the install of 4 records" grep -Eq \
	"osmats replication: installed 4 ServiceRecords from the shadow \(epoch 0x[0-9a-fA-F]{16}, seq [0-9]+, 0 expired\)" \
	"$RUN/sm2/osm.log"
check "its state file: master, installed 4" wait_for "the state file" 10 \
	repl_is "$S" role=master installed=4 takeovers=1

# Changes on the second master, replicated back to the first.
check "host1 deletes 10.1.0.2 on the second master" atsctl host1 deregister 10.1.0.2
check "host4 registers 10.4.0.9" atsctl host4 register 10.4.0.9 --primary
check "the second master's index holds 4 records" wait_for "the state file" 10 \
	grep -q '"index": {"records": 4,' "$S"
check "the first SM, now standby, is in sync with it" wait_for "the shadow" 30 \
	repl_synced "$M" "$S"
dump >"$RUN/before2"
check_absent "10.1.0.2 is gone" "10\.1\.0\.2" cat "$RUN/before2"

# Hand back: the second drops to 0, below the first's 5 (the master stays
# above the standby until the handover, as two_sm_opts needs under ibsim).
repl_handback
dump >"$RUN/after2"
check "it serves exactly the second master's records" diff "$RUN/before2" "$RUN/after2"
check_rc "host1's deleted 10.1.0.2 did not come back" 1 "no ATS records" \
	atsctl host4 -n dump --sid 0x10000ce100415454
check "it logs the install of 4 records" grep -Eq \
	"osmats replication: installed 4 ServiceRecords from the shadow" "$RUN/osm.log"
check "its state file: master, installed 4" wait_for "the state file" 10 \
	repl_is "$M" role=master installed=4 takeovers=1
check "the second SM is in sync as standby" wait_for "the shadow" 30 repl_synced "$S" "$M"
finish
