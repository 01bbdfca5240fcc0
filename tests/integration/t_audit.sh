# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsctl audit: a clean fabric audits clean; an inventory catches a deleted
# and an added record; then, with the plugin's rules off, one record of
# each kind of finding, each reported exactly once.
. "$top_srcdir/tests/integration/harness.sh"

cat >"$RUN/partitions.conf" <<'PART'
Default=0x7fff, ipoib : ALL=full ;
storage=0x8001 : ALL=full ;
PART
# the audit must see what the plugin would refuse
rules_off
fabric_up fabric4.net host1 host2 host3
G4P2=$(printf '0x%016x' $(( $(port_guid host4) + 1 )))
P=0x10000ce1004154
STATE="$RUN/osmats-state.json"

check "host1 registers 10.1.0.1" atsctl host1 register 10.1.0.1 --primary
check "host2 registers 10.1.0.2 and 10.2.0.2" \
	sh -c "cd $RUN/scratch && SIM_HOST=host2 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL register 10.1.0.2 --primary && SIM_HOST=host2 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL register 10.2.0.2"
check_out "a clean fabric audits clean (exit 0)" "^0 finding\(s\): clean$" atsctl host4 audit
check "the inventory is saved" atsctl host4 audit --save "$RUN/inventory"
check "host2 deletes 10.2.0.2" atsctl host2 deregister 10.2.0.2
check "host1 adds 10.1.0.9" atsctl host1 register 10.1.0.9
check_rc "--inventory finds the deleted record" 1 "inventory missing: ${P}54 $G2 0xffff [0-9]+ 10\.2\.0\.2" \
	atsctl host4 audit --inventory "$RUN/inventory"
check_rc "... and the added one" 1 "inventory extra: ${P}54 $G1 0xffff [0-9]+ 10\.1\.0\.9" \
	atsctl host4 audit --inventory "$RUN/inventory"
check_json "--json: the differences hold records as objects" \
	"sorted((x['diff'], x['record']['ip'], x['record']['gid'], type(x['record']['lease']) is int)
	        for x in d['inventory']) == [('extra', '10.1.0.9', '$G1', True), ('missing', '10.2.0.2', '$G2', True)]" \
	atsctl host4 --json audit --inventory "$RUN/inventory"
check "clean up for the next part" atsctl host1 deregister 10.1.0.9

# One record per kind of finding.
srtool host1 --sid ${P}54 --ip 10.1.0.5 set >/dev/null                      # duplicate-on-port
srtool host1 --sid ${P}55 --ip 10.1.0.5 set >/dev/null
atsctl host1 register 10.1.0.9 --sid ${P}56 --lease 600 >/dev/null         # finite-lease
# OpenSM puts new records at the head of its list: the newest of a GID is
# the one a cut GetTable answer shows, so this comes last.
srtool host1 --sid 0x10000CE100415553 --ip 10.1.5.53 set >/dev/null        # sid-block
# service-name, a name with a quote, a backslash, a control byte and bytes
# that are not UTF-8: every output must stay valid and show it escaped.
srtool host2 --sid ${P}60 --name $'Oth"er\\Ser\001vice\xff\xfe' --ip 10.2.0.60 set >/dev/null
atsctl host2 register 10.1.0.1 --primary >/dev/null                        # duplicate-primary
atsctl host2 register 10.2.8.1 --primary --pkey 0x8001 >/dev/null          # pkey-not-held (below)
atsctl host3 register 10.3.0.1 --primary >/dev/null                        # gid-absent (below)
srtool host4 --data8 00000000000000000000ffff0a040001 set >/dev/null      # ipv4-form
srtool host4 --sid ${P}54 --ip 127.0.0.1 set >/dev/null                    # address
srtool host4 --sid ${P}55 --ip 10.4.0.55 --key 1 set >/dev/null            # unused-fields
srtool host4 --gid "$(printf 'fe80::%x:%x' $(( G4P2 >> 16 & 0xffff )) $(( G4P2 & 0xffff )))" \
	--sid ${P}54 --ip 10.4.2.54 set >/dev/null                           # no-primary
# host2 loses partition 0x8001; host3 leaves the fabric (no flush).
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x8001 : %s=full ;\n' \
	"$(port_guid host1)" >"$RUN/partitions.conf"
check "OpenSM rereads its partitions" sm_sweep
sim 'Unlink "host3"'
host3_gone() {
	grep -q "\"gid\": \"$G3\", .*\"port_present\": false" "$STATE"
}
check "host3 is gone from the fabric" wait_for "host3 gone" 10 host3_gone

# host1 still holds 0x8001: the SA shows a partition's records only to its members.
atsctl host1 -k 1 --json audit --state "$STATE" >"$RUN/audit.json"
echo "audit exit status $?" >"$RUN/audit.rc"
check_out "findings: exit status 1" "^audit exit status 1$" cat "$RUN/audit.rc"
check_json "the audit is valid JSON with the hostile name in it, escaped" \
	'[f["service_name"] for f in d["findings"] if f["kind"] == "service-name"] == ["Oth\"er\\Ser\x01vice\ufffd\ufffd"]' \
	cat "$RUN/audit.json"
check_out "text output shows the name escaped, no control byte" \
	'service-name: .* \(it is "Oth\\"er\\\\Ser\\u0001vice\\ufffd\\ufffd"\)$' \
	sh -c "cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -k 1 audit; true"
for kind in sid-block service-name no-primary duplicate-on-port duplicate-primary \
	    ipv4-form address unused-fields gid-absent pkey-not-held finite-lease; do
	check "'$kind' reported exactly once" \
		sh -c "[ \$(grep -c '\"kind\": \"$kind\"' $RUN/audit.json) -eq 1 ]"
done
# Findings are objects: the record's members typed as in every --json
# record, the one it conflicts with as "other".
finding() { echo "[f for f in d['findings'] if f['kind'] == '$1'][0]"; }
check_json "each finding names its record, typed" \
	"$(finding gid-absent) == {'severity': 'error', 'kind': 'gid-absent',
	 'detail': 'no port on the fabric has this GID', 'sid': '${P}53', 'gid': '$G3', 'pkey': '0xffff',
	 'lease': 4294967295, 'ip': '10.3.0.1', 'primary': True}" \
	cat "$RUN/audit.json"
check_json "the duplicate primary names both records" \
	"[(r['gid'], r['ip'], r['sid']) for r in ($(finding duplicate-primary), $(finding duplicate-primary)['other'])] == [
	 ('$G1', '10.1.0.1', '${P}53'), ('$G2', '10.1.0.1', '${P}53')]" \
	cat "$RUN/audit.json"
check_json "the service-name finding: its record and the name" \
	"(lambda f: f['sid'] == '${P}60' and f['ip'] == '10.2.0.60' and f['pkey'] == '0xffff')($(finding service-name))" \
	cat "$RUN/audit.json"
check_out "the SM-side counters come along (--state)" '"sm_counters": \{' cat "$RUN/audit.json"
check_out "text output: severity, kind, record" "^error pkey-not-held: the port \(LID [0-9]+\) does not hold PKey 0x8001" \
	sh -c "cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -k 1 audit --state $STATE; true"
check_out "without the SA key it says what it could not check" "PKey membership and ServiceKeys not checked" \
	sh -c "cd $RUN/scratch && SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL audit; true"
sm_stop
check_rc "no SM: could not query, exit 3" 3 "audit: " atsctl host4 -t 100 -r 0 audit
check_rc "a --state file that cannot be read is an error (exit 3)" 3 \
	"audit --state $RUN/nosuch: No such file or directory" atsctl host4 audit --state "$RUN/nosuch"
echo '{"not": "a state file"}' >"$RUN/bogus.json"
check_rc "a --state file that is not the plugin's is an error (exit 3)" 3 \
	"not a state file of the osmats plugin" atsctl host4 audit --state "$RUN/bogus.json"
finish
