# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Stock ibacm on a node with the ats provider (acmprov/): ibacm_start
# NODE [ADDR...] starts it as Debian's ibacm.service does (unix mode: its
# socket in the node's /run, simhost's shim_path_run), the provider
# copied into a provider_lib_path of its own (ibacm loads regular files
# only), each ADDR in ibacm_addr.cfg (support_ips_in_addr_cfg: the
# simulated IPoIB interfaces are not ARPHRD_INFINIBAND, so ibacm's
# netlink scan finds none). Extra ibacm_opts.cfg lines in $IBACM_OPTS.
# Sourced by harness.sh, in its order: not a script of its own.

IBACM=${IBACM:-/usr/sbin/ibacm}
IB_ACME=${IB_ACME:-/usr/bin/ib_acme}

ibacm_socket() {
	[ -S "$SIMHOST_DIR/$1/run/ibacm-unix.sock" ] && [ -L "$SIMHOST_DIR/$1/run/ibacm.sock" ]
}

ibacm_start() {
	local node=$1 dir=$RUN/ibacm-$1 addr pid
	shift
	mkdir -p "$dir/prov"
	cp "$top_builddir/acmprov/.libs/libibacmats.so" "$dir/prov/"
	{
		echo "log_file $dir/ibacm.log"
		echo "log_level 2"
		echo "lock_file $dir/ibacm.pid"
		echo "server_mode unix"
		echo "provider_lib_path $dir/prov"
		echo "support_ips_in_addr_cfg 1"
		echo "provider ats default"
		echo "ats_socket $RUN/atsd-$node.sock"
		printf '%s\n' "${IBACM_OPTS:-}"
	} >"$dir/opts.cfg"
	: >"$dir/addr.cfg"
	for addr in "$@"; do
		echo "$addr ibsim0 1 0xffff" >>"$dir/addr.cfg"
	done
	node_up "$node" || exit 1
	(cd "$RUN/scratch" && SIM_HOST=$node LD_PRELOAD=$SIM_PRELOAD \
		ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
		exec "$IBACM" -P -O "$dir/opts.cfg" -A "$dir/addr.cfg") >>"$dir/out.log" 2>&1 &
	pid=$!
	T_PIDS="$T_PIDS $pid"
	eval "IBACM_PID_$node=$pid"
	wait_for "ibacm on $node" 20 ibacm_socket "$node"
}

ibacm_pid() {
	eval "echo \${IBACM_PID_$1:-}"
}
