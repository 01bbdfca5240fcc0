# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The benchmarks' generated ibsim fabrics and their clients (sourced by
# every bench script; bench_clients at the end): HOSTS CAs "h1".."hHOSTS" of TOPO_PORTS ports each
# (default 1), their ports on leaf switches of TOPO_PER (default 16) under
# one spine, the SM node "smhost" on the spine, and each further name
# given (failover.sh: "smhost2") as one more CA on the spine. ibsim takes
# at most 256 switches and 2048 nodes: thousands of GIDs need wide leaves
# and CAs of several ports (capacity.sh).
#   bench_topology HOSTS FILE [SM_NODE...]
bench_topology() {
	local hosts=$1 file=$2 per=${TOPO_PER:-16} np=${TOPO_PORTS:-1} nleaf l i h n k
	shift 2
	nleaf=$(( (hosts * np + per - 1) / per ))
	{
		printf 'Switch\t%d "spine"\n' $((nleaf + 1 + $#))
		for l in $(seq 1 "$nleaf"); do printf '[%d]\t"leaf%d"[%d]\n' "$l" "$l" $((per + 1)); done
		printf '[%d]\t"smhost"[1]\n' $((nleaf + 1))
		i=$((nleaf + 1))
		for n in "$@"; do
			i=$((i + 1))
			printf '[%d]\t"%s"[1]\n' "$i" "$n"
		done
		printf '\n'
		for l in $(seq 1 "$nleaf"); do
			printf 'Switch\t%d "leaf%d"\n' $((per + 1)) "$l"
			for i in $(seq 1 "$per"); do
				k=$(( (l - 1) * per + i - 1 ))
				[ "$k" -lt $((hosts * np)) ] &&
					printf '[%d]\t"h%d"[%d]\n' "$i" $((k / np + 1)) $((k % np + 1))
			done
			printf '[%d]\t"spine"[%d]\n\n' $((per + 1)) "$l"
		done
		printf 'Hca\t1 "smhost"\n[1]\t"spine"[%d]\n\n' $((nleaf + 1))
		i=$((nleaf + 1))
		for n in "$@"; do
			i=$((i + 1))
			printf 'Hca\t1 "%s"\n[1]\t"spine"[%d]\n\n' "$n" "$i"
		done
		for h in $(seq 1 "$hosts"); do
			printf 'Hca\t%d "h%d"\n' "$np" "$h"
			for i in $(seq 1 "$np"); do
				k=$(( (h - 1) * np + i - 1 ))
				printf '[%d]\t"leaf%d"[%d]\n' "$i" $((k / per + 1)) $((k % per + 1))
			done
			printf '\n'
		done
	} >"$file"
}

# A two-level fat tree of NODES ibsim nodes in all (sweep.sh): leaf
# switches of PORTS ports (36 or 64), half down to one-port CAs, half up,
# one to each of PORTS/2 spines. The CAs are the SM node "smhost" and
# each further name given, then "h1".."hN" with N as large as NODES
# allows; FATTREE_HOSTS is set to N.
#   bench_fattree NODES PORTS FILE [SM_NODE...]
bench_fattree() {
	local nodes=$1 ports=$2 file=$3 down up nleaf ncas l s i
	shift 3
	down=$((ports / 2))
	up=$((ports - down))
	# The most CAs whose leaves and spines still fit in NODES.
	ncas=$((nodes - up))
	while [ $((ncas + (ncas + down - 1) / down + up)) -gt "$nodes" ]; do
		ncas=$((ncas - 1))
	done
	nleaf=$(( (ncas + down - 1) / down ))
	FATTREE_HOSTS=$((ncas - 1 - $#))
	# CA k (0-based): the SM nodes first, then h1..
	set -- smhost "$@"
	awk -v ncas="$ncas" -v nleaf="$nleaf" -v down="$down" -v up="$up" -v ports="$ports" \
		-v sms="$*" '
		function ca(k) { return k < nsm ? sm[k + 1] : "h" (k - nsm + 1) }
		BEGIN {
			nsm = split(sms, sm, " ")
			for (s = 1; s <= up; s++) {
				printf "Switch\t%d \"spine%d\"\n", nleaf, s
				for (l = 1; l <= nleaf; l++)
					printf "[%d]\t\"leaf%d\"[%d]\n", l, l, down + s
				printf "\n"
			}
			for (l = 1; l <= nleaf; l++) {
				printf "Switch\t%d \"leaf%d\"\n", ports, l
				for (i = 1; i <= down; i++) {
					k = (l - 1) * down + i - 1
					if (k < ncas)
						printf "[%d]\t\"%s\"[1]\n", i, ca(k)
				}
				for (s = 1; s <= up; s++)
					printf "[%d]\t\"spine%d\"[%d]\n", down + s, s, l
				printf "\n"
			}
			for (k = 0; k < ncas; k++)
				printf "Hca\t1 \"%s\"\n[1]\t\"leaf%d\"[%d]\n\n", ca(k),
					int(k / down) + 1, k % down + 1
		}' >"$file"
}

# bench_clients OUT ARGS...: capbench ARGS on h1..hCLIENTS at once (the
# harness's on(), CAPBENCH and RUN), node i's output in $RUN/OUT.i; @I@
# in ARGS becomes i - 1, the node's share of a split load. Returns when
# every node's is done.
bench_clients() {
	local out=$1 i a pids=""
	local -a args
	shift
	for i in $(seq 1 "$CLIENTS"); do
		args=()
		for a in "$@"; do
			args+=("${a//@I@/$((i - 1))}")
		done
		on "h$i" "$CAPBENCH" "${args[@]}" >"$RUN/$out.$i" 2>&1 &
		pids="$pids $!"
	done
	# shellcheck disable=SC2086
	wait $pids
}
