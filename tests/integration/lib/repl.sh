# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Replication between SMs: the key file (key_file, repl_key,
# repl_sm_opts) and the state file's "replication" object (repl_field,
# repl_is, repl_synced); a handover from the first SM to the second
# (repl_handover) and back (repl_handback).
# Sourced by harness.sh, in its order: not a script of its own.

# key_file FILE: a new replication key in FILE, made as osmats.conf(5)
# says.
key_file() {
	(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$1")
}

# repl_key: key_file $RUN/repl.key, its replication_key_file line appended
# to $RUN/osmats.conf, which every SM of the test reads (second_sm copies
# opensm.conf): write the rest of osmats.conf before, or append to it.
repl_key() {
	key_file "$RUN/repl.key"
	echo "replication_key_file $RUN/repl.key" >>"$RUN/osmats.conf"
}

# two_sm_opts plus a key file both SMs share (repl_key): the plugins
# replicate ServiceRecords. two_sm_opts alone leaves replication off. The
# non-default sm_key only keeps OpenSM's own SM-to-SM traffic as it was:
# replication does not look at it (t_repl_cred).
repl_sm_opts() {
	two_sm_opts
	echo 'sm_key 0x00000000000ABCDE'
	repl_key
}

# The interpreter itself, not a version manager's shim: polled helpers.
PYTHON3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
: "${PYTHON3:=python3}"

# repl_field FILE KEY: the plugin's state file FILE, replication.KEY as
# JSON prints it (true, 12, master); fails while the file or key is missing.
repl_field() {
	"$PYTHON3" -c 'import json, sys
v = json.load(open(sys.argv[1]))["replication"][sys.argv[2]]
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2" 2>/dev/null
}

# repl_is FILE KEY=VALUE...: every replication.KEY of FILE prints as VALUE
# (as repl_field prints it). One read: cheap enough to poll.
repl_is() {
	"$PYTHON3" -c 'import json, sys
r = json.load(open(sys.argv[1]))["replication"]
show = lambda v: v if isinstance(v, str) else json.dumps(v)
sys.exit(any(show(r[k]) != v for k, v in (a.split("=", 1) for a in sys.argv[2:])))' "$@" 2>/dev/null
}

# repl_synced SFILE MFILE: the plugin writing SFILE is a standby in sync
# whose shadow ends at the head of the master writing MFILE.
repl_synced() {
	"$PYTHON3" -c 'import json, sys
s, m = (json.load(open(f))["replication"] for f in sys.argv[1:3])
sys.exit(not (s["role"] == "standby" and s["in_sync"] is True and m["role"] == "master"
	      and s["applied"] == m["head"]))' "$1" "$2" 2>/dev/null
}

# repl_handover: the first SM drops to priority 5 (below second_sm's 10)
# and sweeps; checks that it goes STANDBY, that the second SM is master
# and that its SA answers host4.
repl_handover() {
	sed -i "s|^sm_priority .*|sm_priority 5|" "$RUN/opensm.conf"
	kill -HUP "$SM_PID"
	check "the first SM hands over and goes STANDBY" wait_for "standby" 30 \
		grep -q "Entering STANDBY state" "$RUN/osm.log"
	check "the second SM is master" wait_for "the second master" 30 \
		grep -q "SUBNET UP" "$RUN/sm2/osm.log"
	check "its SA answers" wait_for "the SA" 20 sa_answers host4
}

# repl_handback: the second SM drops to priority 0, below the first's 5,
# and sweeps; checks that it goes STANDBY again, that the first SM is
# master again and has swept, and that its SA answers host4.
repl_handback() {
	sed -i "s|^sm_priority .*|sm_priority 0|" "$RUN/sm2/opensm.conf"
	kill -HUP "$SM2"
	check "the second SM hands back and goes STANDBY again" wait_for "standby" 30 \
		sh -c "[ \$(grep -c 'Entering STANDBY state' '$RUN/sm2/osm.log') -ge 2 ]"
	check "the first SM is master again and has swept" wait_for "master again" 30 \
		sh -c "grep -A1000 'Entering STANDBY' '$RUN/osm.log' | grep -q 'SUBNET UP'"
	check "its SA answers" wait_for "the SA" 20 sa_answers host4
}
