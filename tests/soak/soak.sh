# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The chaos soak (issue 22; doc/soak.md): a private ibsim fabric
# (fabric8), two OpenSMs with the plugin replicating (harness
# repl_sm_opts), six atsd agents with addresses, a prober resolving their
# static addresses; every few seconds one fault drawn at random (seeded),
# then a bounded wait for the system to settle and the invariants
# checked (invariants.sh). Speaks TAP, as the integration tests.
#
#   make soak [SOAK_SECONDS=3600] [SOAK_SEED=N]
#   make check TESTS=tests/soak/soak.sh SOAK_SECONDS=300     (CI)
#
# SOAK_SEED replays the same sequence of faults (their timing, and so
# what they meet, still varies). SOAK_SETTLE bounds each settle (60 s).
# Last line: "soak: N faults, N checks, N violations"; exit 1 on any.
#
# ibsim 0.10 serves at most 10 clients: 2 OpenSMs, 6 agents, the prober
# and one tool process at a time (host7: dumps, timed writes, storms,
# the lying puller); a fault that needs two tool processes pauses the
# prober. Checks read atsd over its socket and the plugins' state files,
# which cost no client.

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
: "${SOAK_SECONDS:=3600}"
: "${SOAK_SETTLE:=60}"
: "${SOAK_SEED:=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}"
. "$top_srcdir/tests/integration/harness.sh"
for f in procs model probe sms invariants faults; do
	. "$top_srcdir/tests/soak/$f.sh"
done

AGENTS=(host1 host2 host3 host4 host5 host6)
TOOL=host7
# Storms from another port than the timed writes': an ATS Set of the
# same port, SID and P_Key would overwrite the timed one's record.
STORM=host8
declare -A FAULT_N

# soak_agent_start NODE: atsd on NODE following v0 in its namespace, with
# a static primary address; short intervals, so that it notices SM
# changes and lost records within seconds (atsd.conf(5)).
soak_agent_start() {
	agent_start "$1" "interface v0 netns $(ns "$1")" "address ${MODEL_STATIC[$1]} primary" \
		"verify_interval 3" "sm_poll_interval 1" "backoff_max 2" "refused_retry 10"
	procs_track "atsd-$1" atsd "$(agent_pid "$1")"
}

soak_setup() {
	local n i
	repl_sm_opts >"$RUN/opensm.extra"
	for n in "${AGENTS[@]}"; do
		host_ns "$n"
	done
	fabric_start fabric8.net
	# The harness's T_FABRIC: the FIFO holder, then ibsim.
	procs_track ibsim ibsim "$(echo $T_FABRIC | awk '{ print $2 }')"
	sms_init || { echo "Bail out! the second OpenSM did not go STANDBY"; exit 1; }
	i=0
	for n in "${AGENTS[@]}"; do
		i=$((i + 1))
		model_agent "$n" "$(port_gid "$n")" "10.9.$i.1"
		model_new_ip
		ip -n "$(ns "$n")" addr add "$MODEL_IP/32" dev v0
		model_add "$n" "$MODEL_IP"
		soak_agent_start "$n"
	done
	inv_settle "$SOAK_SETTLE" || { echo "Bail out! the fabric did not settle at the start"; exit 1; }
	probe_start "$TOOL" $(model_static_map | awk '{ print $1 }')
}

soak_report() {
	local k v=0 c=0 line=""
	for k in "${!INV_VIOL[@]}"; do
		v=$((v + INV_VIOL[$k]))
	done
	echo "# soak report: seed $SOAK_SEED, ${SOAK_SECONDS}s asked, ran ${SECONDS}s"
	for k in $FAULT_KINDS; do
		line="$line $k ${FAULT_N[$k]:-0},"
	done
	echo "# faults:${line%,}"
	[ -n "$FAULT_LIAR_OFF" ] && echo "# note: $FAULT_LIAR_OFF"
	line=""
	for k in table write lost sms crash rss; do
		line="$line $k ${INV_CHECKS[$k]:-0}/${INV_VIOL[$k]:-0},"
		c=$((c + ${INV_CHECKS[$k]:-0}))
	done
	echo "# checks/violations:${line%,}"
	echo "# tool processes hung, killed: $(cat "$RUN/hangs.log" 2>/dev/null | wc -l)"
	echo "# processes (RSS):"
	procs_summary
	if [ -s "$RUN/violations" ]; then
		echo "# violations:"
		sed 's/^/#   /' "$RUN/violations"
	fi
	# The harness's finish does this for a test: nothing outlives the soak.
	survivors_check
	echo "1..$T_N"
	echo "soak: $SOAK_FAULTS faults, $c checks, $v violations"
	[ "$T_FAIL" -eq 0 ] # the violations and the survivors check
}

soak_setup
echo "# soak: seed $SOAK_SEED (SOAK_SEED=$SOAK_SEED replays the faults), ${SOAK_SECONDS}s"
RANDOM=$SOAK_SEED
SOAK_FAULTS=0
stuck=0
deadline=$((SECONDS + SOAK_SECONDS))
while [ "$SECONDS" -lt "$deadline" ]; do
	inv_table "before fault $((SOAK_FAULTS + 1))"
	fault_pick
	SOAK_FAULTS=$((SOAK_FAULTS + 1))
	FAULT_N[$FAULT_KIND]=$((${FAULT_N[$FAULT_KIND]:-0} + 1))
	t0=$SECONDS
	"fault_$FAULT_KIND"
	echo "# ${t0}s fault $SOAK_FAULTS ($FAULT_KIND, $((SECONDS - t0))s): $FAULT_DESC"
	if inv_settle "$SOAK_SETTLE"; then
		stuck=0
	else
		stuck=$((stuck + 1))
	fi
	probe_excuse_end
	inv_write "quiet point after fault $SOAK_FAULTS"
	inv_alive "after fault $SOAK_FAULTS"
	# An agent that died on its own (reported) is started again, so that
	# one crash does not fail every check after it.
	for n in "${AGENTS[@]}"; do
		[ -n "${PROCS_PID[atsd-$n]:-}" ] || soak_agent_start "$n"
	done
	inv_rss "after fault $SOAK_FAULTS"
	inv_lost "up to fault $SOAK_FAULTS's quiet point"
	if [ "$stuck" -ge 3 ]; then
		echo "# stopped early: 3 faults in a row did not settle"
		break
	fi
	# Quiet time: only the prober runs.
	sleep "$((1 + RANDOM % 4)).$((RANDOM % 10))"
done
inv_table "at the end"
inv_alive "at the end"
inv_rss "at the end"
probe_stop
inv_lost "at the end"
soak_report
