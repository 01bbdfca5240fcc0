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
