# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsd on a node: start it (agent_start), talk to it (agent, atsctl -S),
# its pid and readiness (agent_pid, agent_answers), its IPoIB view
# (ipoib_says).
# Sourced by harness.sh, in its order: not a script of its own.

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

# Whether a line of atsctl ipoib on node $1 matches the regex $2.
ipoib_says() {
	agent "$1" ipoib | grep -Eq "$2"
}
