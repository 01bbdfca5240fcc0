# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Records of a port that leaves the fabric are flushed: at once on trap 65
# by default, after flush_grace_sweeps sweeps otherwise; the port comes
# back and registers again; OpenSM's own SA dump follows. With
# flush_departed no they stay: an administrator removes them (SA key),
# one by one or with atsctl purge; others may not.
. "$top_srcdir/tests/integration/harness.sh"

# A non-default SA key: OpenSM's default (0x1) earns no trust.
printf 'sa_db_dump TRUE\nsa_key 0x5a5a\n' >"$RUN/opensm.extra"
fabric_up fabric4.net host2 host3
GUID3=$(port_guid host3)
STATE="$RUN/osmats-state.json"

gone() { # no ATS record of GID $1 left in the SA
	atsctl host1 dump --gid "$1" >/dev/null 2>&1
	[ $? -eq 1 ]
}
active() { # node $1's port is up and has an SM
	atsctl "$1" --json port | grep -q '"state": "Active"'
}
lid_is() { # node $1's port has LID $2
	[ "$(port_lid "$1")" = "$2" ]
}

check "host2 registers 10.0.0.2" atsctl host2 register 10.0.0.2
check "host3 registers 10.0.0.3" atsctl host3 register 10.0.0.3
check "host3 registers fd00::3" atsctl host3 register fd00::3
check "OpenSM dumps the SA database" sm_sweep
# OpenSM writes the dump after it logs SUBNET UP: poll for it.
check "... with host3's records in it" wait_for "the dump" 10 grep -q "$GUID3" "$RUN/opensm-sa.dump"

sim 'Unlink "host3"'
check "host3 unplugged: its records are flushed" wait_for "flush" 20 gone "$G3"
check_out "... on trap 65 from OpenSM's drop manager" \
	"WRN 7A10: flushed ATS record of departed port \(trap 65\): SID 0x10000ce100415453 GID $G3 PKey 0xffff IP 10\.0\.0\.3" \
	cat "$RUN/osm.log"
check "... both of them, counted in the state file" \
	wait_for "flushed 2" 10 grep -Eq '"flushed": 2[,}]' "$STATE"
check_out "host2's record is untouched" "10\.0\.0\.2 \(primary\)" atsctl host1 primary "$G2"
check "OpenSM dumps the SA database again" sm_sweep
check "... without host3's records (sa.dirty was set)" \
	wait_for "the new dump" 10 sh -c "! grep -q '$GUID3' '$RUN/opensm-sa.dump'"

sim 'ReLink "host3"'
check "host3 plugged back in" wait_for "host3 active" 20 active host3
check_out "host3 registers again" "SID 0x10000ce100415453" atsctl host3 register 10.0.0.3

# With a grace of two sweeps, a port must stay away for three.
echo "flush_grace_sweeps 2" >"$RUN/osmats.conf"
check "reload with flush_grace_sweeps 2" sm_sweep
check "... reloaded" wait_for "reload" 10 grep -q "reloaded $RUN/osmats.conf" "$RUN/osm.log"
sim 'Unlink "host3"'
check "host3 unplugged again: the state file sees its port missing" \
	wait_for "missing sweep" 20 grep -q "\"gid\": \"$G3\", .*\"port_present\": false, \"missing_sweeps\": [12]}" "$STATE"
check_out "... but its record stays within the grace" "10\.0\.0\.3" atsctl host1 dump --gid "$G3"
sm_sweep
sm_sweep
sm_sweep
check "after three sweeps away it is flushed" wait_for "flush" 10 gone "$G3"
check_out "... at a SUBNET_UP reconciliation" \
	"WRN 7A10: flushed ATS record of departed port \(absent at SUBNET_UP\): .*GID $G3" cat "$RUN/osm.log"

# flush_departed no: the records of a port that left stay until removed.
sim 'ReLink "host3"'
check "host3 plugged back in again" wait_for "host3 active" 20 active host3
check "host3 registers 10.0.0.3 (primary)" atsctl host3 register 10.0.0.3 --primary
check "... and 10.0.3.3" atsctl host3 register 10.0.3.3
echo "flush_departed no" >"$RUN/osmats.conf"
check "reload with flush_departed no" sm_sweep
check "... reloaded" wait_for "reload" 10 \
	sh -c "[ \$(grep -c 'reloaded $RUN/osmats.conf' '$RUN/osm.log') -ge 2 ]"
sim 'Unlink "host3"'
check "host3 unplugged: the state file sees its port absent" wait_for "absent" 20 \
	grep -q "\"gid\": \"$G3\", .*\"port_present\": false" "$STATE"
check_rc "audit reports its records gid-absent" 1 "^error gid-absent: no port on the fabric has this GID" \
	atsctl host1 -k 0x5a5a audit --state "$STATE"
P=0x10000ce1004154
check_rc "host2 deregistering host3's record: refused" 3 "SA status 0x0200" \
	atsctl host2 deregister 10.0.3.3 --gid "$G3"
check_out "... with an WRN 7A05 naming rule, requester and record" \
	"WRN 7A05: ATS rule ownership: rejected ServiceRecord Delete from LID [0-9]+ port GUID $(port_guid host2): SID ${P}54 GID $G3 PKey 0xffff IP 10\.0\.3\.3: requester does not own" \
	cat "$RUN/osm.log"
check_rc "a Delete of another service's record of the absent GID: refused" 3 '^status 0x0200$' \
	srtool host2 --sid 0x100 --gid "$G3" delete
check_out "... with an WRN 7A56 (OpenSM's partition check)" \
	"WRN 7A56: SA rule partition: rejected ServiceRecord Delete from LID [0-9]+ port GUID $(port_guid host2): SID 0x0000000000000100 GID $G3 .*: no port on the fabric has the ServiceGID" \
	cat "$RUN/osm.log"
check_rc "... and with the SA key too: the ATS name does not make another SID's record ATS" 3 '^status 0x0200$' \
	srtool host2 --smkey 0x5a5a --sid 0x100 --gid "$G3" delete
check_out "... refused by the same check" \
	"WRN 7A56: SA rule partition: rejected ServiceRecord Delete from LID [0-9]+ port GUID $(port_guid host2): SID 0x0000000000000100 GID $G3 .*: no port on the fabric has the ServiceGID" \
	sh -c "grep -c 'WRN 7A56: .* SID 0x0000000000000100 GID $G3 ' '$RUN/osm.log' | grep -qx 2 && cat '$RUN/osm.log'"
check_out "a trusted deregister (SA key) removes host3's 10.0.3.3" "deregistered 10\.0\.3\.3 \(1 record\)" \
	atsctl host1 -k 0x5a5a deregister 10.0.3.3 --gid "$G3"
check_out "purge lists the record left (dry run)" "^gid-absent ${P}53 $G3 0xffff infinite 10\.0\.0\.3$" \
	atsctl host1 purge
check_out "... would delete 1 record" "^would delete 1 record " atsctl host1 purge
check_json "... as JSON, each record an object" \
	'd["dry_run"] and d["found"] == 1 and d["records"][0]["ip"] == "10.0.0.3" and d["records"][0]["action"] == "would-delete"' \
	atsctl host1 purge --json
check_out "... and deletes nothing" "10\.0\.0\.3" atsctl host1 dump --gid "$G3"
check_rc "purge --yes without trust: refused per record (exit 3)" 3 \
	"^failed ${P}53 $G3 0xffff infinite 10\.0\.0\.3: SA status 0x0200" atsctl host2 purge --yes
check_out "purge --yes with the SA key deletes it" "^deleted ${P}53 $G3 0xffff infinite 10\.0\.0\.3$" \
	atsctl host1 -k 0x5a5a purge --yes
check "... gone from the SA" gone "$G3"
check_out "the audit is clean again" "^0 finding\(s\): clean$" atsctl host1 -k 0x5a5a audit --state "$STATE"
check_out "purge finds nothing more" "^would delete 0 records$" atsctl host1 purge

# A present port's records are its atsd's: purge asks for each GID's port
# again before deleting. Here its port list is short: host3 at LID 200
# (OpenSM's guid2lid, read at start) and no RMPP, so the walk stops at a
# gap of 64 LIDs before it, and the audit finds host3's records absent.
sim 'ReLink "host3"'
check "host3 plugged back in a third time" wait_for "host3 active" 20 active host3
sm_stop
sed -i "s/^$GUID3 .*/$GUID3 200 200/" "$RUN/cache/guid2lid"
sm_start
check "host3 gets LID 200 from guid2lid" wait_for "LID 200" 20 lid_is host3 200
check "host3 registers 10.0.0.3 (primary)" atsctl host3 register 10.0.0.3 --primary
check "... and 10.0.3.3" atsctl host3 register 10.0.3.3
check "no node with RMPP" rmpp_off
check_out "purge asks again: host3's port is present, nothing would go" \
	"^present ${P}54 $G3 0xffff infinite 10\.0\.3\.3: the port is on the fabric \(LID 200\): kept" \
	atsctl host1 purge
check_out "purge --yes with the SA key keeps them" "^kept 2 records: the port is on the fabric$" \
	atsctl host1 -k 0x5a5a purge --yes
check_json "... as JSON: present, with the port's LID" \
	'd["found"] == 0 and d["present"] == 2 and d["deleted"] == 0 and all(r["action"] == "present" and r["lid"] == 200 for r in d["records"])' \
	atsctl host1 -k 0x5a5a purge --yes --json
check_out "... and host3's records are still in the SA" "10\.0\.3\.3" atsctl host1 dump --gid "$G3"
finish
