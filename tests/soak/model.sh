# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# What the live agents want registered (tests/soak/soak.sh), the soak's
# own bookkeeping: each agent's static primary address (its atsd.conf)
# and the addresses the soak put on the interface atsd follows (ip addr
# in the agent's network namespace). The SA's ATS table must equal it.

declare -A MODEL_GID MODEL_STATIC MODEL_CHURN
MODEL_REMOVED=" "
MODEL_NEXT=1

# model_agent NODE GID STATIC_IP
model_agent() {
	MODEL_GID[$1]=$2
	MODEL_STATIC[$1]=$3
	MODEL_CHURN[$1]=""
}

# model_want: the wanted ATS records, "GID IP 1|0" (1: primary), sorted;
# none of MODEL_OFF's, a node whose port is off the fabric.
MODEL_OFF=""
model_want() {
	local n ip
	for n in "${!MODEL_GID[@]}"; do
		[ "$n" = "$MODEL_OFF" ] && continue
		echo "${MODEL_GID[$n]} ${MODEL_STATIC[$n]} 1"
		for ip in ${MODEL_CHURN[$n]}; do
			echo "${MODEL_GID[$n]} $ip 0"
		done
	done | sort
}

# model_new_ip: an address never used before (10.2.0.0/16) in MODEL_IP.
# (Draws set variables: in a $(...) subshell the counter and $RANDOM
# would not advance.)
model_new_ip() {
	MODEL_IP="10.2.$((MODEL_NEXT / 250)).$((MODEL_NEXT % 250 + 1))"
	MODEL_NEXT=$((MODEL_NEXT + 1))
}

model_add() {
	MODEL_CHURN[$1]="${MODEL_CHURN[$1]} $2"
	MODEL_REMOVED=${MODEL_REMOVED/ $2 / }
}

model_del() {
	local ip keep=""
	for ip in ${MODEL_CHURN[$1]}; do
		[ "$ip" = "$2" ] || keep="$keep $ip"
	done
	MODEL_CHURN[$1]=$keep
	MODEL_REMOVED="$MODEL_REMOVED$2 "
}

# model_removed IP: IP was wanted once and removed since.
model_removed() {
	case $MODEL_REMOVED in *" $1 "*) return 0 ;; esac
	return 1
}

model_count() {
	set -- ${MODEL_CHURN[$1]}
	echo $#
}

# model_pick NODE: one of NODE's churned addresses, chosen by $RANDOM,
# in MODEL_IP.
model_pick() {
	set -- ${MODEL_CHURN[$1]}
	[ $# -gt 0 ] || return 1
	shift $((RANDOM % $#))
	MODEL_IP=$1
}

# model_static_map: "IP NODE" for every static address (the prober's).
model_static_map() {
	local n
	for n in "${!MODEL_GID[@]}"; do
		echo "${MODEL_STATIC[$n]} $n"
	done
}
