# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Every plugin rule on a live SA: the violating request gets REQ_INVALID,
# the SA keeps nothing of it (lookup and stock saquery agree), the rule's
# counter moves in the state file; a legitimate request of the same shape
# is accepted.
. "$top_srcdir/tests/integration/harness.sh"

# A non-default SA key: OpenSM's default (0x1) earns no trust.
echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
fabric_up fabric4.net host1 host2
GUID1=$(port_guid host1)
STATE="$RUN/osmats-state.json"
P=0x10000ce1004154

# counter RULE N: the state file shows N rejections of RULE.
counter() {
	wait_for "state file counter $1 = $2" 10 grep -q "\"$1\": $2[,}]" "$STATE"
}
# The SA holds no ATS record of GID $1 (atsctl) ...
no_records() {
	atsctl host3 dump --gid "$1" >/dev/null 2>&1
	[ $? -eq 1 ]
}

# Rule 5, ownership.
check_rc "host2 registering host1's GID: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host2 register 10.0.0.1 --primary --gid "$G1"
check "... nothing registered for host1 (atsctl)" no_records "$G1"
check_absent "... nor in stock saquery" "ServiceGID\.+$G1" on host3 "$SAQUERY" -S
check_out "... logged as WRN 7A05 naming requester and record" \
	"WRN 7A05: ATS rule ownership: rejected ServiceRecord Set from LID [0-9]+ port GUID $(port_guid host2): SID ${P}53 GID $G1 PKey 0xffff IP 10\.0\.0\.1: requester does not own" \
	cat "$RUN/osm.log"
check "... counted" counter ownership 1
check "host1 registering its own primary: accepted" atsctl host1 register 10.0.0.1 --primary
check_rc "host2 deleting host1's record: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --sid ${P}53 --gid "$G1" delete
check_out "... the record is still there" "10\.0\.0\.1 \(primary\)" atsctl host3 primary "$G1"
check "... counted" counter ownership 2
check_out "a trusted request (SA key) registers for host1" "SID ${P}54" \
	atsctl host2 -k 0x5a5a register 10.0.1.1 --gid "$G1"
check_out "a trusted request (SA key) deletes host1's record" "deregistered 10\.0\.1\.1" \
	atsctl host2 -k 0x5a5a deregister 10.0.1.1 --gid "$G1"
check_rc "a wrong SA key is not trusted (OpenSM ignores the request)" 3 "no answer from the SA" \
	atsctl host2 -t 200 -r 0 -k 2 register 10.0.1.1 --gid "$G1"
# The key from a file, the environment or standard input: each is trusted.
printf '0x5a5a\n' >"$RUN/smkey"
chmod 600 "$RUN/smkey"
key_stdin() { echo 0x5a5a | atsctl host2 -k - "$@"; }
key_env() {
	local key=$1
	shift
	IBATS_SMKEY=$key atsctl host2 "$@"
}
check_out "--smkey-file: trusted" "SID ${P}54" \
	atsctl host2 --smkey-file "$RUN/smkey" register 10.0.1.1 --gid "$G1"
check_out "IBATS_SMKEY: trusted" "deregistered 10\.0\.1\.1" \
	key_env 0x5a5a deregister 10.0.1.1 --gid "$G1"
check_out "-k - reads a line from a pipe: trusted" "SID ${P}54" \
	key_stdin register 10.0.1.1 --gid "$G1"
check_out "--smkey-file before IBATS_SMKEY" "deregistered 10\.0\.1\.1" \
	key_env 2 --smkey-file "$RUN/smkey" deregister 10.0.1.1 --gid "$G1"

# Rule 6, primary first.
check_rc "host2: secondary before any primary: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host2 register 10.0.2.2 --sid ${P}54
check "... nothing registered for host2" no_records "$G2"
check "... counted" counter primary-first 1
check "host2: primary first" atsctl host2 register 10.0.0.2 --primary
check_out "host2: then the secondary" "SID ${P}54" atsctl host2 register 10.0.2.2
check_rc "host2 deleting its primary while the secondary exists: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --sid ${P}53 delete
check_out "... the primary is still there" "10\.0\.0\.2 \(primary\)" atsctl host3 primary "$G2"
check "... counted" counter primary-first 2
check "host2 deletes the secondary" atsctl host2 deregister 10.0.2.2
check_out "... then the primary" '^status 0x0000$' srtool host2 --sid ${P}53 delete

# Rule 7, one address once per port.
check "host1 adds 10.0.1.1 on ...54" atsctl host1 register 10.0.1.1
check_rc "host1: 10.0.1.1 again on ...55: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host1 register 10.0.1.1 --sid ${P}55
check_count "... host1 still has two records" 2 atsctl host3 reverse "$G1"
check "... counted" counter port-duplicate 1
check_out "host1: re-registering 10.0.1.1 on its own SID is a refresh" "SID ${P}54" \
	atsctl host1 register 10.0.1.1 --sid ${P}54

# Rule 8, duplicate addresses across systems.
check_rc "host2 claiming host1's primary 10.0.0.1: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host2 register 10.0.0.1 --primary
check_out "... logged with the holder" "WRN 7A08: .*10\.0\.0\.1 is the primary address of $G1" \
	cat "$RUN/osm.log"
check_count "... 10.0.0.1 still resolves to host1 only" 1 atsctl host3 resolve 10.0.0.1
check "... counted" counter duplicate-address 1
check "host4 port 1 takes 10.0.0.4" atsctl host4 register 10.0.0.4 --primary
G4P2=$(printf '0x%016x' $(( $(port_guid host4) + 1 )))
check "host4 port 2 (same system image) may share it" \
	atsctl host4 -k 0x5a5a register 10.0.0.4 --primary --gid "$G4P2"
check_count "... 10.0.0.4 resolves to both ports" 2 atsctl host3 resolve 10.0.0.4

# Rules 1-4 from the record alone, counted too.
check_rc "ServiceData8 without an address: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --data8 00000000000000000000000000000000 set
check "the address rule is counted" counter address 1
check_rc "ServiceKey not zero: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --ip 10.0.5.5 --key 1 set
check "the service-key rule is counted" counter service-key 1

# Rule 9 after a reload at the next sweep: lease bounds 60..3600.
cat >"$RUN/osmats.conf" <<'CONF'
lease_min 60
lease_max 3600
CONF
check "OpenSM sweeps on SIGHUP" sm_sweep
check "the plugin reloads its config" wait_for "reload" 10 grep -q "reloaded $RUN/osmats.conf" "$RUN/osm.log"
check_rc "lease 7200 above lease_max: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host3 register 10.0.0.3 --lease 7200
check_rc "infinite lease above lease_max: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host3 register 10.0.0.3
check_rc "lease 10 below lease_min: REQ_INVALID" 3 "SA status 0x0200" \
	atsctl host3 register 10.0.0.3 --lease 10
check "... nothing registered for host3" no_records "$(port_gid host3)"
check "... counted" counter lease 3
check "lease 600: accepted" atsctl host3 register 10.0.0.3 --lease 600
check_out "... the SA holds lease 600" '"lease": 600' \
	atsctl host2 --json primary "$(port_gid host3)"

# Clamp leases instead of rejecting; warn about duplicate addresses.
cat >"$RUN/osmats.conf" <<'CONF'
lease_min 60
lease_max 3600
lease_clamp yes
duplicate_address warn
CONF
check "OpenSM sweeps again" sm_sweep
check "the plugin reloads its config again" wait_for "second reload" 10 \
	sh -c "[ \$(grep -c 'reloaded $RUN/osmats.conf' '$RUN/osm.log') -ge 2 ]"
check_out "lease 7200 is now clamped to 3600" "SID ${P}53" atsctl host2 register 10.0.0.2 --primary --lease 7200
check_out "... the SA holds lease 3600" '"lease": 3600' \
	atsctl host3 --json primary "$G2"
check_out "duplicate_address warn: host3 may take host1's 10.0.0.1" "registered" \
	atsctl host3 register 10.0.0.1 --lease 600
check_out "... with a WRN 7A08" "WRN 7A08: ATS rule duplicate-address: accepted despite" cat "$RUN/osm.log"
check "... counted as warned" wait_for "warned counter" 10 grep -q '"warned": {.*"duplicate-address": 1' "$STATE"
check "... 'clamped' counted" wait_for "clamped counter" 10 grep -q '"clamped": 1,' "$STATE"

# A broken config on reload keeps the old settings.
echo "lease_clamp perhaps" >"$RUN/osmats.conf"
check "OpenSM sweeps a third time" sm_sweep
check "the bad line is reported with file:line" wait_for "ERR 7A20" 10 \
	grep -q "ERR 7A20: $RUN/osmats.conf:1: lease_clamp: 'perhaps' is not yes or no" "$RUN/osm.log"
check_out "... and the previous settings stay" "ERR 7A21" cat "$RUN/osm.log"
check_out "lease 7200 still clamped" "registered" atsctl host1 register 10.0.0.1 --primary --lease 7200

check "state file counts the ATS records per partition (scanned at most 10 s after Sets)" \
	wait_for "state file partitions" 15 grep -Eq '^    \{"pkey": "0xffff", "ats_records": [1-9][0-9]*\}' "$STATE"
check_out "... and lists no record of a port on the fabric" '"absent": 0,' cat "$STATE"
check "ServiceRecord queries were answered from the index" wait_for "the index counters" 10 \
	grep -Eq '"gets_indexed": [1-9][0-9]*, "gets_fallback": 0' "$STATE"
finish
