# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The benchmarks' generated ibsim fabric (sourced by run.sh, failover.sh
# and capacity.sh): HOSTS CAs "h1".."hHOSTS" of TOPO_PORTS ports each
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
