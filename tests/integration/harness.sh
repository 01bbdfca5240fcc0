# Integration harness: a private ibsim fabric, OpenSM with the just-built
# plugin, and commands run on chosen simulated nodes. Source it from a test;
# it cleans up every process it started when the test exits, pass or fail.
# A failed test keeps its directory; T_KEEP=1 keeps it after a pass too.
#
#   fabric_start TOPOLOGY        ibsim + OpenSM (SM on node "smhost")
#   sm_stop                      stop OpenSM (the SM LID stays in PortInfo)
#   sm_sweep                     SIGHUP OpenSM, wait for the next SUBNET UP
#   sim CMD                      an ibsim console command (Unlink, ReLink...)
#   rules_off                    an osmats.conf with every ATS rule and the
#                                flush off: OpenSM's own ServiceRecord rules
#   sm_start [CONF]              start OpenSM again after sm_stop; CONF
#                                $RUN/opensm-stock.conf: without the plugin
#   osm_launch NODE DIR CONF     another OpenSM (pid in OSM_LAUNCHED)
#   second_sm NODE PRIO          OpenSM with the plugin in $RUN/sm2 (pid SM2)
#   two_sm_opts                  opensm.conf lines for two SMs under ibsim
#   key_file FILE                a new replication key in FILE, mode 0600
#   repl_key                     key_file $RUN/repl.key, named in $RUN/osmats.conf
#   repl_sm_opts                 two_sm_opts plus repl_key: replication on
#   repl_field FILE KEY          a field of a state file's "replication" object
#   repl_is FILE KEY=VALUE...    the "replication" object holds these values
#   repl_synced SFILE MFILE      the standby (state file SFILE) holds all the
#                                master (MFILE) committed
#   prober_start NODE IP FILE    resolve IP from NODE every 50 ms (at most) into FILE
#   prober_stop FILE             stop that prober
#   prober_window FILE           the failures in FILE: first, last, count, longest run
#   prober_fails FILE FROM TO    failed attempts that started >= FROM, ended <= TO
#   host_ns NAME                 a network namespace `ns NAME` with veth v0 up
#   agent_start NODE [LINE...]   atsd on NODE, config lines appended (state
#                                file in $RUN unless AGENT_STATE_FILE); with
#                                a cm or cm_listen line the node's ib_cm is
#                                loaded first, as on a host (not with
#                                AGENT_NO_KERNEL_CM=1)
#   agent NODE ARGS...           atsctl on NODE talking to that agent
#   on NODE CMD ARGS...          run CMD attached to NODE (its simulated host)
#   node_up NODE [OPTS]          NODE's simulated kernel (tests/simhost);
#                                $RUN/simhost-NODE.extra, written before the
#                                node starts (before fabric_start on a small
#                                fabric), holds more simhostd options for it
#                                (--cm-retries 2 --cm-timeout 14, say)
#   simhost NODE CMD             a command to it (rereg, status, drop, rmpp,
#                                ipoib add/del, modprobe/rmmod ib_cm)
#   rmpp_off                     every node without RMPP (an SA without it)
#   atsctl NODE ARGS...          run the built atsctl on NODE
#   wait_for DESC SECONDS CMD... poll CMD until it succeeds
#   check DESC CMD...            one TAP assertion: ok N / not ok N
#   check_json DESC EXPR CMD...  CMD prints JSON (Python's parser) where EXPR holds
#   skip REASON                  skip the rest of the test
#   finish                       stop all, check that nothing the test started
#                                survives (kill -9 and name what does), the
#                                summary and the TAP plan; exits 1 on a failure
#
# The output is TAP (automake's tap-driver.sh): the plan comes last, so a
# test that dies midway has none and is reported as an ERROR. In a
# ThreadSanitizer build (atsd links libtsan) finish adds one check: no
# TSan report names our code (tsan_check; doc/design.md, "Robustness").

set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
. "$top_builddir/tests/integration/env.sh"

ATSCTL="$top_builddir/hostagent/atsctl/atsctl"
# atsctl links the built libibats.so: run libtool's binary itself, not its
# wrapper script (a shell and sed forks each time, ~15 ms, thousands of
# times a run). LD_LIBRARY_PATH goes before the binary's install RUNPATH.
if [ -z "${IBATS_INSTALLED:-}" ] && [ -x "$top_builddir/hostagent/atsctl/.libs/atsctl" ]; then
	ATSCTL="$top_builddir/hostagent/atsctl/.libs/atsctl"
	export LD_LIBRARY_PATH="$top_builddir/lib/libibats/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
SRTOOL="$top_builddir/tests/tools/srtool"
PLUGIN_DIR="$top_builddir/plugin/.libs"
TOPODIR="$top_srcdir/ibsim-topologies"

T_PASS=0
T_FAIL=0
T_N=0
T_PIDS=""
T_SMS=""
T_FABRIC=""
T_NETNS=""
ATSD="$top_builddir/hostagent/atsd/atsd"
T_NAME=$(basename "$0" .sh)
# IBATS_INSTALLED=1: the installed programs and plugin instead of the
# build tree's (CI runs the demo so against the Debian packages). OpenSM
# then finds libosmats.so by name in the library path, as on a real SM.
if [ -n "${IBATS_INSTALLED:-}" ]; then
	ATSCTL=$(PATH=$PATH:/usr/sbin:/sbin command -v atsctl) || { echo "no installed atsctl" >&2; exit 1; }
	ATSD=$(PATH=$PATH:/usr/sbin:/sbin command -v atsd) || { echo "no installed atsd" >&2; exit 1; }
	PLUGIN_DIR=
fi

# A skip after some checks is one more result; before any, a skip plan.
skip() {
	if [ "$T_N" -eq 0 ]; then
		echo "1..0 # SKIP $*"
	else
		T_N=$((T_N + 1))
		echo "ok $T_N # SKIP $*"
		echo "1..$T_N"
	fi
	exit 0
}

for need in "$IBSIM" "$OPENSM"; do
	[ -n "$need" ] && [ -e "$need" ] || skip "ibsim or opensm not installed"
done
[ -x "$SIMHOSTD" ] && [ -e "$SIMHOST_LIB" ] ||
	skip "the simulated host is not built (make check builds tests/simhost)"

# Every process on the simulated fabric runs on a simulated host
# (tests/simhost, doc/design.md "Testing under ibsim"): its node's
# simulated kernel (simhostd, node_up) and libsimhost.so preloaded, which
# give it what the kernel's RDMA stack gives a process on a host.
# A sanitizer build needs its runtime first in the preload list; foreign
# programs (opensm, saquery) get it too but no leak check. Stock OpenSM is
# not instrumented: the runtime it preloads is the one the plugin was
# linked with (ASan, or ThreadSanitizer in a TSan build).
SAN_RT=$(ldd "$ATSD" 2>/dev/null | awk '/libasan|libtsan/ {print $3}')
TSAN=
case $SAN_RT in *libtsan*) TSAN=1 ;; esac
SIM_PRELOAD="${SAN_RT:+$SAN_RT }$SIMHOST_LIB"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="suppressions=$top_srcdir/tests/integration/asan.supp${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

RUN=$(mktemp -d "${TMPDIR:-/tmp}/ibats-$T_NAME.XXXXXX")
mkdir -p "$RUN/scratch" "$RUN/cache" "$RUN/hosts"
# The simulated hosts' kernels: sockets, sysfs trees (node_up).
export SIMHOST_DIR="$RUN/hosts"
# ThreadSanitizer: every process writes its reports to $RUN/tsan.PID and
# runs on (halt_on_error=0) with its own exit status (exitcode=0), so a
# race changes no check; finish fails the test on any report that names
# our code (tsan_check). symbolize=0: the reports are symbolized
# afterwards (tsan_report.py), outside the processes under test.
[ -n "$TSAN" ] && export TSAN_OPTIONS="halt_on_error=0:exitcode=0:symbolize=0:log_path=$RUN/tsan:\
suppressions=$top_srcdir/tests/integration/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
# A private simulator namespace: tests run side by side.
export IBSIM_SOCKNAME="ibats-$T_NAME-$$"
# The shell that sourced this file (a bench runs it in a subshell).
T_SHELL=$BASHPID

# Stop a process, escalating to SIGKILL if it lingers.
stop_pid() {
	local pid=$1 i
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
}

# Stop every process the test started: clients newest first (an agent
# deletes its records while an SM still answers, as a host's shutdown
# order has it), then the OpenSMs, the simulated hosts' kernels and the
# simulator.
stop_all() {
	local pid order="" f sms=""
	for pid in $T_PIDS; do
		case " $T_SMS " in
		*" $pid "*) sms="$pid $sms" ;;
		*) order="$pid $order" ;;
		esac
	done
	for pid in $order $sms; do
		stop_pid "$pid"
	done
	T_PIDS=""
	T_SMS=""
	for f in "$SIMHOST_DIR"/*.pid; do
		[ -f "$f" ] || continue
		stop_pid "$(cat "$f")"
		rm -rf "$f" "${f%.pid}" "${f%.pid}.lock"
	done
	order=""
	for pid in $T_FABRIC; do
		order="$pid $order"
	done
	for pid in $order; do
		stop_pid "$pid"
	done
	T_FABRIC=""
}

# The processes this test started that are still running, one pid a line.
# Each program it ran carries the test's IBSIM_SOCKNAME (exported above)
# in the environment it was executed with, whoever forked it and whoever
# its parent is now (a wrapper's child, a daemon's, one inside ip netns
# exec). A subshell the test forked (`( ... ) &`) was never executed and
# shows the environment the test shell started with: those are found as
# the test shell's children. Not counted: this shell and its ancestors,
# zombies, and grep, run without the variable so that it does not find
# itself. Nothing else may run beside the scan (no pipe into or out of
# it): it would be found.
survivors() {
	local pid=$BASHPID skip=" " kids="" k v f
	while [ -n "$pid" ] && [ "$pid" -gt 1 ]; do
		skip="$skip$pid "
		v=
		while read -r k f; do
			[ "$k" = PPid: ] && v=$f && break
		done <"/proc/$pid/status" 2>/dev/null
		pid=$v
	done
	f=$(ps -o pid=,stat= --ppid "$T_SHELL")
	while read -r k v; do
		[ -n "$k" ] && [ "${v#Z}" = "$v" ] && kids="$kids $k"
	done <<<"$f"
	for f in $(env -u IBSIM_SOCKNAME grep -lsFxz "IBSIM_SOCKNAME=$IBSIM_SOCKNAME" \
		/proc/[0-9]*/environ) $kids; do
		pid=${f#/proc/}
		pid=${pid%/environ}
		case $skip in *" $pid "*) ;; *) echo "$pid"; skip="$skip$pid " ;; esac
	done
}

# SIGKILL every survivor (call stop_all first), naming each with its
# command line; status 1 when there was one. One still exiting after its
# parent's stop gets a second (polled) before it counts; a loop that
# started another program meanwhile is looked at again.
reap_survivors() {
	local pid ret=0 i list args
	for i in $(seq 20); do
		list=$(survivors)
		[ -z "$list" ] && return 0
		sleep 0.05
	done
	for i in 1 2 3 4 5; do
		for pid in $list; do
			mapfile -d '' -t args <"/proc/$pid/cmdline" 2>/dev/null || args=()
			kill -9 "$pid" 2>/dev/null || continue
			echo "pid $pid outlived the test: ${args[*]}"
			ret=1
		done
		list=$(survivors)
		[ -z "$list" ] && break
	done
	return $ret
}

cleanup() {
	local rc=$? ns log left
	stop_all
	# What a test that ended before finish left; a pipe to sed here
	# would be a survivor of its own.
	left=$(reap_survivors)
	[ -n "$left" ] && while read -r log; do echo "# $log"; done <<<"$left"
	for ns in $T_NETNS; do
		ip netns del "$ns" 2>/dev/null
	done
	# As TAP diagnostics: a log line is never read as a result.
	if [ "$T_FAIL" -gt 0 ] || [ "$rc" -ne 0 ]; then
		{
			echo "--- kept $RUN; tail of osm.log:"
			tail -n 30 "$RUN/osm.log" 2>/dev/null
			# Any other OpenSM the test launched (osm_launch NODE DIR).
			for log in "$RUN"/*/osm.log; do
				[ -f "$log" ] || continue
				echo "--- tail of $log:"
				tail -n 15 "$log"
			done
		} | sed 's/^/# /'
	elif [ -z "${T_KEEP:-}" ]; then
		rm -rf "$RUN"
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# node_up NODE [--no-wait] [SIMHOSTD-OPTION...]: NODE's simulated kernel
# runs (tests/simhost/simhostd: --kernel-cm, --ipoib NAME[:PKEY]; options
# only at its start: later, `simhost NODE ...` changes it as an admin
# would). Tracked by its pid file, as on() runs in subshells too.
# $RUN/simhost-NODE.extra: the test's options for NODE, split into words.
node_up() {
	local node=$1 i nowait= extra=
	shift
	[ "${1:-}" = --no-wait ] && nowait=1 && shift
	[ -e "$SIMHOST_DIR/$node/ready" ] && return 0
	[ -f "$RUN/simhost-$node.extra" ] && extra=$(cat "$RUN/simhost-$node.extra")
	if mkdir "$SIMHOST_DIR/$node.lock" 2>/dev/null; then
		# shellcheck disable=SC2086 # $extra: one option a word
		"$SIMHOSTD" -n "$node" -d "$SIMHOST_DIR" ${SIMHOST_VERBOSE:+-v} $extra "$@" \
			>>"$RUN/simhost-$node.log" 2>&1 </dev/null &
		echo $! >"$SIMHOST_DIR/$node.pid"
	fi
	[ -n "$nowait" ] && return 0
	for i in $(seq 200); do
		[ -e "$SIMHOST_DIR/$node/ready" ] && return 0
		[ -f "$SIMHOST_DIR/$node.pid" ] && ! kill -0 "$(cat "$SIMHOST_DIR/$node.pid")" 2>/dev/null && break
		sleep 0.05
	done
	echo "the simulated host $node did not come up:" >&2
	tail -n 5 "$RUN/simhost-$node.log" >&2
	return 1
}

# simhost NODE CMD...: a command to NODE's simulated kernel (rereg,
# status, drop CLASS on|off, ipoib add NAME[:PKEY], ipoib del NAME,
# modprobe ib_cm, rmmod ib_cm: tests/simhost/kadmin.h).
simhost() {
	local node=$1
	shift
	"$SIMHOSTD" -n "$node" -d "$SIMHOST_DIR" -C "$*"
}

# rmpp_off: every node's MAD layer without RMPP (simhost's `rmpp off`):
# an SA whose long answers arrive as their first MAD, for the product's
# fallbacks (the SubnAdmGet walk).
rmpp_off() {
	local d
	for d in "$SIMHOST_DIR"/*/ready; do
		[ -e "$d" ] || continue
		d=${d%/ready}
		simhost "${d##*/}" rmpp off >/dev/null || return 1
	done
}

on() {
	local node=$1 prog leaks=
	shift
	node_up "$node" || return 1
	# A stock program (not one of this tree's, timeout's argument
	# included) gets the sanitizer runtime but no leak check: its leaks
	# are not ours.
	prog=$1
	[ "$prog" = timeout ] && prog=${3:-}
	case $prog in "$top_builddir"/*) ;; *) leaks=:detect_leaks=0 ;; esac
	(cd "$RUN/scratch" && SIM_HOST=$node LD_PRELOAD=$SIM_PRELOAD \
		ASAN_OPTIONS="$ASAN_OPTIONS$leaks" "$@")
}

atsctl() {
	local node=$1
	shift
	on "$node" "$ATSCTL" "$@"
}

srtool() {
	local node=$1
	shift
	on "$node" "$SRTOOL" "$@"
}

wait_for() {
	local desc=$1 secs=$2 i
	shift 2
	for i in $(seq $((secs * 20))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "timed out after ${secs}s waiting for $desc"
	return 1
}

fabric_start() {
	local topo=$1 nodes node
	mkfifo "$RUN/ibsim.in"
	# ibsim reads its console from stdin and spins at EOF: hold the FIFO
	# open for as long as the test runs.
	sleep 1000000 >"$RUN/ibsim.in" &
	T_FABRIC="$T_FABRIC $!"
	(cd "$RUN" && exec "$IBSIM" -s "$TOPODIR/$topo") <"$RUN/ibsim.in" \
		>"$RUN/ibsim.log" 2>&1 &
	T_FABRIC="$T_FABRIC $!"
	wait_for "ibsim to parse $topo" 20 grep -q 'sim>' "$RUN/ibsim.log" || exit 1
	# A small fabric's hosts all boot with it (each kernel is one of
	# ibsim's 10 clients): a command may then name any node. On a larger
	# one a node's kernel starts at its first use (node_up).
	nodes=$(sed -n 's/^[HC][ca]*[[:space:]].*"\([^"]*\)".*/\1/p' "$TOPODIR/$topo")
	if [ "$(echo "$nodes" | wc -l)" -le 10 ]; then
		for node in $nodes; do
			node_up "$node" --no-wait || exit 1
		done
		for node in $nodes; do
			node_up "$node" || exit 1
		done
	fi

	cat >"$RUN/opensm.conf" <<-CONF
	event_plugin_name osmats
	event_plugin_options osmats_config=$RUN/osmats.conf
	force_log_flush TRUE
	log_file $RUN/osm.log
	dump_files_dir $RUN
	sweep_interval 0
	CONF
	# A test may write $RUN/partitions.conf, $RUN/osmats.conf and
	# $RUN/opensm.extra (more opensm.conf lines) before starting the fabric.
	[ -f "$RUN/opensm.extra" ] && cat "$RUN/opensm.extra" >>"$RUN/opensm.conf"
	[ -f "$RUN/partitions.conf" ] &&
		echo "partition_config_file $RUN/partitions.conf" >>"$RUN/opensm.conf"
	grep -v '^event_plugin' "$RUN/opensm.conf" >"$RUN/opensm-stock.conf"
	sm_start "${SM_CONF:-$RUN/opensm.conf}"
}

# OpenSM's library path: the plugin first (OpenSM dlopens libosmats.so by
# name), then the OpenSM configure found (--with-opensm), then the
# caller's, kept: an OpenSM installed elsewhere may need it. No empty
# entry: that would be the working directory.
OSM_LD_PATH=
for d in "$PLUGIN_DIR" "$OSM_LIBDIR" "${LD_LIBRARY_PATH:-}"; do
	[ -n "$d" ] && OSM_LD_PATH="${OSM_LD_PATH:+$OSM_LD_PATH:}$d"
done

# OpenSM on NODE with CONF, working in DIR (cache, dumps); its pid in
# OSM_LAUNCHED. Stopped at exit like everything else.
osm_launch() {
	local node=$1 dir=$2 conf=$3
	mkdir -p "$dir/cache"
	node_up "$node" || exit 1
	(cd "$dir" && SIM_HOST=$node OSM_CACHE_DIR="$dir/cache" OSM_TMP_DIR="$dir" \
		LD_LIBRARY_PATH="$OSM_LD_PATH" LD_PRELOAD="$SIM_PRELOAD" \
		ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
		exec "$OPENSM" -F "$conf") >"$dir/opensm.out" 2>&1 &
	OSM_LAUNCHED=$!
	T_SMS="$T_SMS $!"
	T_PIDS="$T_PIDS $!"
}

# opensm.conf lines for the only two-SM order that works under ibsim (ibsim
# note, limit 8): no sweeps on traps (a master sweeping on the IsSM trap can
# ask a starting SM that drops the question, and ibsim never times it out),
# and the master above the standby (a standby above the master sends trap
# 144, ibsim drops the repress, and that SM can never finish a sweep as
# master). A handover then takes lowering the master's sm_priority in its
# opensm.conf and a SIGHUP: both are re-read at a heavy sweep.
two_sm_opts() {
	printf 'sweep_on_trap FALSE\nsm_priority 15\nsminfo_polling_timeout 1000\npolling_retry_number 2\n'
}

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

# prober_start NODE IP FILE: in the background, resolve IP on NODE straight
# from the SA (no agent, one 200 ms try), one attempt at a time, each 50 ms
# after the last one started (or as soon as it ends: an atsctl process
# takes 40-70 ms under ibsim); one line per attempt, "<ms since the epoch
# at its end> ok|fail <ms at its start>", until prober_stop FILE.
prober_start() {
	local node=$1 ip=$2 file=$3 dir="$3.d"
	mkdir -p "$dir"
	node_up "$node" || exit 1
	rm -f "$file.stop"
	(
		cd "$dir" || exit 1
		while [ ! -e "$file.stop" ]; do
			t0=$(date +%s%3N)
			if SIM_HOST=$node LD_PRELOAD=$SIM_PRELOAD "$ATSCTL" -n -t 200 -r 0 \
				resolve "$ip" >/dev/null 2>&1; then r=ok; else r=fail; fi
			t1=$(date +%s%3N)
			echo "$t1 $r $t0" >>"$file"
			[ $((t1 - t0)) -lt 50 ] && sleep "$(printf '0.%03d' $((50 - (t1 - t0))))"
		done
	) &
	echo $! >"$file.pid"
	T_PIDS="$T_PIDS $!"
}

prober_stop() {
	touch "$1.stop"
	wait "$(cat "$1.pid")" 2>/dev/null
}

# prober_window FILE: "attempts A failures F first T1 last T2 longest N
# (M ms)", times in ms since the epoch (- without failures); M runs from the
# last success before the longest run to the first one after it.
prober_window() {
	awk '{ n++ }
	$2 == "fail" { f++; if (!first) first = $1; last = $1; if (!run) from = prev ? prev : $1; run++ }
	$2 == "ok" { if (run > best) { best = run; ms = $1 - from } run = 0 }
	{ prev = $1 }
	END { if (run > best) { best = run; ms = prev - from }
		printf "attempts %d failures %d first %s last %s longest %d (%d ms)\n",
			n, f, first ? first : "-", last ? last : "-", best, best ? ms : 0 }' "$1"
}

# prober_fails FILE FROM TO: how many attempts in FILE failed that started
# at or after FROM and ended at or before TO (ms since the epoch).
prober_fails() {
	awk -v a="$2" -v b="$3" '$2 == "fail" && $3 >= a && $1 <= b { n++ } END { print n + 0 }' "$1"
}

# A second OpenSM with the plugin on NODE at sm_priority PRIO, working in
# $RUN/sm2 (log $RUN/sm2/osm.log, state file there); pid in SM2.
second_sm() {
	local node=$1 prio=$2
	mkdir -p "$RUN/sm2"
	sed -e "s|^log_file .*|log_file $RUN/sm2/osm.log|" \
		-e "s|^dump_files_dir .*|dump_files_dir $RUN/sm2|" \
		-e "/^sm_priority /d" "$RUN/opensm.conf" >"$RUN/sm2/opensm.conf"
	echo "sm_priority $prio" >>"$RUN/sm2/opensm.conf"
	osm_launch "$node" "$RUN/sm2" "$RUN/sm2/opensm.conf"
	SM2=$OSM_LAUNCHED
}

# Start OpenSM on node "smhost" with the plugin; wait until the SA answers.
sm_start() {
	osm_launch smhost "$RUN" "${1:-$RUN/opensm.conf}"
	SM_PID=$OSM_LAUNCHED
	# The SA drops requests until the first sweep is done: poll it.
	wait_for "the SA to answer" 30 sa_answers host1 || exit 1
}

# The SA answered (records or none), as opposed to timing out.
sa_answers() {
	atsctl "$1" -t 200 -r 0 dump >/dev/null 2>&1
	[ $? -le 1 ]
}

sm_stop() {
	stop_pid "$SM_PID"
}

subnet_ups() {
	grep -c 'SUBNET UP' "$RUN/osm.log"
}

# Wait until OpenSM logged more than $1 SUBNET UP lines.
wait_subnet_up() {
	wait_for "SUBNET UP number $(($1 + 1))" 20 sh -c "[ \$(grep -c 'SUBNET UP' '$RUN/osm.log') -gt $1 ]"
}

sm_sweep() {
	local n
	n=$(subnet_ups)
	kill -HUP "$SM_PID"
	wait_subnet_up "$n"
}

rules_off() {
	cat >"$RUN/osmats.conf" <<-'CONF'
	enforce_sid_block no
	enforce_service_name no
	enforce_address no
	enforce_service_key no
	enforce_ownership no
	enforce_primary_first no
	enforce_port_duplicate no
	enforce_lease no
	enforce_partition no
	max_records_per_port 0
	duplicate_address allow
	flush_departed no
	CONF
}

sim() {
	echo "$*" >"$RUN/ibsim.in"
}

# kill -9 an OpenSM (PID). Its node's kernel drops its agents with its
# fds, as ib_umad does at a process's death: a Get or Set sent to that port
# afterwards is answered "unsupported" (mad.c generate_unmatched_resp),
# anything else is lost and its sender times out.
sm_kill() {
	local pid=$1
	kill -9 "$pid"
	wait "$pid" 2>/dev/null
}

host_ns() {
	local ns="ibats-$$-$1"
	[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
	ip netns add "$ns" || skip "cannot create network namespaces here"
	T_NETNS="$T_NETNS $ns"
	ip -n "$ns" link add v0 type veth peer name v1
	ip -n "$ns" link set v1 up
	ip -n "$ns" link set v0 up
}

# The namespace host_ns NAME made.
ns() {
	echo "ibats-$$-$1"
}

agent_start() {
	local node=$1 line pid
	shift
	{
		echo "socket $RUN/atsd-$node.sock"
		# Private: simulated fabrics of parallel tests share port GUIDs.
		echo "state_file ${AGENT_STATE_FILE:-$RUN/atsd-$node.state}"
		for line in "$@"; do
			echo "$line"
		done
	} >"$RUN/atsd-$node.conf"
	node_up "$node" || exit 1
	# Connecting by IP is librdmacm's: the kernel's rdma_cm (ib_cm) is
	# loaded wherever a host uses it.
	if [ -z "${AGENT_NO_KERNEL_CM:-}" ] && grep -Eq '^cm(_listen)? ' "$RUN/atsd-$node.conf"; then
		simhost "$node" modprobe ib_cm >/dev/null || exit 1
	fi
	(cd "$RUN/scratch" && SIM_HOST=$node LD_PRELOAD=$SIM_PRELOAD \
		exec "$ATSD" -f ${AGENT_ARGS:-} -c "$RUN/atsd-$node.conf") >>"$RUN/atsd-$node.log" 2>&1 &
	pid=$!
	T_PIDS="$T_PIDS $pid"
	eval "AGENT_PID_$node=$pid"
	wait_for "atsd on $node" 20 agent_answers "$node"
}

# agent_answers NODE: its atsd answers status (exit 4: some address refused).
agent_answers() {
	local rc=0
	agent "$1" status >/dev/null 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ]
}

agent_pid() {
	eval "echo \$AGENT_PID_$1"
}

agent() {
	local node=$1
	shift
	atsctl "$node" -S "$RUN/atsd-$node.sock" "$@"
}

check() {
	local desc=$1
	shift
	T_N=$((T_N + 1))
	if "$@" >"$RUN/last.out" 2>&1; then
		T_PASS=$((T_PASS + 1))
		echo "ok $T_N - $desc"
	else
		T_FAIL=$((T_FAIL + 1))
		echo "not ok $T_N - $desc"
		sed 's/^/#   /' "$RUN/last.out"
	fi
}

# check_json DESC EXPR CMD...: CMD's standard output is one JSON document
# by Python's parser, and the Python expression EXPR over it (d) holds.
check_json() {
	local desc=$1 expr=$2
	shift 2
	check "$desc" _json "$expr" "$@"
}

_json() {
	local expr=$1
	shift
	"$@" >"$RUN/json.out" 2>"$RUN/json.err"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1], "rb"))
ok = eval(sys.argv[2])
print(json.dumps(d)[:2000])
sys.exit(0 if ok else 1)' "$RUN/json.out" "$expr"
}

# check_out DESC REGEX CMD...: CMD succeeds and its output matches REGEX.
check_out() {
	local desc=$1 re=$2
	shift 2
	check "$desc" _match 0 "$re" "$@"
}

# check_rc DESC RC REGEX CMD...: CMD exits with RC, output matches REGEX.
check_rc() {
	local desc=$1 rc=$2 re=$3
	shift 3
	check "$desc" _match "$rc" "$re" "$@"
}

_match() {
	local want=$1 re=$2 rc
	shift 2
	"$@" >"$RUN/cmd.out" 2>&1
	rc=$?
	cat "$RUN/cmd.out"
	if [ "$rc" -ne "$want" ]; then
		echo "exit status $rc, expected $want: $*"
		return 1
	fi
	grep -Eq -- "$re" "$RUN/cmd.out" || { echo "no match for /$re/: $*"; return 1; }
}

# check_count DESC N CMD...: CMD prints exactly N record lines ("0x...").
check_count() {
	local desc=$1 n=$2
	shift 2
	check "$desc" _count "$n" "$@"
}

_count() {
	local want=$1 got
	shift
	got=$("$@" 2>&1 | grep -c '^0x')
	[ "$got" -eq "$want" ] || { echo "$got records, expected $want: $*"; return 1; }
}

# check_absent DESC REGEX CMD...: CMD's output does not match REGEX.
check_absent() {
	local desc=$1 re=$2
	shift 2
	check "$desc" _absent "$re" "$@"
}

_absent() {
	local re=$1
	shift
	! "$@" 2>&1 | grep -Eq -- "$re"
}

# GID of a node's port, as atsctl prints GIDs.
# Whether port GID $2 is in the IPv4 broadcast group of the default
# partition, as stock saquery on node $1 shows it (OpenSM shows members'
# port GIDs to trusted requesters only: --smkey).
bcast_member() {
	on "$1" "$SAQUERY" --smkey 1 MCMR --mgid ff12:401b:ffff::ffff:ffff --gid "$2" 2>/dev/null |
		grep -q "PortGid\.*$2\$"
}

# Whether a line of atsctl ipoib on node $1 matches the regex $2.
ipoib_says() {
	agent "$1" ipoib | grep -Eq "$2"
}

port_gid() {
	atsctl "$1" --json port | sed -n 's/.*"gid": "\([^"]*\)".*/\1/p'
}

port_guid() {
	atsctl "$1" --json port | sed -n 's/.*"port_guid": "\([^"]*\)".*/\1/p'
}

port_lid() {
	atsctl "$1" --json port | sed -n 's/.*"lid": \([0-9]*\),.*/\1/p'
}

# has_primary NODE GID [IP]: NODE reads an ATS primary of GID from the SA
# (not from an agent's cache), and it is IP when IP is given.
has_primary() {
	atsctl "$1" -n primary "$2" 2>/dev/null | grep -q "${3:-^0x}"
}

# gid_records GID N: the SA holds N ATS records of GID (read from host4,
# patient with a lossy or restarting SA).
gid_records() {
	[ "$(atsctl host4 -n -t 300 -r 5 dump --gid "$1" 2>/dev/null | grep -c '^0x')" -eq "$2" ]
}

# Stop what the test started (a race at exit is reported then), then one
# check: no ThreadSanitizer report names code of plugin/, lib/ or
# hostagent/; those that do are printed symbolized.
tsan_check() {
	stop_all
	check "no ThreadSanitizer report names ibats code" \
		"$PYTHON3" "$top_srcdir/tests/integration/tsan_report.py" "$top_srcdir" \
		"$top_builddir" "$RUN"/tsan.*
}

# check: nothing the test started outlives stop_all; what does is killed
# and named.
survivors_check() {
	stop_all
	check "no process the test started outlives it" reap_survivors
}

finish() {
	[ -n "$TSAN" ] && tsan_check
	survivors_check
	echo "# $T_NAME: $T_PASS passed, $T_FAIL failed in ${SECONDS}s"
	echo "1..$T_N"
	[ "$T_FAIL" -eq 0 ]
}
