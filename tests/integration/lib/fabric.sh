# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The fabric and its SMs: ibsim and OpenSM with the plugin
# (fabric_start, sm_start, second_sm, osm_launch), their control (sim,
# sm_stop, sm_kill, sm_sweep), opensm.conf and osmats.conf pieces
# (two_sm_opts, rules_off) and what the SA holds (has_primary,
# gid_records).
# Sourced by harness.sh, in its order: not a script of its own.

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
