# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Differential test of the plugin's indexed ServiceRecord path: the same
# reproducible workload against stock OpenSM and against OpenSM with the
# plugin (its ATS rules off, so that only the indexed path differs) must
# give byte-identical answers. The workload (tests/tools/srdiff.c) mixes
# ATS and other records, PKeys the requester holds and lacks, masks
# without PKey, lease or GID, Deletes of held and absent records; then
# Gets and GetTables from four ports in different partitions, with and
# without the SA key, after short leases ran out. Every answer is
# compared whole, byte for byte: one MAD, or a GetTable answer the
# simulated kernel put together from its RMPP segments (records and
# their order, attribute offset and count); then, with
# several hundred records more (srdiff fill), whole tables of every
# record, by GID, by name, by SID and by PKey (srdiff tables).
. "$top_srcdir/tests/integration/harness.sh"

SRDIFF="$top_builddir/tests/tools/srdiff"
SEED=${SR_DIFF_SEED:-20261123}
NLOAD=${SR_DIFF_LOAD:-600}
NQUERY=${SR_DIFF_QUERIES:-1500}
NFILL=${SR_DIFF_FILL:-320}
SHORT=0x10000ce1004154ee

echo 'Default=0x7fff, ipoib : ALL=full ;' >"$RUN/partitions.conf"
rules_off
SM_CONF="$RUN/opensm-stock.conf" fabric_start fabric8.net
# host1 loads (0x8001 full), host3 is a limited member of 0x8001, host4
# holds 0x8002 only, host5 the default partition only.
cat >"$RUN/partitions.conf" <<PART
Default=0x7fff, ipoib : ALL=full ;
p1=0x8001 : $(port_guid host1)=full, $(port_guid host2)=full, $(port_guid host3)=limited, $(port_guid smhost)=full ;
p2=0x8002 : $(port_guid host4)=full ;
PART
check "stock OpenSM takes the partitions" sm_sweep

fresh_state() {
	local ino
	ino=$(stat -c %i "$RUN/osmats-state.json" 2>/dev/null) || return 0
	check "a sweep writes the plugin's state file" sm_sweep
	wait_for "a new state file" 10 sh -c "[ \"\$(stat -c %i '$RUN/osmats-state.json')\" != $ino ]"
}

workload() {
	local sm=$1 node
	check "$sm: $NLOAD Sets and Deletes answered" \
		sh -c "cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $SRDIFF load $SEED $NLOAD >$RUN/$sm.load && ! grep -q timeout $RUN/$sm.load"
	check "$sm: the 2 s leases run out" wait_for "expiry" 30 on host1 "$SRDIFF" gone $SHORT
	# The harness's readiness probe may have reached the SA during the
	# first master sweep, which the index does not serve, and the expiry
	# polls during a rebuild: count from here, in a state file written
	# after them (a sweep writes it at once; it is replaced by rename).
	fresh_state
	FALLBACK0=$(sed -n 's/.*"gets_fallback": \([0-9]*\),.*/\1/p' "$RUN/osmats-state.json" 2>/dev/null)
	for node in host1 host3 host4 host5; do
		check "$sm: $NQUERY queries from $node answered" \
			sh -c "cd $RUN/scratch && SIM_HOST=$node LD_PRELOAD='$SIM_PRELOAD' $SRDIFF query $SEED $NLOAD $NQUERY >$RUN/$sm.$node && ! grep -q timeout $RUN/$sm.$node"
	done
	check "$sm: $NFILL more records set" \
		sh -c "cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $SRDIFF fill $NFILL >$RUN/$sm.fill && ! grep -q timeout $RUN/$sm.fill"
	for node in host1 host3 host4 host5; do
		check "$sm: whole tables from $node answered" \
			sh -c "cd $RUN/scratch && SIM_HOST=$node LD_PRELOAD='$SIM_PRELOAD' $SRDIFF tables >$RUN/$sm.tables.$node && ! grep -q timeout $RUN/$sm.tables.$node"
	done
}

workload stock
sm_stop
sm_start "$RUN/opensm.conf"
workload plugin

same() {
	cmp -s "$RUN/stock.$1" "$RUN/plugin.$1" && return 0
	diff "$RUN/stock.$1" "$RUN/plugin.$1" | head -n 6 | cut -c1-300
	return 1
}
check "Set/Delete answers are identical" same load
check "... and those of the fill" same fill
for node in host1 host3 host4 host5; do
	check "answers to $node are identical" same $node
	check "whole tables to $node are identical" same tables.$node
done

# The records of the largest multi-MAD answer (RMPP) among srdiff's lines.
max_n() {
	sed -n 's/.* n \([0-9]*\) off .*/\1/p' "$@" | sort -n | tail -1
}
check "every record in one answer: $(max_n "$RUN/plugin.tables.host1") records" \
	test "$(max_n "$RUN/plugin.tables.host1")" -ge "$NFILL"
check "... multi-MAD answers in the random queries too (largest $(max_n "$RUN"/plugin.host?))" \
	test "$(max_n "$RUN"/plugin.host?)" -ge 100
check "... and tables by GID, name, SID and PKey of several records" \
	test "$(grep -c ' n [0-9]* off ' "$RUN/plugin.tables.host1")" -ge 20

# The workload is not trivial: every kind of answer occurs.
n_status() {
	cat "$RUN"/plugin.* | grep -c " status $1"
}
check "the workload has successes" test "$(n_status 0x0000)" -gt 1000
check "... REQ_INVALID answers" test "$(n_status 0x0200)" -gt 10
check "... NO_RECORDS answers" test "$(n_status 0x0300)" -gt 100
check "... and records the requester may not see" \
	test "$(grep -c 'len 0 *$' "$RUN/plugin.host5")" -gt "$(grep -c 'len 0 *$' "$RUN/plugin.host1")"

STATE="$RUN/osmats-state.json"
# The worker writes the state file after a sweep, at most once a second:
# poll it rather than read what an earlier write left.
all_indexed() {
	local n
	n=$(sed -n 's/.*"gets_indexed": \([0-9]*\), "gets_fallback": '"${FALLBACK0:-0}"',.*/\1/p' "$STATE")
	[ "${n:-0}" -ge $((4 * NQUERY)) ]
}
check "the plugin sweeps" sm_sweep
check "every query was answered from the index" wait_for "the index counters" 10 all_indexed
check "the index was rebuilt after the leases ran out" \
	grep -Eq '"rebuilds": [2-9]' "$STATE"

# indexed_queries no (reloaded at a sweep): OpenSM's own scan answers,
# with the same bytes (the tables: the random queries ran before the fill).
echo "indexed_queries no" >>"$RUN/osmats.conf"
check "the plugin rereads its config" sm_sweep
check "... and applies it" wait_for "the reload" 10 grep -q "reloaded $RUN/osmats.conf" "$RUN/osm.log"
check "tables for host3 handed to OpenSM's scan answer the same" \
	sh -c "cd $RUN/scratch && SIM_HOST=host3 LD_PRELOAD='$SIM_PRELOAD' $SRDIFF tables >$RUN/scan.tables.host3 && cmp -s $RUN/scan.tables.host3 $RUN/plugin.tables.host3"
NTABLES=$(grep -c . "$RUN/scan.tables.host3")
check "OpenSM sweeps once more" sm_sweep
check "... each of the $NTABLES counted once as handed to OpenSM" wait_for "fallback count" 10 \
	grep -Eq "\"gets_fallback\": $((${FALLBACK0:-0} + NTABLES))[,}]" "$STATE"
finish
