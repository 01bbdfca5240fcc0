#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Walk doc/deploy.md once on the simulated bench, as a new admin would:
# sections 1.2-1.5, 2.2-2.5, 3, Troubleshooting and Upgrading (not the
# package installation of 1.1 and 2.1, nor RHEL's section 4). Each step
# prints "== SECTION: COMMAND", its output and exit status; the end lists
# where page and bench disagree: an exit status other than the page's, or
# a distinctive piece of the page's expected output missing from the
# output (or from the page: the check went stale).
#
# A developer tool, not part of make check. Run it as root (the hosts'
# IP stacks are network namespaces) from the build tree, after make and
#   make simhost/daemon/simhostd simhost/preload/libsimhost.la
#   ./scripts/walk-runbook.sh [> walk-output.txt]
# Exit 0 when nothing disagrees, 1 otherwise. It reuses the integration
# harness (tests/integration/harness.sh): a private IBSIM_SOCKNAME and
# scratch directory, everything stopped at exit. Each node's root is
# $RUN/n/NODE (its etc/opensm, etc/ibats, var/log, run/ibats): outputs
# are shown with that prefix cut, as on a real machine. sm1 is the node
# smhost, sm2 host3; host1 and host2 run atsd, host4 is any other host.
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
: "${top_builddir:=$PWD}"
[ -f "$top_builddir/tests/integration/env.sh" ] ||
	{ echo "run it from the build tree (no tests/integration/env.sh here)" >&2; exit 2; }
. "$top_srcdir/tests/integration/harness.sh"
PAGE=$top_srcdir/doc/deploy.md
SMKEY=0x5eedc0de5eedc0de
SM1=smhost SM2=host3
MISMATCHES=()
declare -A PID # the pid of each node's OpenSM or atsd
# /usr/bin's python3 has Debian's prometheus_client where a shim's may not.
PROM_PY=python3
python3 -c 'import prometheus_client' 2>/dev/null || PROM_PY=/usr/bin/python3

root() { echo "$RUN/n/$1"; } # a node's /
# What a step shows: node roots and build-tree paths cut.
shown() {
	sed -e "s|$RUN/n/[a-z0-9]*||g" -e "s|$top_builddir/hostagent/[a-z]*/\(\.libs/\)\{0,1\}||g"
}

# step SECTION NODE CMD...: run CMD on NODE's simulated host (NODE -: on
# none), print it, its output and exit status; the output (as shown) in
# $OUT and the status in RC for expect and agree.
step() {
	SEC=$1
	local node=$2
	shift 2
	local where=
	[ "$node" = - ] || where="$node: "
	# The wrappers as an admin types them.
	echo "== $SEC: $where$*" | sed -e 's/: ctl /: atsctl /' -e 's/: agentd /: atsd /' -e 's/: sh_c /: /' | shown
	if [ "$node" = - ]; then
		(cd "$RUN/scratch" && "$@") >"$RUN/step.raw" 2>&1
	else
		on "$node" "$@" >"$RUN/step.raw" 2>&1
	fi
	RC=$?
	shown <"$RUN/step.raw" >"$RUN/step.out"
	OUT=$RUN/step.out
	cat "$OUT"
	echo "(exit $RC)"
}

mismatch() {
	MISMATCHES+=("$SEC: $*")
	echo "!! mismatch: $*"
}

# expect RC: the step exited RC, as the page says.
expect() {
	[ "$RC" -eq "$1" ] || mismatch "exit $RC, the page says $1"
}

# agree TEXT...: each TEXT is on the page and in the step's output.
agree() {
	local t
	for t in "$@"; do
		tr -s ' \n' '  ' <"$PAGE" | grep -qF -- "$(echo "$t" | tr -s ' ')" ||
			mismatch "no longer on the page: '$t'"
		grep -qF -- "$t" "$OUT" || mismatch "the page's '$t' is not in the output"
	done
}

# absent TEXT...: the output holds none of TEXT.
absent() {
	local t
	for t in "$@"; do
		! grep -qF -- "$t" "$OUT" || mismatch "the output has '$t'"
	done
}

# atsctl and atsd as an admin types them (harness's atsctl takes a node).
ctl() { "$ATSCTL" "$@"; }
agentd() { "$ATSD" "$@"; }
sh_c() { sh -c "$1"; }
# scp -p FILE... root@sm2:/etc/opensm/: a copy to sm2's root; sm2's
# osmats.conf then names its own key (real SMs share the paths).
scp() {
	local f
	shift
	for f in "${@:1:$#-1}"; do
		cp -p "$f" "$(root $SM2)/etc/opensm/"
	done
	sed -i "s|$(root $SM1)|$(root $SM2)|" "$(root $SM2)/etc/opensm/osmats.conf"
}

# ---- 1.2, 1.3: the SMs' configs and the replication key ----------------
sm_conf() { # sm_conf NODE PRIORITY: 1.2's lines and the bench's
	local r
	r=$(root "$1")
	mkdir -p "$r/etc/opensm" "$r/var/log" "$r/etc/ibats"
	# The page's three lines, then what the bench needs: the plugin's
	# config named (the build's default is the real /etc/opensm), logs and
	# dumps in the node's /var/log, the only two-SM order ibsim supports.
	printf 'event_plugin_name osmats\nsa_key %s\nsm_priority %s\n' "$SMKEY" "$2" >"$r/etc/opensm/opensm.conf"
	{
		echo "event_plugin_options osmats_config=$r/etc/opensm/osmats.conf"
		echo "log_file $r/var/log/opensm.log"
		echo "dump_files_dir $r/var/log"
		echo "force_log_flush TRUE"
		echo "sweep_interval 0"
		two_sm_opts | grep -v '^sm_priority'
	} >>"$r/etc/opensm/opensm.conf"
	sh -c "umask 077; mkdir -p $r/etc/ibats; echo $SMKEY >$r/etc/ibats/smkey"
}

section_1_3() {
	local e1 e2
	e1=$(root $SM1)/etc/opensm e2=$(root $SM2)/etc/opensm
	step 1.3 - sh_c "umask 077; od -An -tx1 -N32 /dev/urandom | tr -d \" \n\" >$e1/osmats.key"
	step 1.3 - sh_c "echo 'replication_key_file $e1/osmats.key' | tee $e1/osmats.conf"
	step 1.3 - scp -p "$e1/osmats.key" "$e1/osmats.conf" root@sm2:/etc/opensm/
	step 1.3 - ctl check-config --plugin "$e1/osmats.conf"
	expect 0
	agree "/etc/opensm/osmats.conf: valid osmats.conf"
	step 1.3 - ctl check-config --plugin "$e2/osmats.conf"
	expect 0
	chmod 644 "$e1/osmats.key"
	step 1.3 - ctl check-config --plugin "$e1/osmats.conf"
	expect 1
	agree "atsctl: /etc/opensm/osmats.conf:1: replication_key_file /etc/opensm/osmats.key: mode 0644 lets group or others at the key (chmod 600): replication to standby SMs would be off (ERR 7A48)"
	chmod 600 "$e1/osmats.key"
}

# ---- 1.4: start the SMs, their logs ------------------------------------
# norm: a log line's message only, numbers, GUIDs and epochs as N.
norm() {
	# The bench names the plugin's config (event_plugin_options), a real SM
	# finds it beside opensm.conf.
	sed -E -e 's/options "osmats_config=[^"]*"/options ""/' -e 's/^[A-Z][a-z]{2} [0-9]{2} [0-9:]{8} [0-9]+ \[[0-9A-F]+\] 0x[0-9a-f]{2} -> //' \
		-e 's/0x[0-9a-f]+/0xN/g' -e 's/[0-9]+/N/g'
}
# page_log FROM TO: the page's log lines between the lines matching FROM and TO.
page_log() {
	sed -n "/$1/,/$2/p" "$PAGE" | grep -E '^[A-Z][a-z]{2} [0-9]{2} [0-9:]{8} ' | norm
}
# log_agree FROM TO: each of those page lines is in the step's output, and
# each output line on the page.
log_agree() {
	local line
	norm <"$OUT" >"$RUN/got.norm"
	page_log "$1" "$2" >"$RUN/page.norm"
	while read -r line; do
		grep -qxF -- "$line" "$RUN/got.norm" || mismatch "page line not in the log: $line"
	done <"$RUN/page.norm"
	while read -r line; do
		grep -qxF -- "$line" "$RUN/page.norm" || mismatch "log line not on the page: $line"
	done <"$RUN/got.norm"
}

start_sm() { # start_sm NODE: OpenSM with the node's opensm.conf
	local r
	r=$(root "$1")
	osm_launch "$1" "$r/var/cache/opensm" "$r/etc/opensm/opensm.conf"
	PID[$1]=$OSM_LAUNCHED
}

section_1_4() {
	local r1 r2
	r1=$(root $SM1) r2=$(root $SM2)
	# fabric_start's ibsim and kernels; its own OpenSM is sm1's, from
	# sm1's opensm.conf (SM_CONF), and it waits for the SA to answer.
	echo "== 1.4: $SM1: systemctl restart opensm.service (sm1)"
	SM_CONF=$r1/etc/opensm/opensm.conf fabric_start fabric4.net >/dev/null || exit 1
	PID[$SM1]=$SM_PID
	echo "== 1.4: $SM2: systemctl restart opensm.service (sm2)"
	start_sm $SM2
	wait_for "sm2 in sync" 40 grep -q 'in sync with master' "$r2/var/log/opensm.log" || mismatch "sm2 never in sync"
	wait_for "sm1 sees it" 20 grep -q 'in sync at seq' "$r1/var/log/opensm.log" || mismatch "sm1 never saw sm2 in sync"
	step 1.4 - sh_c "grep -hE 'osmats|7A[0-9A-F]{2}' $r1/var/log/opensm*.log | tail"
	log_agree "^The master's log" "^The standby's"
	step 1.4 - sh_c "grep -hE 'osmats|7A[0-9A-F]{2}' $r2/var/log/opensm*.log | tail"
	log_agree "^The standby's" "^What the plugin's start-up"
	absent "WRN 7A26" "WRN 7A40" "ERR 7A48" "ERR 7A4A"
}

# ---- 1.5: atsctl sm ----------------------------------------------------
section_1_5() {
	local key
	key=$(root $SM1)/etc/ibats/smkey
	step 1.5 $SM1 ctl --smkey-file "$key" sm
	expect 0
	agree ", SM state master, replication master" "records: 0 ATS, 0 other" "ATS records of absent ports: 0" \
		", standbys in sync 1" "standby                behind in sync last seen" \
		"rule                 code    rejected     warned" "sid-block            7A01" "record-cap           7A0B"
	grep -Eq "^$(port_guid $SM2) +0 yes " "$OUT" || mismatch "sm2's port GUID is not listed in sync yes"
	step 1.5 $SM1 ctl sm
	expect 0
	agree "(public part only: trusted_guids or the site sa_key, -k, show replication and counters)"
	step 1.5 $SM1 ctl -k 0x5eedc0de5eedc0df sm
	expect 5
	agree "atsctl: sm: the key given is not the site sa_key: public part only"
	step 1.5 $SM2 ctl port
	agree "port 1: LID" ", SM LID 1, state Active"
	step 1.5 $SM1 ctl --smkey-file "$key" sm --lid "$(port_lid $SM2)"
	expect 0
	agree ", SM state standby, replication standby" "records: 0 ATS, 0 other in its SA; 0 ServiceRecords in its copy of the master's" \
		", in sync, lag "
}

# ---- 2.2-2.4: the hosts ------------------------------------------------
atsd_conf() { # atsd_conf NODE IP: 2.1's file, the bench's lines after it
	local r ns
	r=$(root "$1")
	host_ns "$1"
	ns=$(ns "$1")
	ip -n "$ns" link add ib0 type veth peer name ib0-p
	ip -n "$ns" link set ib0-p up
	ip -n "$ns" link set ib0 up
	ip -n "$ns" addr add "$2/24" dev ib0
	mkdir -p "$r/etc/ibats" "$r/run/ibats" "$r/var/lib/ibats" "$r/var/log"
	cp "$top_srcdir/debian/conf/atsd.conf" "$r/etc/ibats/atsd.conf"
	# The bench: ib0 is in the host's namespace, a private socket and state.
	sed -i "s|^interface ib0\$|interface ib0 netns $ns|" "$r/etc/ibats/atsd.conf"
	printf 'socket %s\nstate_file %s\nverify_interval 2\nsm_poll_interval 1\n' \
		"$r/run/ibats/atsd.sock" "$r/var/lib/ibats/atsd.state" >>"$r/etc/ibats/atsd.conf"
}

agent_ok() { # agent_ok NODE: its atsd answers status (4: something refused)
	local rc=0
	on "$1" "$ATSCTL" -S "$(root "$1")/run/ibats/atsd.sock" status >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ]
}

start_atsd() { # start_atsd NODE: systemctl start atsd
	local r
	r=$(root "$1")
	# host1's tells its status to a service manager, as under systemd.
	local notify=
	[ "$1" = host1 ] && notify=$RUN/notify
	(cd "$RUN/scratch" && { [ -z "$notify" ] || export NOTIFY_SOCKET=$notify; } &&
		SIM_HOST=$1 LD_PRELOAD=$SIM_PRELOAD exec "$ATSD" -f -c "$r/etc/ibats/atsd.conf") >>"$r/var/log/atsd.log" 2>&1 &
	PID[$1]=$!
	T_PIDS="$T_PIDS $!"
	wait_for "atsd on $1" 20 agent_ok "$1"
}

sa_count() { # what `atsctl dump | grep -c '^0x'` says on host4
	on host4 "$ATSCTL" -n -t 300 -r 5 dump 2>/dev/null | grep -c '^0x'
}
sa_count_is() { [ "$(sa_count)" -eq "$1" ]; }

# notify_listen FILE: a service manager's notify socket ($RUN/notify)
# whose datagrams go to FILE, one a line: what systemctl status shows.
notify_listen() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
while True:
    with open(sys.argv[2], "a") as f:
        f.write(s.recv(4096).decode().replace("\n", " ") + "\n")' "$RUN/notify" "$1" &
	T_PIDS="$T_PIDS $!"
	wait_for "the notify socket" 10 test -S "$RUN/notify"
}

section_2() {
	local r1 n
	r1=$(root host1)
	if ! grep -qx 'interface ib0' "$top_srcdir/debian/conf/atsd.conf" ||
		! grep -qx 'control_group ibats' "$top_srcdir/debian/conf/atsd.conf"; then
		SEC=2.1
		mismatch "the package's atsd.conf is not 'interface ib0' and 'control_group ibats'"
	fi
	atsd_conf host1 10.10.0.1
	atsd_conf host2 10.10.0.2
	step 2.2 - sh_c "printf 'interface ib0\ncontrol_group ibats\n' | tee $r1/etc/ibats/atsd@mlx5_0:1.conf"
	step 2.2 - agentd --check-config "$r1/etc/ibats/atsd@mlx5_0:1.conf"
	expect 0
	step 2.2 - agentd --check-config "$r1/etc/ibats/atsd.conf"
	expect 0
	agree "/etc/ibats/atsd.conf: valid atsd.conf"
	notify_listen "$RUN/notify.log"
	for n in host1 host2; do
		echo "== 2.3: $n: systemctl enable --now atsd"
		start_atsd $n || mismatch "atsd on $n does not answer"
	done
	wait_for "2 records" 20 sa_count_is 2 || mismatch "the SA does not hold the hosts' 2 records"
	step 2.3 - sh_c "grep STATUS= $RUN/notify.log | tail -1"
	agree "1 records registered, SM LID 1"
	step 2.4 host1 ctl -S "$r1/run/ibats/atsd.sock" status
	expect 0
	agree "SID                 GID                         PKEY    LEASE       IP                STATE" \
		"0x10000ce100415453  " "  0xffff  infinite    10.10.0.1         registered"
	step 2.4 host4 ctl resolve 10.10.0.1
	expect 0
	agree "SID                 GID                         PKEY    LEASE       IP" "  0xffff  infinite    10.10.0.1 (primary)"
}

sm_counts() { # sm_counts KEYFILE N: atsctl sm on sm1 counts N ATS records
	on $SM1 "$ATSCTL" --smkey-file "$1" sm 2>/dev/null | grep -q "^records: $2 ATS"
}

section_2_5() {
	local r1 key before after
	r1=$(root $SM1)
	key=$r1/etc/ibats/smkey
	# The state file and atsctl sm's scan follow the Sets within seconds.
	wait_for "the state file's 2 accepted" 15 "$PYTHON3" -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["counters"]["accepted"] != 2)' "$r1/var/log/osmats-state.json" ||
		mismatch "the state file does not count 2 accepted Sets"
	wait_for "atsctl sm's 2 records" 15 sm_counts "$key" 2 || mismatch "atsctl sm does not count 2 records"
	step 2.5 $SM1 ctl --smkey-file "$key" audit --state "$r1/var/log/osmats-state.json"
	expect 0
	agree "audited 2 ATS record(s) of " "SM-side counters (/var/log/osmats-state.json): {\"accepted\": 2, \"rejected\": {" \
		"0 finding(s): clean"
	step 2.5 $SM1 ctl --smkey-file "$key" sm
	expect 0
	grep -q '^records: 2 ATS' "$OUT" || mismatch "atsctl sm does not count the hosts' 2 records"
	step 2.5 host4 sh_c "$ATSCTL dump | grep -c '^0x'"
	before=$(cat "$OUT")
	echo "== 2.5: $SM1: systemctl stop opensm.service (sm1)"
	stop_pid "${PID[$SM1]}"
	wait_for "sm2 installs its copy" 40 grep -q 'installed .* from the shadow' "$(root $SM2)/var/log/opensm.log" ||
		mismatch "sm2 logged no 'installed N ServiceRecords from the shadow'"
	step 2.5 - sh_c "grep -o 'osmats replication: installed.*' $(root $SM2)/var/log/opensm.log"
	agree "osmats replication: installed "
	wait_for "the SA on sm2" 30 sa_count_is "$before"
	step 2.5 host4 sh_c "$ATSCTL dump | grep -c '^0x'"
	after=$(cat "$OUT")
	[ "$after" = "$before" ] || mismatch "$after records after the failover, $before before"
}

# ---- 3: metrics --------------------------------------------------------
prom_parses() { # prom_parses FILE: prometheus_client's parser reads it
	"$PROM_PY" -c 'import sys
from prometheus_client.parser import text_string_to_metric_families as p
fams = list(p(open(sys.argv[1]).read()))
print("%d metric families parse:" % len(fams), " ".join(f.name for f in fams))' "$1"
}

section_3() {
	local r1 ne
	r1=$(root host1)
	ne=$r1/var/lib/prometheus/node-exporter
	step 3 - install -d -m 0775 -g ibats "$ne"
	expect 0
	step 3 - sh_c "echo 'metrics_file $ne/atsd.prom' | tee -a $r1/etc/ibats/atsd.conf"
	echo "== 3: host1: systemctl reload atsd"
	kill -HUP "${PID[host1]}"
	wait_for "atsd.prom" 20 test -s "$ne/atsd.prom" || mismatch "no atsd.prom after the reload"
	step 3 - prom_parses "$ne/atsd.prom"
	expect 0
	agree "ibats_host_"
	step 3 - ls "$(root $SM2)/var/log/osmats-state.json" "$(root $SM2)/var/log/osmats.prom"
	expect 0
	step 3 - ln -s "$(root $SM2)/var/log/osmats.prom" "$ne/"
	expect 0
	step 3 - prom_parses "$ne/osmats.prom"
	expect 0
	agree "ibats_sm_"
	step 3 - ls "$top_srcdir/doc/alerts/ibats.rules.yml"
	expect 0
}

# ---- Troubleshooting ---------------------------------------------------
# bad_start SECTION NODE CONF: atsd -f -d with CONF, as by hand; it must
# exit (at most 10 s).
bad_start() {
	step "$1" "$2" timeout 10 "$ATSD" -f -d -c "$3"
	case $RC in 0 | 124) mismatch "atsd did not refuse to start (exit $RC)" ;; esac
}

section_troubleshooting() {
	local r2 r4 key conf
	r2=$(root $SM2) r4=$(root host4)
	key=$(root $SM1)/etc/ibats/smkey
	local T=Troubleshooting
	step "$T: refused" host2 ctl -n register 10.10.0.1 --primary
	[ "$RC" -ne 0 ] || mismatch "host2 registered host1's primary"
	agree "request rejected as invalid (ERR_REQ_INVALID)"
	step "$T: refused" host2 ctl why
	step "$T: refused" - sh_c "grep -E 'WRN 7A0' $r2/var/log/opensm*.log"
	grep -q "WRN 7A08" "$OUT" || mismatch "no WRN 7A08 in the master's log"
	# atsd's own address refused: host2's ib0 gets host1's primary.
	ip -n "$(ns host2)" addr add 10.10.0.1/24 dev ib0
	wait_for "host2's refusal" 20 grep -q 'refused by the SA' "$(root host2)/var/log/atsd.log"
	step "$T: refused" host2 ctl -S "$(root host2)/run/ibats/atsd.sock" status
	expect 4
	grep -Eq '10\.10\.0\.1 +refused' "$OUT" || mismatch "status does not list 10.10.0.1 as refused"
	step "$T: refused" - sh_c "grep 'refused by the SA' $(root host2)/var/log/atsd.log"
	agree "address(es) refused by the SA; the rest are registered; retrying them in "
	ip -n "$(ns host2)" addr del 10.10.0.1/24 dev ib0
	step "$T: replication off" $SM2 ctl --smkey-file "$key" sm
	expect 5
	agree "atsctl: sm: no standby SM is in sync"
	step "$T: records" $SM2 ctl --smkey-file "$key" purge
	step "$T: records" $SM2 ctl --smkey-file "$key" audit
	# atsd will not start: a host without /run/ibats, then one whose
	# /run/ibats others may write.
	mkdir -p "$r4/etc/ibats" "$r4/var/lib/ibats"
	conf=$r4/etc/ibats/atsd.conf
	printf 'socket %s\nstate_file %s\n' "$r4/run/ibats/atsd.sock" "$r4/var/lib/ibats/atsd.state" >"$conf"
	bad_start "$T: atsd" host4 "$conf"
	grep -Eq "(port lock /run/ibats/atsd-0x.*\.lock|socket /run/ibats/atsd\.sock): No such file or directory" "$OUT" ||
		mismatch "not the page's 'port lock /run/ibats/atsd-0x....lock' or 'socket /run/ibats/atsd.sock: No such file or directory'"
	mkdir -p "$r4/run/ibats"
	chmod 0777 "$r4/run/ibats"
	bad_start "$T: atsd" host4 "$conf"
	agree "socket directory /run/ibats is writable by others"
	chmod 0755 "$r4/run/ibats"
	# Another atsd on host1's port.
	sed "s|^socket .*|socket $(root host1)/run/ibats/atsd2.sock|" "$(root host1)/etc/ibats/atsd.conf" >"$r4/etc/ibats/second.conf"
	bad_start "$T: atsd" host1 "$r4/etc/ibats/second.conf"
	agree "another atsd serves port GUID 0x"
	printf 'control_group ibats-walk-nosuch\n' >>"$conf"
	bad_start "$T: atsd" host4 "$conf"
	agree "control_group: no group '" "' on this machine"
	sed -i '/^control_group/d' "$conf"
	echo '{}' >"$r4/var/lib/ibats/atsd.state"
	chown 65534 "$r4/var/lib/ibats/atsd.state"
	bad_start "$T: atsd" host4 "$conf"
	grep -q "is owned by uid" "$OUT" || mismatch "no 'state_file ...: ... is owned by uid N'"
}

# ---- Upgrading and rollback --------------------------------------------
section_upgrading() {
	local before
	SEC=Upgrading
	before=$(sa_count)
	echo "== $SEC: host1: systemctl restart atsd (SIGUSR1, then a new atsd)"
	kill -USR1 "${PID[host1]}"
	wait "${PID[host1]}"
	echo "(atsd exited $?)"
	[ "$(sa_count)" = "$before" ] || mismatch "SIGUSR1 did not leave host1's records in the SA"
	start_atsd host1 || mismatch "atsd on host1 does not answer after the restart"
	step "$SEC" host1 ctl -S "$(root host1)/run/ibats/atsd.sock" status
	expect 0
	grep -q "10.10.0.1 .*registered" "$OUT" || mismatch "host1's address is not registered after the restart"
	[ "$(sa_count)" = "$before" ] || mismatch "the restart changed the SA's record count"
	echo "== $SEC: host2: systemctl stop atsd (deletes its records)"
	stop_pid "${PID[host2]}"
	wait_for "host2's record gone" 10 sa_count_is $((before - 1)) ||
		mismatch "stopping atsd on host2 did not delete its record"
	step "$SEC" host4 ctl -n dump
}

main() {
	sm_conf $SM1 15
	sm_conf $SM2 10
	step 1.2 - cat "$(root $SM1)/etc/opensm/opensm.conf"
	section_1_3
	section_1_4
	section_1_5
	section_2
	section_2_5
	section_3
	section_troubleshooting
	section_upgrading
	echo "== mismatches: ${#MISMATCHES[@]}"
	local m
	for m in "${MISMATCHES[@]}"; do
		echo "$m"
	done
	[ "${#MISMATCHES[@]}" -eq 0 ]
}
main
