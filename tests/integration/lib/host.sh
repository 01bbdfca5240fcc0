# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The simulated hosts (simhost): a node's kernel (node_up, simhost,
# rmpp_off), running a command on a node (on, atsctl, srtool) and what a
# node's port reads (port_gid, port_guid, port_lid, bcast_member).
# Sourced by harness.sh, in its order: not a script of its own.

# node_up NODE [--no-wait] [SIMHOSTD-OPTION...]: NODE's simulated kernel
# runs (simhost/daemon/simhostd: --kernel-cm, --ipoib NAME[:PKEY], --driver
# mlx5|mlx4|qib for the port's async events, mlx5 when not given,
# --no-client-rereg for an SM that sets no ClientReregister there; options
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
# status, drop CLASS on|off, ipoib add NAME[:PKEY], ipoib del NAME, ipoib addr
# [del] NAME IP/PREFIX, ipoib link NAME up|down,
# modprobe ib_cm, rmmod ib_cm: simhost/daemon/kadmin.h).
simhost() {
	local node=$1 ns
	shift
	"$SIMHOSTD" -n "$node" -d "$SIMHOST_DIR" -C "$*" || return
	# An address on a node's IPoIB interface is on the host's ib0 for
	# atsd too: where the node has an IP stack of its own (host_ns), the
	# interface of that name there gets it, as rtnetlink shows ib0's on a
	# host (the simulated kernel has no netdevs: a veth stands for it).
	ns="ibats-$$-$node"
	[ "${1:-} ${2:-}" = "ipoib addr" ] && ip netns list 2>/dev/null | grep -q "^$ns\b" || return 0
	if [ "${3:-}" = del ]; then
		ip -n "$ns" addr del "$5" dev "$4" 2>/dev/null
		return 0
	fi
	ns_addr "$ns" "$3" "$4" 2>/dev/null || true
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

# Whether port GID $2 is in the IPv4 broadcast group of the default
# partition, as stock saquery on node $1 shows it (OpenSM shows members'
# port GIDs to trusted requesters only: --smkey).
bcast_member() {
	on "$1" "$SAQUERY" --smkey 1 MCMR --mgid ff12:401b:ffff::ffff:ffff --gid "$2" 2>/dev/null |
		grep -q "PortGid\.*$2\$"
}

# GID of a node's port, as atsctl prints GIDs.
port_gid() {
	atsctl "$1" --json port | sed -n 's/.*"gid": "\([^"]*\)".*/\1/p'
}

port_guid() {
	atsctl "$1" --json port | sed -n 's/.*"port_guid": "\([^"]*\)".*/\1/p'
}

# NodeGUID of a node's port, as saquery NR shows it (0x and 16 digits),
# asked from host2.
node_guid() {
	on host2 "$SAQUERY" NR "$(port_lid "$1")" 2>/dev/null |
		sed -n 's/^[[:space:]]*node_guid\.*0x\([0-9a-fA-F]*\)$/\1/p' |
		{ read -r g && printf '0x%016x' "0x$g"; }
}

port_lid() {
	atsctl "$1" --json port | sed -n 's/.*"lid": \([0-9]*\),.*/\1/p'
}
