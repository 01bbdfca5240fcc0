# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# SM failover with replication (issue 14): both SMs share a replication
# key file, the standby's plugin keeps a shadow of every ServiceRecord and
# installs it when it takes over. The new SA answers with every live record
# at once (ATS or not, finite lease kept, deleted ones absent), no agent has
# to register again, and a lookup never fails once the new SA answers.
. "$top_srcdir/tests/integration/harness.sh"

repl_sm_opts >"$RUN/opensm.extra"
SAKEY=0x00000000005EC12E # the site sa_key: atsctl sm's trust
echo "sa_key $SAKEY" >>"$RUN/opensm.extra"
fabric_up fabric4.net host1 host2 host4
LID0=$(port_lid smhost)
[ -n "$G1" ] && [ -n "$G2" ] && [ -n "$G4" ] && [ -n "$LID0" ] || { echo "no port GIDs"; exit 1; }
P=0x10000ce1004154
OTHER=0x1234567800000001
M="$RUN/osmats-state.json"
S="$RUN/sm2/osmats-state.json"
N=5 # live records: host1's 2, host2's primary, the other service, the leased one

# (a) an agent whose next verify is an hour away.
agent_start host1 "verify_interval 3600" "sm_poll_interval 1" "backoff_max 2" \
	"address 10.1.0.1 primary" "address 10.1.0.2"
check "(a) host1's agent registers 2 addresses" wait_for "host1's records" 30 gid_records "$G1" 2
# A master alone: atsctl sm is unhealthy (exit 5) for a trusted asker.
check_rc "atsctl -k SAKEY sm, no standby yet: exit 5, no standby in sync" 5 \
	"^atsctl: sm: no standby SM is in sync" atsctl host2 -k $SAKEY sm
check_json "... --json: the verdict no-standby-in-sync" \
	"not d['verdict']['healthy'] and d['verdict']['problem'] == 'no-standby-in-sync'" \
	atsctl host2 -k $SAKEY sm --json
# The standby's first pull is a snapshot (host1's records), the rest its log.
second_sm host3 10
check "a second SM with the plugin on host3 goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
reg_del() {
	atsctl host4 register 10.4.0.1 --primary && atsctl host4 deregister 10.4.0.1
}
check "(e) host4 registers 10.4.0.1 and deletes it" reg_del
check "(b) an admin registers 10.2.0.1 for host2 by hand" atsctl host2 register 10.2.0.1 --primary
check "(c) srtool sets a record of another service on host2" \
	srtool host2 --sid $OTHER --name "Other Service" --ip 10.2.9.9 set
check "(d) a record with a 600 s lease on host2" \
	atsctl host2 register 10.2.0.2 --sid ${P}56 --lease 600
check "the master's index holds the $N records" wait_for "the state file" 10 \
	grep -q "\"index\": {\"records\": $N," "$M"

check "the first SM's plugin replicates as master" wait_for "the role" 5 repl_is "$M" role=master
check "the standby is in sync: applied = the master's head" wait_for "the shadow" 30 \
	repl_synced "$S" "$M"
check "... and logs it" grep -Eq "osmats replication: in sync with master LID $LID0 at seq [0-9]+" \
	"$RUN/sm2/osm.log"
check "the master waits for one standby" repl_is "$M" standbys_in_sync=1
# standby_listed FILE GUID: the state file FILE lists one standby, GUID,
# in sync and 0 behind.
standby_listed() {
	"$PYTHON3" -c 'import json, sys
b = json.load(open(sys.argv[1]))["replication"]["standbys"]
sys.exit(not (len(b) == 1 and b[0]["guid"] == sys.argv[2] and b[0]["in_sync"] is True and
	      b[0]["behind"] == 0 and type(b[0]["acked"]) is int and type(b[0]["last_seen_ms"]) is int))' \
		"$1" "$2" 2>/dev/null
}
G3=$(port_guid host3)
check "... it lists host3's port, in sync, 0 behind (issue 24 item 5)" \
	wait_for "the standbys" 10 standby_listed "$M" "$G3"

# Issue 24 item 5: atsctl sm, the plugins' view from a host, is what their
# state files say (the counters paged over 3 MADs).
check_rc "host4 registering for host2: refused (ownership), a counter" 3 "rule ownership" \
	atsctl host4 register 10.9.9.9 --gid "$G2"
# sm_matches FILE NODE ARGS...: atsctl ARGS on NODE (sm --json) agrees
# with the state file FILE; each standby's figures but the time since
# its last pull.
sm_matches() {
	local f=$1 node=$2
	shift 2
	atsctl "$node" "$@" >"$RUN/sm.json" 2>&1 || return 1
	"$PYTHON3" -c 'import json, sys
d = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
r, q = d["replication"], s["replication"]
ok = d["trusted"] and d["plugin"] == s["plugin"] and d["opensm"] == s["opensm"] and \
	d["services"]["ats"] == s["services"]["ats"] and d["services"]["other"] == s["services"]["other"] and \
	d["counters"] == s["counters"] and \
	all(r[k] == q[k] for k in ("role", "epoch", "head", "applied", "in_sync", "standbys_in_sync")) and \
	[dict(b, last_seen_ms=0) for b in r.get("standbys", [])] == \
	[dict(b, last_seen_ms=0) for b in q["standbys"]]
sys.exit(0 if ok else 1)' "$RUN/sm.json" "$f"
}
check "atsctl -k SAKEY sm: the master's role, replication, counters as its state file" \
	wait_for "the master's view" 10 sm_matches "$M" host4 -k $SAKEY sm --json
check_json "... the refusal counted" "d['counters']['rejected']['ownership'] == 1" cat "$RUN/sm.json"
check_json "... healthy: the verdict says so (exit 0)" \
	"d['verdict'] == {'healthy': True, 'problem': None, 'why': None}" cat "$RUN/sm.json"
check_json "... host3's port its standby, in sync, 0 behind, numbers as numbers" \
	"[(b['guid'], b['behind'], b['in_sync'], type(b['acked']), type(b['last_seen_ms'])) for b in d['replication']['standbys']] == [('$G3', 0, True, int, int)]" \
	cat "$RUN/sm.json"
check_out "... as a table in text (asked from host2)" "^$G3 +0 +yes +[0-9]+ ms ago\$" \
	atsctl host2 -k $SAKEY sm
check_json "... sm_state by name, its number kept (issue 37)" \
	"d['sm_state'] == 'master' and d['sm_state_value'] == 3" atsctl host1 -k $SAKEY sm --json
printf '%s sm-b standby\n' "$(node_guid host3)" >"$RUN/node.map"
check_out "... the standby's node named from a node name map (issue 37)" \
	"^$G3 +0 +yes +[0-9]+ ms ago +sm-b standby\$" atsctl host1 -k $SAKEY sm --node-name-map "$RUN/node.map"
check "... --lid of the standby: in sync, as its state file" \
	wait_for "the standby's view" 10 sm_matches "$S" host4 -k $SAKEY sm --json --lid "$(port_lid host3)"
check_json "... its copy holds the master's $N records (issue 37)" \
	"d['replication']['copy_records'] == $N" cat "$RUN/sm.json"
check_out "... and its text says so, not 0 records" \
	"^records: 0 ATS, 0 other in its SA; $N ServiceRecords in its copy of the master's\$" \
	atsctl host2 -k $SAKEY sm --lid "$(port_lid host3)"
# From host1: host4's polls above may have used its share of the SM
# query's per-port rate limit (a slow build polls more often).
check_json "... without the key: the public part only" \
	"not d['trusted'] and 'counters' not in d and d['replication'] == {'role': 'master'} and d['version'] in d['plugin']" \
	atsctl host1 sm --json
check_rc "... a wrong key: the public part, and WRN 7A51" 5 "public part only" atsctl host1 -k 0x1234 sm
check_rc "... and exit 5, saying the key was not taken" 5 "atsctl: sm: the key given is not the site sa_key" \
	atsctl host2 -k 0x1234 sm
check_json "... --json: the verdict key-not-taken" \
	"not d['trusted'] and d['verdict']['problem'] == 'key-not-taken'" atsctl host1 -k 0x1234 sm --json
check "... logged" grep -q "WRN 7A51: SM query from LID [0-9]* port GUID 0x[0-9a-f]* with a key that is not the site sa_key" \
	"$RUN/osm.log"

# What the SA holds before, finite leases as "finite" (they count down).
dump() {
	atsctl host4 -n -t 300 -r 5 dump 2>/dev/null |
		awk '$4 ~ /^[0-9]+$/ { $4 = "finite" } { print }' | sort
}
dump >"$RUN/before"
check_count "the dump before the kill shows the 4 ATS records" 4 cat "$RUN/before"
stat_of() { agent host1 stats | sed -n "s/^$1 //p"; }
SETS0=$(stat_of sets)
SYNCS0=$(stat_of syncs)
SMC0=$(stat_of sm_changes)
prober_start host4 10.1.0.1 "$RUN/probe"
probing() { [ "$(grep -c ' ok ' "$RUN/probe")" -ge 5 ]; }
check "the prober resolves host1's primary" wait_for "the prober" 10 probing

T0=$(date +%s%3N)
sm_kill "$SM_PID"
T1=$(date +%s%3N)
check "the first SM killed: the new master's SA answers" wait_for "the new SA" 30 sa_answers host4
T2=$(date +%s%3N)
dump >"$RUN/after" # at once: before any agent could register again
echo "# the new SA answered $((T2 - T1)) ms after the kill"
check "every live record is there at its first answer" diff "$RUN/before" "$RUN/after"
check_out "... the other service's record too" "^sid $OTHER gid $G2 .* name Other Service ip 10\.2\.9\.9$" \
	srtool host4 --sid $OTHER --gid "$G2" get
check_rc "the deleted record is not" 1 "no ATS records" atsctl host4 -n dump --gid "$G4"
check_out "the leased record keeps a finite lease" \
	"^$P""56 +$G2 +0xffff +[0-9]+ +10\.2\.0\.2" atsctl host4 -n dump --gid "$G2"
check "the new master logs the install of $N records" grep -Eq \
	"osmats replication: installed $N ServiceRecords from the shadow \(epoch 0x[0-9a-fA-F]{16}, seq [0-9]+, 0 expired\) in [0-9]+ ms" \
	"$RUN/sm2/osm.log"
check_absent "... from a shadow it trusts (no WRN 7A42)" "WRN 7A42" cat "$RUN/sm2/osm.log"
check "its state file: master, installed $N, 1 takeover" wait_for "the state file" 10 \
	repl_is "$S" role=master installed=$N takeovers=1
resynced() {
	[ "$(stat_of sm_changes)" -gt "$SMC0" ] && [ "$(stat_of syncs)" -gt "$SYNCS0" ]
}
check "host1's agent saw the SM change and checked its records" wait_for "the agent's sync" 20 resynced
SETS1=$(stat_of sets)
echo "# host1's agent: sets $SETS0 before the kill, $SETS1 after"
check "... and sent no Set" [ "$SETS1" = "$SETS0" ]

# The prober: a dozen attempts after the first answer, then its window.
late() { [ "$(awk -v t="$T2" '$3 > t' "$RUN/probe" | wc -l)" -ge 12 ]; }
check "the prober goes on after the takeover" wait_for "the prober" 20 late
prober_stop "$RUN/probe"
echo "# lookups of 10.1.0.1 (kill at $T0, new SA at $T2): $(prober_window "$RUN/probe")"
check_out "no lookup failed before the kill" "^0$" prober_fails "$RUN/probe" 0 "$T0"
check_out "none failed after the new SA's first answer" "^0$" \
	prober_fails "$RUN/probe" "$T2" 99999999999999
finish
