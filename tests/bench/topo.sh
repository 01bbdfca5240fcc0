# The benchmarks' generated ibsim fabric (sourced by run.sh and
# failover.sh): HOSTS CA ports "h1".."hHOSTS" on leaf switches of 16
# under one spine, the SM node "smhost" on the spine, and each further
# name given (failover.sh: "smhost2") as one more CA on the spine.
#   bench_topology HOSTS FILE [SM_NODE...]
bench_topology() {
	local hosts=$1 file=$2 nleaf l i h n
	shift 2
	nleaf=$(( (hosts + 15) / 16 ))
	{
		printf 'Switch\t%d "spine"\n' $((nleaf + 1 + $#))
		for l in $(seq 1 "$nleaf"); do printf '[%d]\t"leaf%d"[17]\n' "$l" "$l"; done
		printf '[%d]\t"smhost"[1]\n' $((nleaf + 1))
		i=$((nleaf + 1))
		for n in "$@"; do
			i=$((i + 1))
			printf '[%d]\t"%s"[1]\n' "$i" "$n"
		done
		printf '\n'
		for l in $(seq 1 "$nleaf"); do
			printf 'Switch\t17 "leaf%d"\n' "$l"
			for i in $(seq 1 16); do
				h=$(( (l - 1) * 16 + i ))
				[ "$h" -le "$hosts" ] && printf '[%d]\t"h%d"[1]\n' "$i" "$h"
			done
			printf '[17]\t"spine"[%d]\n\n' "$l"
		done
		printf 'Hca\t1 "smhost"\n[1]\t"spine"[%d]\n\n' $((nleaf + 1))
		i=$((nleaf + 1))
		for n in "$@"; do
			i=$((i + 1))
			printf 'Hca\t1 "%s"\n[1]\t"spine"[%d]\n\n' "$n" "$i"
		done
		for h in $(seq 1 "$hosts"); do
			l=$(( (h - 1) / 16 + 1 )); i=$(( (h - 1) % 16 + 1 ))
			printf 'Hca\t1 "h%d"\n[1]\t"leaf%d"[%d]\n\n' "$h" "$l" "$i"
		done
	} >"$file"
}
