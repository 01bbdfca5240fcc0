# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Fixtures: the preludes many tests share, one line each, so that a test
# starts with what it is about.
# Sourced by harness.sh, in its order: not a script of its own.

# fabric_up TOPOLOGY [NODE...]: fabric_start TOPOLOGY, then each NODE's
# port GID in G<n>, n the digits ending NODE's name (host1 -> G1);
# exits when one is empty (the fabric is not up).
fabric_up() {
	local topo=$1 node gid
	shift
	fabric_start "$topo"
	for node in "$@"; do
		gid=$(port_gid "$node")
		[ -n "$gid" ] || { echo "no port GID of $node"; exit 1; }
		printf -v "G${node##*[!0-9]}" %s "$gid"
	done
}

# repl_fabric TOPOLOGY [NODE...]: fabric_up with replication on
# (repl_sm_opts in $RUN/opensm.extra): the master on smhost; start the
# standby with second_sm. Write $RUN/osmats.conf before (every SM reads
# it; repl_key appends its line).
repl_fabric() {
	repl_sm_opts >"$RUN/opensm.extra"
	fabric_up "$@"
}
