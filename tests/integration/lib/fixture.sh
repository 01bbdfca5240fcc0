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

# repl_pair: two SMs replicating on fabric4 (repl_sm_opts): the master
# on smhost, a standby second_sm on host3 at priority 10. Write
# $RUN/osmats.conf before (both SMs read it); the test waits for the
# standby as it needs (in sync, STANDBY).
repl_pair() {
	repl_sm_opts >"$RUN/opensm.extra"
	fabric_start fabric4.net
	second_sm host3 10
}
