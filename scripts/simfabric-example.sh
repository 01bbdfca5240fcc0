#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# A simulated InfiniBand fabric by hand, for a laptop or a CI job: ibsim,
# OpenSM with the osmats plugin, atsd on two hosts, a standby OpenSM that
# takes over with its copy of the ATS records when the master is killed.
# No hardware, no root. Run it from the build tree after make:
#   make simhost/daemon/simhostd simhost/preload/libsimhost.la
#   ./scripts/simfabric-example.sh
# Needs ibsim (ibsim-utils) and opensm. Everything it starts is stopped at
# exit, and its scratch directory removed.
set -eu
S=$(cd "$(dirname "$0")/.." && pwd)     # the source tree (topologies)
B=${top_builddir:-$PWD}                  # the build tree (programs)
IBSIM=${IBSIM:-ibsim}
OPENSM=${OPENSM:-$(PATH=$PATH:/usr/sbin command -v opensm)}
ATSCTL=$B/hostagent/atsctl/atsctl
ATSD=$B/hostagent/atsd/atsd
# Gotcha 1: ibsim's sockets are named by IBSIM_SOCKNAME; two fabrics on
# one machine (parallel CI jobs) each need their own.
export IBSIM_SOCKNAME=${IBSIM_SOCKNAME:-simfabric-$$}
# Gotcha 2: one scratch directory for sockets, configs, logs, state files:
# simulated fabrics share port GUIDs, so nothing may go to /run/ibats or
# /var/lib/ibats, where a real atsd keeps its own.
W=$(mktemp -d "${TMPDIR:-/tmp}/simfabric.XXXXXX")
# Gotcha 3: ibsim simulates the fabric, not the hosts. Each node runs a
# simulated kernel (simhostd: umad, RMPP, sysfs, port events), and every
# process on that node preloads libsimhost.so, which connects it to its
# node's kernel (SIM_HOST names the node). A sanitizer build puts its
# runtime first: SIM_PRELOAD="/path/libasan.so $B/simhost/preload/.libs/libsimhost.so".
export SIMHOST_DIR=$W/hosts
PRELOAD=${SIM_PRELOAD:-$B/simhost/preload/.libs/libsimhost.so}
AGENTS= SMS= FABRIC=  # pids, stopped in this order at exit

on() { # on NODE CMD...: run CMD on NODE's simulated host
	local node=$1
	shift
	SIM_HOST=$node LD_PRELOAD=$PRELOAD "$@"
}
wait_for() { # wait_for SECONDS CMD...: poll CMD, never sleep blindly
	local i
	for i in $(seq $(($1 * 10))); do
		"${@:2}" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "timed out: ${*:2}" >&2
	return 1
}
stop() { # stop PID...: SIGTERM and wait, newest first
	local p
	for p in "$@"; do
		kill "$p" 2>/dev/null || continue
		wait "$p" 2>/dev/null || true
	done
}
cleanup() {
	# Agents first: at SIGTERM atsd deletes its records while an SM answers.
	stop $AGENTS
	stop $SMS
	stop $FABRIC
	exec 3>&-
	rm -rf "$W"
}
trap cleanup EXIT

echo "== ibsim on ibsim-topologies/fabric4.net (sockets: $IBSIM_SOCKNAME)"
# Gotcha 4: ibsim reads console commands (Unlink, ReLink...) on stdin and
# spins at EOF: give it a FIFO that this shell holds open (fd 3) and write
# commands there, e.g. echo 'Unlink "host2"' >&3.
mkfifo "$W/ibsim.in"
exec 3<>"$W/ibsim.in"
(cd "$W" && exec "$IBSIM" -s "$S/ibsim-topologies/fabric4.net") <"$W/ibsim.in" >"$W/ibsim.log" 2>&1 &
FABRIC=$!
wait_for 20 grep -q 'sim>' "$W/ibsim.log"

echo "== a simulated kernel per node: smhost, host1, host2, host3"
mkdir -p "$SIMHOST_DIR"
for n in smhost host1 host2 host3; do
	"$B/simhost/daemon/simhostd" -n "$n" -d "$SIMHOST_DIR" >"$W/simhost-$n.log" 2>&1 &
	FABRIC="$! $FABRIC"
done
for n in smhost host1 host2 host3; do
	wait_for 10 test -e "$SIMHOST_DIR/$n/ready"
done

echo "== OpenSM with the plugin on smhost (master) and host3 (standby)"
# Every SM loads the plugin and reads the same replication key.
(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$W/repl.key")
echo "replication_key_file $W/repl.key" >"$W/osmats.conf"
# Gotcha 5: two SMs under ibsim: no sweeps on traps and the master above
# the standby (ibsim drops what the other orders would need); a standby
# that polls the master every second notices its death in about 3 s.
sm() { # sm NODE PRIORITY: OpenSM in $W/NODE
	local d=$W/$1
	mkdir -p "$d/cache"
	cat >"$d/opensm.conf" <<-CONF
	event_plugin_name osmats
	event_plugin_options osmats_config=$W/osmats.conf
	log_file $d/osm.log
	force_log_flush TRUE
	dump_files_dir $d
	sweep_interval 0
	sweep_on_trap FALSE
	sm_priority $2
	sminfo_polling_timeout 1000
	polling_retry_number 2
	sm_key 0x00000000000ABCDE
	CONF
	# Gotcha 6: OpenSM dlopens "libosmats.so" by name: the build tree's
	# plugin directory goes first in its library path.
	(cd "$d" && OSM_CACHE_DIR=$d/cache OSM_TMP_DIR=$d \
		LD_LIBRARY_PATH="$B/plugin/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		on "$1" exec "$OPENSM" -F "$d/opensm.conf") >"$d/opensm.out" 2>&1 &
	SMS="$! $SMS"
}
sa_answers() { # the SA answers (records or none) rather than times out
	local rc=0
	on host1 "$ATSCTL" -n -t 200 -r 0 dump >/dev/null 2>&1 || rc=$?
	[ "$rc" -le 1 ]
}
sm smhost 15
MASTER=$SMS
wait_for 30 sa_answers
grep -o 'osmats .* loaded.*' "$W/smhost/osm.log"

echo "== atsd on host1 and host2"
agent() { # agent NODE ADDRESS: atsd with a static primary address
	cat >"$W/atsd-$1.conf" <<-CONF
	socket $W/atsd-$1.sock
	state_file $W/atsd-$1.state
	address $2 primary
	verify_interval 5
	sm_poll_interval 1
	CONF
	(on "$1" exec "$ATSD" -f -c "$W/atsd-$1.conf") >"$W/atsd-$1.log" 2>&1 &
	AGENTS="$! $AGENTS"
	wait_for 20 on "$1" "$ATSCTL" -S "$W/atsd-$1.sock" status
}
agent host1 10.10.0.1
agent host2 10.10.0.2
records() { # records N: the SA holds N ATS records, as host3 reads them
	[ "$(on host3 "$ATSCTL" -n dump 2>/dev/null | grep -c '^0x')" -eq "$1" ]
}
wait_for 20 records 2
on host3 "$ATSCTL" -n dump

echo "== the standby joins and copies the master's records"
sm host3 10
wait_for 30 grep -q 'Entering STANDBY state' "$W/host3/osm.log"
wait_for 30 grep -q 'in sync with master' "$W/host3/osm.log"

echo "== kill -9 the master: the standby takes over with its copy"
# Gotcha 7: SIGKILL, as a crash; the node's kernel drops the dead SM's
# MAD agents, and the standby sees the master's silence.
kill -9 "$MASTER"
wait "$MASTER" 2>/dev/null || true
SMS=${SMS/$MASTER /}
wait_for 30 grep -q 'SUBNET UP' "$W/host3/osm.log"
grep -o 'osmats replication: installed.*' "$W/host3/osm.log"
wait_for 20 records 2
echo "host2 resolves 10.10.0.1 on the new master's SA:"
on host2 "$ATSCTL" -n resolve 10.10.0.1
