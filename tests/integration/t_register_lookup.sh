# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Register primary and secondary records from two hosts, look them up from
# a third, deregister; a failover pair sharing one primary address.
# The walk's answers: an SA without RMPP (rmpp_off).
. "$top_srcdir/tests/integration/harness.sh"

# A non-default SA key: OpenSM's default (0x1) earns no trust.
echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
fabric_start fabric4.net
rmpp_off
G1=$(port_gid host1)
G2=$(port_gid host2)
G4=$(port_gid host4)
[ -n "$G1" ] && [ -n "$G2" ] && [ -n "$G4" ] || { echo "no port GIDs"; exit 1; }

P=0x10000ce1004154
check_out "host1 registers its primary 10.0.0.1 on SID ...53" "SID ${P}53 \(primary\)" \
	atsctl host1 register 10.0.0.1 --primary
check_out "host1 registers 10.0.1.1 on the next SID ...54" "SID ${P}54" \
	atsctl host1 register 10.0.1.1
check_out "host1 registers fd00::1 on SID ...55" "SID ${P}55" \
	atsctl host1 register fd00::1
check_out "registering 10.0.1.1 again reuses SID ...54" "SID ${P}54" \
	atsctl host1 register 10.0.1.1
check_out "host2 registers its primary 10.0.0.2" "SID ${P}53" \
	atsctl host2 register 10.0.0.2 --primary
check_out "a first non-primary registration becomes the primary" "SID ${P}53" \
	atsctl host4 register 10.0.0.4

check_out "host3 resolves 10.0.0.1 to host1" "\"gid\": \"$G1\", \"pkey\": \"0xffff\", \"lease\": 4294967295, \"ip\": \"10.0.0.1\", \"primary\": true" \
	atsctl host3 --json resolve 10.0.0.1
check_out "host3 resolves fd00::1 to host1 (SID ...55)" "^${P}55 +$G1 +0xffff +infinite +fd00::1" \
	atsctl host3 resolve fd00::1
check_out "reverse of host1 lists its three addresses in SID order" \
	"^${P}53 .*10\.0\.0\.1 \(primary\)$" atsctl host3 reverse "$G1"
check_count "reverse of host1 has exactly 3 records" 3 atsctl host3 reverse "$G1"
check_out "reverse by port GUID (local subnet prefix)" "10\.0\.0\.2" \
	atsctl host3 reverse "$(port_guid host2)"
GUID2=$(port_guid host2)
check_out "a GUID without 0x is hex too" "10\.0\.0\.2" atsctl host3 reverse "${GUID2#0x}"
check_out "primary of host2 is 10.0.0.2" "^${P}53 +$G2 .* 10\.0\.0\.2 \(primary\)" \
	atsctl host3 primary "$G2"
check_out "dump --sid ...54 finds host1's secondary" "^${P}54 +$G1 .*10\.0\.1\.1$" \
	atsctl host3 dump --sid ${P}54
check_out "dump --sid primary lists three hosts (walk with per-port Gets)" \
	"\"records\": \[" atsctl host3 --json dump --sid ${P}53
check_count "dump --sid primary has exactly 3 records" 3 atsctl host3 dump --sid ${P}53
check_out "... and says GIDs not on the fabric can be missed without RMPP" \
	"records of GIDs not on the fabric can be missing" atsctl host3 dump --sid ${P}53
check_json "... in JSON too" 'd["partial"] is True and len(d["records"]) == 3' \
	atsctl host3 --json dump --sid ${P}53
check_count "dump lists all 5 records" 5 atsctl host3 dump
check_out "dump reports a SubnAdmGet walk (no RMPP)" "SubnAdmGet walk, no RMPP" \
	atsctl host3 -v dump --gid "$G1"

# Failover pair (spec 2.2): host4's second port holds host4's primary
# address too. The simulated host has port 1 only, so port 1 registers for
# port 2 with the (non-default) SA key (ibsim numbers port GUIDs node GUID + port).
G4P2=$(printf '0x%016x' $(( $(port_guid host4) + 1 )))
check "host4 port 2 takes 10.0.0.4 as its primary (trusted)" \
	atsctl host4 -k 0x5a5a register 10.0.0.4 --primary --gid "$G4P2"
check_out "resolve 10.0.0.4 returns both ports" "$G4" atsctl host3 resolve 10.0.0.4
check_count "resolve 10.0.0.4 has exactly 2 records" 2 atsctl host3 resolve 10.0.0.4

check_out "host1 deregisters 10.0.1.1" "deregistered 10\.0\.1\.1 \(1 record\)" \
	atsctl host1 deregister 10.0.1.1
check_rc "10.0.1.1 no longer resolves (exit 1)" 1 "no ATS record" \
	atsctl host3 resolve 10.0.1.1
check_rc "deregistering it again finds nothing (exit 1)" 1 "no record of that address" \
	atsctl host1 deregister 10.0.1.1
check_out "the freed SID ...54 is used by the next registration" "SID ${P}54" \
	atsctl host1 register 10.0.2.1
check_rc "primary of a GID without records exits 1" 1 "no primary ATS record" \
	atsctl host3 primary "$(port_gid host3)"

# One partition, two membership forms: lookups match as the rules do.
check_out "resolve --pkey 0x7fff finds host1's 0xffff record" "$G1 +0xffff .*10\.0\.0\.1" \
	atsctl host3 resolve 10.0.0.1 --pkey 0x7fff
check_count "reverse --pkey 0x7fff: host1's 3 records" 3 atsctl host3 reverse "$G1" --pkey 0x7fff
check_out "primary --pkey 0x7fff" "10\.0\.0\.1 \(primary\)" atsctl host3 primary "$G1" --pkey 0x7fff
check_count "dump --pkey 0x7fff: as many as dump" "$(atsctl host3 dump | grep -c '^0x')" \
	atsctl host3 dump --pkey 0x7fff
# ... in the SA requests of one P_Key: ServiceP_Key stays out of the
# component mask and the partition is kept locally, so the walk is one
# SubnAdmGet per SID of the block (not one per SID and membership form),
# after the GetTable whose cut answer starts it; resolve one GetTable
# whose one record fits a MAD, primary one SubnAdmGet (atsctl -v counts).
check_out "reverse --pkey 0x7fff walks the block once: 1 + 256 SA requests" \
	": 3 record\(s\) in 257 SA request\(s\) \(SubnAdmGet walk" \
	atsctl host3 -n -v reverse "$G1" --pkey 0x7fff
check_out "resolve --pkey 0x7fff: one GetTable (one record, not cut)" \
	": 1 record\(s\) in 1 SA request\(s\)" \
	atsctl host3 -n -v resolve 10.0.0.1 --pkey 0x7fff
check_out "primary --pkey 0x7fff: one SubnAdmGet" "primary $G1: 1 record\(s\) in 1 SA request\(s\)" \
	atsctl host3 -n -v primary "$G1" --pkey 0x7fff

# Output: not found in one style on stderr, the state by name, JSON types.
no_stdout() { [ -z "$("$@" 2>/dev/null)" ]; }
check_rc "not found: the address as typed (exit 1)" 1 "^atsctl: 10\.9\.9\.9: not found" \
	atsctl host3 resolve 10.9.9.9
check "... on stderr alone" no_stdout atsctl host3 resolve 10.9.9.9
check_rc "primary not found: the GID as typed" 1 "^atsctl: $(port_gid host3): not found" \
	atsctl host3 primary "$(port_gid host3)"
check_rc "dump not found, on stderr" 1 "^atsctl: dump: not found" atsctl host3 dump --sid ${P}99
check "... on stderr alone" no_stdout atsctl host3 dump --sid ${P}99
check_out "port prints the state's name" ", state Active, " atsctl host3 port
check_json "port --json: the state's name and number, LIDs as numbers" \
	'd["state"] == "Active" and d["state_num"] == 4 and type(d["lid"]) is int and type(d["sm_lid"]) is int and type(d["port"]) is int' \
	atsctl host3 --json port
REC_TYPES='all(type(r["lease"]) is int and type(r["primary"]) is bool and r["sid"].startswith("0x") and r["pkey"].startswith("0x") for r in d["records"])'
check_json "resolve --json: records are objects, numbers numbers" "len(d['records']) == 1 and $REC_TYPES" \
	atsctl host3 --json resolve 10.0.0.1
check_json "dump --json: the same types" "len(d['records']) > 5 and $REC_TYPES" atsctl host3 --json dump
check_json "resolve IP -j -v -n: atsctl's own options after the command, JSON" \
	'len(d["records"]) == 1' atsctl host3 resolve 10.0.0.1 -j -v -n
check_out "... and -v's request count" "resolve 10\.0\.0\.1: 1 record\(s\) in [0-9]+ SA request" \
	atsctl host3 resolve 10.0.0.1 -j -v -n
check_json "register -j (after the command): an object" 'd["registered"]["ip"] == "10.0.2.1"' \
	atsctl host1 register 10.0.2.1 -j
check_rc "JSON of an empty lookup is an empty list (exit 1)" 1 '^\{"records": \[\]\}$' \
	atsctl host3 --json resolve 10.9.9.9
finish
