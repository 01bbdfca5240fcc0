# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Network namespaces standing for a host's IP stack (host_ns, ns):
# atsd reads interfaces and neighbours there.
# Sourced by harness.sh, in its order: not a script of its own.

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

# host_nets N...: for each N a namespace hN (host_ns), its name in $NN,
# 10.0.0.N/24 on its v0.
host_nets() {
	local n ns
	for n in "$@"; do
		host_ns "h$n"
		ns=$(ns "h$n")
		printf -v "N$n" %s "$ns"
		ip -n "$ns" addr add "10.0.0.$n/24" dev v0
	done
}

# ipoib_addr NODE NAME IP/PREFIX [NS]: IP/PREFIX on NODE's IPoIB
# interface NAME (`ip addr add IP/PREFIX dev NAME` on a host). The
# simulated kernel holds it (simhost NODE ipoib addr: what its rdma_cm
# checks an IP connection request against; NAME is added first at the
# default P_Key when the node has none of that name; `simhost NODE ipoib
# addr` alone gives it to the node's own namespace, host_ns NODE); with NS, an
# interface NAME in that namespace (host_ns) gets it too, as rtnetlink
# shows a host's ib0 to atsd (the bench's netns have no IPoIB devices:
# a veth stands for it there).
ipoib_addr() {
	local node=$1 name=$2 addr=$3 ns=${4:-}
	if ! simhost "$node" ipoib addr "$name" "$addr" >/dev/null 2>&1; then
		simhost "$node" ipoib add "$name" >/dev/null || return 1
		simhost "$node" ipoib addr "$name" "$addr" >/dev/null || return 1
	fi
	# simhost mirrors it into the node's own namespace (host_ns NODE)
	[ -n "$ns" ] && [ "$ns" != "ibats-$$-$node" ] || return 0
	ns_addr "$ns" "$name" "$addr"
}

# ns_addr NS NAME IP/PREFIX: IP/PREFIX on interface NAME in NS, a veth
# made up for it when NS has none of that name (the bench's netns have
# no IPoIB devices: a veth stands for ib0 there).
ns_addr() {
	if ! ip -n "$1" link show "$2" >/dev/null 2>&1; then
		ip -n "$1" link add "$2" type veth peer name "$2-p" || return 1
		ip -n "$1" link set "$2-p" up
		ip -n "$1" link set "$2" up
	fi
	ip -n "$1" addr add "$3" dev "$2"
}

# ipoib_unaddr NODE NAME IP/PREFIX [NS]: the address gone again.
ipoib_unaddr() {
	simhost "$1" ipoib addr del "$2" "$3" >/dev/null || return 1
	[ -z "${4:-}" ] || [ "$4" = "ibats-$$-$1" ] || ip -n "$4" addr del "$3" dev "$2"
}
