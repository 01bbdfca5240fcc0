# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The replication credential (issue 22): a key file the SMs share, not
# OpenSM's SM_Key, which any host reads with SubnGet(SMInfo). A key file
# others may read turns replication off with the reason (ERR 7A48); SMs
# at OpenSM's default sm_key 1 replicate with a shared key file; an SM
# with another key file is refused both ways (WRN 7A43), as standby of
# the first and as master of it.
. "$top_srcdir/tests/integration/harness.sh"
two_sm_opts >"$RUN/opensm.extra" # and OpenSM's default sm_key, 1
repl_key
chmod 640 "$RUN/repl.key"
fabric_start fabric4.net
M="$RUN/osmats-state.json"
check "M_Key protection off: the SM_Key is no secret (WRN 7A46)" grep -q "WRN 7A46" "$RUN/osm.log"
check "a group-readable key file: replication off, saying why (ERR 7A48)" grep -q \
	"ERR 7A48: replication to standby SMs is off: replication_key_file $RUN/repl.key: mode 0640 lets group or others at the key" \
	"$RUN/osm.log"
check "... and the state file says error (asked for, off)" wait_for "the state file" 10 repl_is "$M" role=error
# atsctl sm, from any host and without a key: unhealthy (exit 5), why
# on stderr and in --json's verdict.
check_rc "atsctl sm: exit 5, replication off (ERR 7A48)" 5 \
	"^atsctl: sm: replication is off: the plugin refused its replication_key_file" atsctl host1 sm
check_json "... --json: the role error, the verdict replication-off" \
	"d['replication']['role'] == 'error' and d['verdict'] == {'healthy': False, 'problem': 'replication-off', 'why': d['verdict']['why']} and 'ERR 7A48' in d['verdict']['why']" \
	atsctl host1 sm --json
# OpenSM's default sa_key (1, this fabric's) never earns trust: said so.
check_rc "... -k 1, OpenSM's default sa_key: exit 5, the key earns no trust (WRN 7A26)" 5 \
	"^atsctl: sm: the key given is OpenSM's default sa_key 1, which earns no trust" atsctl host2 -k 1 sm
# A standby with the same refused key: it replicates nothing, yet writes
# its state file and metrics, role error, and says it is a standby.
second_sm host3 10
S2="$RUN/sm2/osmats-state.json"
check "a standby with that key file: STANDBY" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
check "... ERR 7A48 in its log too" grep -q "ERR 7A48: replication to standby SMs is off" "$RUN/sm2/osm.log"
standby_state() {
	repl_is "$S2" role=error &&
		"$PYTHON3" -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["sm_state"] != "standby")' "$S2"
}
standby_prom() {
	grep -qx 'ibats_sm_repl_role{role="error"} 1' "$RUN/sm2/osmats.prom" &&
		grep -q '^ibats_sm_info{.*sm_state="standby"' "$RUN/sm2/osmats.prom"
}
check "... its state file: role error, sm_state standby" wait_for "the standby's state file" 15 standby_state
check "... its osmats.prom: ibats_sm_repl_role{role=\"error\"} 1, sm_state standby" \
	wait_for "the standby's metrics" 15 standby_prom
check_rc "... atsctl sm --lid of the standby: exit 5, replication off" 5 \
	"atsctl: sm: replication is off" atsctl host1 sm --lid "$(port_lid host3)"
stop_pid "$SM2"
rm -rf "$RUN/sm2"
chmod 600 "$RUN/repl.key"
sm_stop
sm_start
check "mode 0600: replication on" wait_for "the state file" 10 repl_is "$M" role=master
check "... with nothing more to say about the key file" test "$(grep -c 'ERR 7A48' "$RUN/osm.log")" -eq 1

# (c) sm_key 1 on both SMs and one key file: they replicate.
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
check "host1 sets 10 other records" srtool host1 --sid 0x1000 --name other --count 10 set
second_sm host3 10
check "sm_key 1, one key file: the standby is in sync" wait_for "in sync" 30 \
	repl_synced "$RUN/sm2/osmats-state.json" "$M"
check_absent "... refused nothing (no WRN 7A43)" "WRN 7A43" cat "$RUN/osm.log" "$RUN/sm2/osm.log"
stop_pid "$SM2"

# refused_standby WHAT DIR WHO LOG: the SM of $RUN/DIR goes standby (WHAT),
# WHO (the master, logging to LOG) refuses its pulls, it holds no copy.
refused_standby() {
	check "$1" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/$2/osm.log"
	check "... whose pulls $3 refuses (WRN 7A43)" wait_for "the refusal" 10 grep -q \
		"WRN 7A43: replication pull from LID .* dropped: bad authentication tag" "$4"
	check "... and that holds no copy" wait_for "the state file" 10 \
		repl_is "$RUN/$2/osmats-state.json" role=standby snapshots=0 in_sync=false
}

# (b) Another key file: the master refuses the standby's pulls ...
key_file "$RUN/other.key"
mkdir -p "$RUN/sm3"
echo "replication_key_file $RUN/other.key" >"$RUN/sm3/osmats.conf"
sed -e "s|^log_file .*|log_file $RUN/sm3/osm.log|" -e "s|^dump_files_dir .*|dump_files_dir $RUN/sm3|" \
	-e "s|osmats_config=.*|osmats_config=$RUN/sm3/osmats.conf|" \
	-e "s|^sm_priority .*|sm_priority 10|" "$RUN/opensm.conf" >"$RUN/sm3.conf"
# A site sa_key there: a standby knows no port by LID (trusted_guids
# earn nothing at it), and atsctl sm --lid of it below needs trust.
echo "sa_key 0x5EC12E" >>"$RUN/sm3.conf"
osm_launch host2 "$RUN/sm3" "$RUN/sm3.conf"
SM3=$OSM_LAUNCHED
refused_standby "another key file: a standby" sm3 "the master" "$RUN/osm.log"
check_rc "... atsctl sm --lid of it, trusted: exit 5, not in sync (issue 37)" 5 \
	"^atsctl: sm: this standby SM is not in sync with its master" atsctl host1 -k 0x5EC12E sm --lid "$(port_lid host2)"
check_json "... --json: the verdict standby-not-in-sync" \
	"d['verdict']['problem'] == 'standby-not-in-sync' and d['trusted']" \
	atsctl host1 -k 0x5EC12E sm --json --lid "$(port_lid host2)"
# ... and, once master itself, refuses theirs: the master dies, the SM
# with the other key takes over, and one with the first key (below it)
# is its standby.
sm_kill "$SM_PID"
check "the SM with the other key takes over" wait_for "its SUBNET UP" 30 grep -q "SUBNET UP" "$RUN/sm3/osm.log"
sed -e "s|^log_file .*|log_file $RUN/sm4/osm.log|" -e "s|^dump_files_dir .*|dump_files_dir $RUN/sm4|" \
	-e "s|^sm_priority .*|sm_priority 5|" "$RUN/opensm.conf" >"$RUN/sm4.conf"
mkdir -p "$RUN/sm4"
osm_launch host3 "$RUN/sm4" "$RUN/sm4.conf"
SM4=$OSM_LAUNCHED
refused_standby "an SM with the first key: its standby" sm4 it "$RUN/sm3/osm.log"
check "both SMs live" sh -c "kill -0 $SM3 && kill -0 $SM4"
grep -h "WRN 7A4\|ERR 7A4" "$RUN/osm.log" "$RUN/sm3/osm.log" "$RUN/sm4/osm.log" | sed 's/^/# /' | tail -8
finish
