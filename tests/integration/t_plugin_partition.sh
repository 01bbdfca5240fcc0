# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Issue 11: partitions whatever the component mask, the membership bit,
# the default SA key, the per-port record cap and the refusal log limit.
# OpenSM runs with its default sa_key (0x1) and two partitions: the
# default one (everyone) and 0x8001 (host1 only).
. "$top_srcdir/tests/integration/harness.sh"

cat >"$RUN/partitions.conf" <<'PART'
Default=0x7fff, ipoib : ALL=full ;
PART
fabric_up fabric4.net host1 host2 host3
GUID1=$(port_guid host1)
GUID2=$(port_guid host2)
GUID4=$(port_guid host4)
STATE="$RUN/osmats-state.json"
P=0x10000ce1004154
NOPKEY=7fffc3 # SID, GID, name, ServiceData8: no P_Key bit

counter() {
	wait_for "state file counter $1 = $2" 10 grep -q "\"$1\": $2[,}]" "$STATE"
}
# Nothing of GID $1 in the SA, as the SA shows it to host $2.
no_records() {
	atsctl "$2" dump --gid "$1" >/dev/null 2>&1
	[ $? -eq 1 ]
}
# Partition 0x8001 for host1 only; re-read at a sweep.
printf 'Default=0x7fff, ipoib : ALL=full ;\nstorage=0x8001 : %s=full ;\n' "$GUID1" \
	>"$RUN/partitions.conf"
check "OpenSM reads partition 0x8001" sm_sweep

# Item 1: the partition is checked whatever the component mask.
check_rc "host2 (not in 0x8001), P_Key bit left out: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --pkey 0x8001 --ip 10.8.0.1 --mask $NOPKEY set
check_out "... logged as WRN 7A0A" \
	"WRN 7A0A: ATS rule partition: rejected ServiceRecord Set from LID [0-9]+ port GUID $GUID2: SID ${P}53 GID $G2 PKey 0x8001 IP 10\.8\.0\.1: requester's port is not a member of P_Key 0x8001's partition" \
	cat "$RUN/osm.log"
check_rc "... with the bit set too: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --pkey 0x8001 --ip 10.8.0.1 set
check_rc "P_Key 0x0000, no P_Key bit: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --pkey 0x0000 --ip 10.8.0.1 --mask $NOPKEY set
check_rc "P_Key 0x8000, no P_Key bit: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --pkey 0x8000 --ip 10.8.0.1 --mask $NOPKEY set
check "... counted" counter partition 4
check "... nothing of host2 in the SA (host1, a member of 0x8001, asks)" no_records "$G2" host1
check_absent "... nor in stock saquery" "ServiceGID\.+$G2" on host1 "$SAQUERY" -S
check_out "host1, the member, publishes its 10.8.0.1 in 0x8001" "registered" \
	atsctl host1 register 10.8.0.1 --primary --pkey 0x8001
check_out "... stock saquery on host1 sees it" "ServiceP_Key\.+0x8001" on host1 "$SAQUERY" -S
check "... host2 does not (not a member)" no_records "$G1" host2
check_rc "host1 with the bit left out and P_Key 0x0000: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host1 --sid ${P}60 --pkey 0 --ip 10.8.0.60 --mask $NOPKEY set

# Item 2: 0x7FFF and 0xFFFF are one partition.
check "host1 registers primary 10.7.0.1 (0xffff)" atsctl host1 register 10.7.0.1 --primary
check_rc "host2 takes 10.7.0.1 under 0x7fff: REQ_INVALID (duplicate address)" 3 "SA status 0x0200" \
	atsctl host2 register 10.7.0.1 --primary --pkey 0x7fff
check_out "... WRN 7A08" "WRN 7A08: .*PKey 0x7fff IP 10\.7\.0\.1: 10\.7\.0\.1 is the primary address of $G1" \
	cat "$RUN/osm.log"
check_count "... 10.7.0.1 resolves to host1 only" 1 atsctl host3 resolve 10.7.0.1
# Issue 24 item 4: the host is told why (class 0x36), its own refusals only.
check_rc "... register tells host2 the SM's reason" 3 \
	"atsctl: register 10\.7\.0\.1: refused by the SM: rule duplicate-address \(7A08\): 10\.7\.0\.1 is the primary address of $G1 in P_Key 0x7fff" \
	atsctl host2 register 10.7.0.1 --primary --pkey 0x7fff
check_json "... atsctl why: rule, record, owner (host2 is in the partition)" \
	"d['refusals'][0]['code'] == '7A08' and d['refusals'][0]['rule'] == 'duplicate-address' and d['refusals'][0]['ip'] == '10.7.0.1' and d['refusals'][0]['pkey'] == '0x7fff' and d['refusals'][0]['owner'] == '$G1' and d['refusals'][0]['method'] == 'Set'" \
	atsctl host2 why --json
# Issue 37: the owner's node by name, from a stock node name map (bare name).
printf '# ibnetdiscover.map\n%s rack1-node1\n' "$(node_guid host1)" >"$RUN/node.map"
check_out "... with --node-name-map, the owner's node named" \
	"is the primary address of $G1 in P_Key 0x7fff \(owner: node rack1-node1\)\$" \
	atsctl host2 why --node-name-map "$RUN/node.map"
check_json "... and in --json (owner_node)" "d['refusals'][0]['owner_node'] == 'rack1-node1'" \
	atsctl host2 why --json --node-name-map "$RUN/node.map"
check_rc "... host4 reads none of host2's refusals" 1 "keeps no refusal" atsctl host4 why
check_rc "host1: a second primary under 0x7fff: REQ_INVALID (port duplicate)" 3 "SA status 0x0200" \
	atsctl host1 register 10.7.0.9 --primary --pkey 0x7fff
check_out "... WRN 7A07 names the other form" "WRN 7A07: .*holds SID ${P}53 in this partition under P_Key 0xffff" \
	cat "$RUN/osm.log"
check "host2: primary 10.7.0.2 under 0x7fff" atsctl host2 register 10.7.0.2 --primary --pkey 0x7fff
check_out "... then a secondary under 0xffff: its primary is found" "SID ${P}54" \
	atsctl host2 register 10.7.2.2 --sid ${P}54
check_rc "... and the primary's removal waits for it (primary first)" 3 '^status 0x0200$' \
	srtool host2 --sid ${P}53 --pkey 0x7fff delete
# Lookups leave the P_Key out of the mask and keep the partition: host1
# holds primaries in two partitions, too many for one SubnAdmGet
# (ERR 4C05), so its primary is then asked for by P_Key.
check_out "primary of host1 in 0x8001, asked by host1 (a member): 10.8.0.1" \
	"^${P}53 +$G1 +0x8001 .*10\.8\.0\.1 \(primary\)" atsctl host1 primary "$G1" --pkey 0x8001
check_out "... in 0x7fff: 10.7.0.1 (0xffff), by P_Key in both forms: 3 requests" \
	"primary $G1: 1 record\(s\) in 3 SA request\(s\)" atsctl host1 -n -v primary "$G1" --pkey 0x7fff
check_out "host2 sees host1's one primary it may: one SubnAdmGet" \
	"primary $G1: 1 record\(s\) in 1 SA request\(s\)" atsctl host2 -n -v primary "$G1"
check_count "reverse of host1 in 0x8001: that record alone" 1 atsctl host1 reverse "$G1" --pkey 0x8001
check_out "host1's MAD layer without RMPP" ok simhost host1 rmpp off
check_out "... the walk reads SID ...53 of host1 by P_Key: 1 + 256 + 1 requests" \
	"reverse $G1: 1 record\(s\) in 258 SA request\(s\)" atsctl host1 -n -v reverse "$G1" --pkey 0x8001
check_out "host1's MAD layer with RMPP again" ok simhost host1 rmpp on
check_out "host2's primary under 0x7fff found as 0xffff" "^${P}53 +$G2 +0x7fff .*10\.7\.0\.2" \
	atsctl host3 primary "$G2"

# Item 3: the default SA key (0x1) buys nothing.
check_out "a WRN at load: sa_key is the default" "WRN 7A26: OpenSM's sa_key is 0x0000000000000001 \(the default\)" \
	cat "$RUN/osm.log"
check_rc "host2 -k 1 registering for host1: REQ_INVALID (ownership)" 3 "SA status 0x0200" \
	atsctl host2 -k 1 register 10.0.1.1 --gid "$G1"
check_rc "host2 -k 1 deleting host1's primary: REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --smkey 1 --sid ${P}53 --gid "$G1" delete
check_out "... host1's primary stays" "10\.7\.0\.1 \(primary\)" atsctl host3 primary "$G1"

# Item 4 of issue 24: a requester outside the partition (its rule off
# lets the Set reach the duplicate-address rule) learns the rule, not the
# owner. Then its queries are rate-limited, per port.
echo "enforce_partition no" >"$RUN/osmats.conf"
check "reload at a sweep: enforce_partition no" sm_sweep
check_rc "host3 (not in 0x8001) takes host1's 10.8.0.1 there: the rule, no owner" 3 \
	"refused by the SM: rule duplicate-address \(7A08\): 10\.8\.0\.1 is the primary address of another port \(not shown" \
	atsctl host3 register 10.8.0.1 --primary --pkey 0x8001
check_json "... atsctl why: 7A08, owner withheld" \
	"d['refusals'][0]['code'] == '7A08' and 'owner' not in d['refusals'][0] and d['refusals'][0]['owner_withheld'] and '$G1' not in json.dumps(d)" \
	atsctl host3 why --json
why_busy() {
	local i
	for i in $(seq 20); do
		atsctl host3 why >/dev/null 2>"$RUN/why.err"
		grep -q "the SM is busy" "$RUN/why.err" && return 0
	done
	return 1
}
check "... host3 asking on: BUSY within 20 more one-page queries (16 answers per 10 s)" why_busy
check_out "... host2 is still answered (per port)" "0x7fff: SA status 0x0200: rule duplicate-address" \
	atsctl host2 why
# trusted_guids: host4 may register for others, and is capped too.
cat >"$RUN/osmats.conf" <<CONF
trusted_guids $GUID4
max_records_per_port 5
CONF
check "reload at a sweep" sm_sweep
check "... reloaded" wait_for "reload" 10 grep -q "reloaded $RUN/osmats.conf" "$RUN/osm.log"
check_rc "trusted host4, P_Key 0x8000 for host3: REQ_INVALID (invalid P_Key)" 3 '^status 0x0200$' \
	srtool host4 --pkey 0x8000 --gid "$G3" --ip 10.3.0.1 --mask $NOPKEY set
check_rc "trusted host4, 0x8001 for host3 (no member): REQ_INVALID" 3 '^status 0x0200$' \
	srtool host4 --pkey 0x8001 --gid "$G3" --ip 10.3.0.1 --mask $NOPKEY set
check_out "trusted host4 registers host3's primary" "registered" \
	atsctl host4 register 10.3.0.1 --primary --gid "$G3"
check_rc "trusted host4 (not in 0x8001), P_Key bit left out, deleting host1's 0x8001 primary: REQ_INVALID" \
	3 '^status 0x0200$' srtool host4 --sid ${P}53 --gid "$G1" --pkey 0x8001 --mask $NOPKEY delete
check_out "... logged as WRN 7A56" \
	"WRN 7A56: SA rule partition: rejected ServiceRecord Delete from LID [0-9]+ port GUID $GUID4: SID ${P}53 GID $G1 PKey 0x8001 .*: requester's port is not a member" \
	cat "$RUN/osm.log"
check_out "... host1's 10.8.0.1 stays" "10\.8\.0\.1" atsctl host1 dump --gid "$G1" --pkey 0x8001

# Item 5: at most 5 records per port, every service, trusted included.
srtool host3 --sid 0x100 --name "Other Service" --ip 10.3.1.1 --count 10 set >"$RUN/cap.out" 2>&1
check_out "host3: 10 other-service records, the 5th and later refused" '^set 4$' cat "$RUN/cap.out"
check_out "... with NO_RESOURCES" '^status 0x0100$' cat "$RUN/cap.out"
check_out "... logged as WRN 7A0B" "WRN 7A0B: rule record-cap: rejected ServiceRecord Set .*port GUID $(port_guid host3): SID 0x0000000000000104 .*holds 5 ServiceRecords" \
	cat "$RUN/osm.log"
check_out "an update of a held record is not a new one" '^status 0x0000$' \
	srtool host3 --sid 0x101 --name "Other Service" --ip 10.3.9.9 set
check_rc "trusted host4 adding for host3: NO_RESOURCES" 3 '^status 0x0100$' \
	srtool host4 --sid ${P}54 --gid "$G3" --ip 10.3.0.2 set
check_out "host3 deletes one ..." '^status 0x0000$' srtool host3 --sid 0x100 --name "Other Service" delete
check_out "... and may add one again" '^status 0x0000$' \
	srtool host3 --sid 0x200 --name "Other Service" --ip 10.3.1.1 set
check_rc "an alias of a port's GUID is the port (GID fe80::GUID3 with another prefix)" 3 '^status 0x0100$' \
	srtool host2 --sid 0x300 --gid "fec0${G3#fe80}" --name "Other Service" --ip 10.3.1.1 set
check_rc "GIDs on no port share one account: the 6th is refused" 3 '^set 5$' \
	srtool host2 --sid 0x400 --gid fe80::dead:beef:0:1 --name "Other Service" --ip 10.9.0.1 --mask $NOPKEY --count 10 set
check_rc "... whatever GID it names" 3 '^status 0x0100$' \
	srtool host1 --sid 0x500 --gid fe80::dead:beef:0:2 --name "Other Service" --ip 10.9.0.1 --mask $NOPKEY set
check "... counted" counter record-cap 5

# Item 6: a flood of refusals costs the log 5 lines and a summary.
check_out "host2 sends 200 foreign-GID Sets" '^failed 200$' \
	srtool host2 --gid "$G1" --ip 10.0.6.6 --repeat 200 set
# host2's refusals all along the test: 5 lines per 10 s interval at most
# (the intervals its lines span, from the log's own times: a slow run,
# under the sanitizers, spans more than two).
host2_lines=$(grep -c "WRN 7A0.: .*port GUID $GUID2:" "$RUN/osm.log")
span=$(grep "WRN 7A0.: .*port GUID $GUID2:" "$RUN/osm.log" | awk '{ split($3, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]; if (NR == 1) f = s; l = s } END { print l - f }')
most=$((5 * (span / 10 + 1)))
check "... host2's refusal lines in the log: $host2_lines in ${span} s, at most $most" [ "$host2_lines" -le "$most" ]
check "... every refusal counted" counter ownership 202
check_out "... and a summary within the interval" \
	"WRN 7A13: suppressed [0-9]+ refusal line\(s\) from port GUID $GUID2 in the last [0-9]+ s \(by rule: .*ownership [0-9]+.*\)" \
	sh -c "timeout 20 sh -c 'until grep -q \"WRN 7A13: .*$GUID2\" $RUN/osm.log; do sleep 0.2; done'; grep 'WRN 7A13' $RUN/osm.log"
finish
