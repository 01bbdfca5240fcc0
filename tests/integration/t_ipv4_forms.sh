# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Both encodings of an IPv4 address in ServiceData8 (ATS 3.1: "the
# standard encoding of IPv4 in IPv6"): ::a.b.c.d and ::ffff:a.b.c.d. Every
# lookup finds both, from the SA and through atsd, and prints the address
# once, as a.b.c.d; every --json output parses.
. "$top_srcdir/tests/integration/harness.sh"

fabric_up fabric4.net host1 host2
P=0x10000ce1004154
MAPPED=00000000000000000000ffff0a00002c   # ::ffff:10.0.0.44

check_out "host1 registers 10.0.0.44 as ::ffff:10.0.0.44 (the SM accepts it)" "status 0x0000" \
	srtool host1 --data8 $MAPPED set
check "host2 registers 10.0.0.45 as ::10.0.0.45" atsctl host2 register 10.0.0.45 --primary

check_out "resolve 10.0.0.44 finds the mapped record, printed as 10.0.0.44" \
	"^${P}53 +$G1 +0xffff +infinite +10\.0\.0\.44 \(primary\)$" atsctl host3 resolve 10.0.0.44
check_count "... exactly once" 1 atsctl host3 resolve 10.0.0.44
check_out "resolve ::ffff:10.0.0.44 is the same lookup" "$G1" atsctl host3 resolve ::ffff:10.0.0.44
check_out "resolve 10.0.0.45 finds the native record" "$G2" atsctl host3 resolve 10.0.0.45
check_rc "an IPv6 address ending in the same four octets is not IPv4" 1 "no ATS record" \
	atsctl host3 resolve ::1:10.0.0.44
check_out "reverse shows 10.0.0.44" "^${P}53 +$G1 .* 10\.0\.0\.44 \(primary\)$" atsctl host3 reverse "$G1"
check_out "primary shows 10.0.0.44" "10\.0\.0\.44 \(primary\)$" atsctl host3 primary "$G1"
check_count "dump shows each address once" 2 atsctl host3 dump

# The SM's rules see both forms as one address.
check_out "another system's primary in the other form is refused" "status 0x0200" \
	sh -c "cd $RUN/scratch && SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $SRTOOL --ip 10.0.0.44 set; true"

# Through atsd: its cache misses, it asks the SA the same way.
agent_start host3 "address 10.0.0.3 primary"
check_out "atsd resolves 10.0.0.44 (mapped form)" "^${P}53 +$G1 .* 10\.0\.0\.44 \(primary\)$" \
	agent host3 resolve 10.0.0.44
check_out "... and again from its cache" "10\.0\.0\.44" agent host3 resolve 10.0.0.44
check_json "atsd's answer in JSON names 10.0.0.44 once" \
	'[r["ip"] for r in d["records"]] == ["10.0.0.44"]' agent host3 --json resolve 10.0.0.44

# Every --json output is one document by Python's parser.
check_json "--json resolve" 'd["records"][0]["gid"] == "'"$G1"'"' atsctl host3 --json resolve 10.0.0.44
check_json "--json resolve of nothing" 'd == {"records": []}' atsctl host3 --json resolve 10.9.9.9
check_json "--json reverse" 'len(d["records"]) == 1' atsctl host3 --json reverse "$G1"
check_json "--json primary" 'd["records"][0]["primary"] is True' atsctl host3 --json primary "$G1"
check_json "--json dump" 'len(d["records"]) == 3' atsctl host3 --json dump
check_json "--json port" 'd["gid"] == "'"$(port_gid host3)"'"' atsctl host3 --json port
check_json "--json register" 'd["registered"]["ip"] == "10.0.3.9"' atsctl host3 --json register 10.0.3.9
check_json "--json deregister" 'd == {"deregistered": 1}' atsctl host3 --json deregister 10.0.3.9
check_json "--json status (atsd)" 'd["records"][0]["ip"] == "10.0.0.3"' agent host3 --json status
check_json "--json stats (atsd)" 'd["cache_hits"] >= 1' agent host3 --json stats
check_json "--json ipoib (atsd)" 'isinstance(d, list)' agent host3 --json ipoib
check_json "--json connections (atsd)" 'd == []' agent host3 --json connections
SML=$(atsctl host3 --json port | python3 -c 'import json, sys; print(json.load(sys.stdin)["sm_lid"])')
check_json "--json ping (the SM port answers)" 'd["received"] == 1' atsctl host3 --json ping "$SML" -c 1 -i 0
check_json "--json audit" '"findings" in d and d["ports"] >= 4' atsctl host3 --json audit
finish
