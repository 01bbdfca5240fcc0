# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Replication and OpenSM's SA database file (issue 22, finding 3). With
# sa_db_dump and sa_db_file, the first master sweep after a takeover runs
# OpenSM's osm_sa_db_file_load after the plugin installed its copy: every
# record of the (older) file missing from the copy came back, deletions
# made while the other SM was master included. Here the first SM dumps X
# and Y, hands over, X is deleted at the second master, and the first
# takes the mastership back with its sa_db_file still holding X: X must
# stay deleted, everything set at the second must be there, and the dump
# it writes must be the installed list (a cold start then loads that, as
# OpenSM does without a copy).
. "$top_srcdir/tests/integration/harness.sh"

{ repl_sm_opts; printf 'sa_db_dump TRUE\nsa_db_file %s\n' "$RUN/opensm-sa.dump"; } \
	>"$RUN/opensm.extra"
fabric_up fabric4.net host2 host4
M="$RUN/osmats-state.json"
S="$RUN/sm2/osmats-state.json"
GONE=0x1234567800000010
KEPT=0x1234567800000011

# The second SM as second_sm starts it, but with its own SA database file
# (each SM reads back what it dumped).
mkdir -p "$RUN/sm2"
sed -e "s|^log_file .*|log_file $RUN/sm2/osm.log|" \
	-e "s|^dump_files_dir .*|dump_files_dir $RUN/sm2|" \
	-e "s|^sa_db_file .*|sa_db_file $RUN/sm2/opensm-sa.dump|" \
	-e "/^sm_priority /d" "$RUN/opensm.conf" >"$RUN/sm2/opensm.conf"
echo "sm_priority 10" >>"$RUN/sm2/opensm.conf"
osm_launch host3 "$RUN/sm2" "$RUN/sm2/opensm.conf"
SM2=$OSM_LAUNCHED
check "a second SM with the plugin on host3 goes STANDBY" wait_for "standby" 30 \
	grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"

other() {
	srtool host2 --sid "$1" --gid "$G2" --name "$2" --ip "$3" set
}
records() {
	atsctl host1 register 10.1.0.1 --primary && atsctl host1 register 10.1.0.2 &&
		other $GONE "Gone Service" 10.2.9.1 && other $KEPT "Kept Service" 10.2.9.2
}
check "X (host1's 10.1.0.2, Gone Service) and Y (10.1.0.1, Kept Service) registered" records
check "the standby is in sync" wait_for "the shadow" 30 repl_synced "$S" "$M"
check "a sweep has the first SM dump its SA database" sm_sweep
check "... with X in it" wait_for "the dump" 10 grep -q "Gone Service" "$RUN/opensm-sa.dump"

# What the SA holds, sorted: ATS records, and the two other services.
dump() {
	{
		atsctl host4 -n -t 300 -r 5 dump 2>/dev/null
		srtool host4 --sid $GONE --gid "$G2" get | grep '^sid'
		srtool host4 --sid $KEPT --gid "$G2" get | grep '^sid'
	} | sort
}

repl_handover
check "X is deleted at the second master" sh -c \
	"cd $RUN/scratch && SIM_HOST=host1 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL deregister 10.1.0.2 &&
	 SIM_HOST=host2 LD_PRELOAD='$SIM_PRELOAD' $SRTOOL --sid $GONE --gid $G2 delete"
check "Z (host4's 10.4.0.9) is registered there" atsctl host4 register 10.4.0.9 --primary
check "the first SM, now standby, is in sync with it" wait_for "the shadow" 30 \
	repl_synced "$M" "$S"
dump >"$RUN/second"
check_absent "the second master serves no X" "10\.1\.0\.2|Gone Service" cat "$RUN/second"
check_count "... and 2 ATS records (Y, Z)" 2 cat "$RUN/second"
check "the first SM's SA database file still holds X" grep -q "Gone Service" "$RUN/opensm-sa.dump"

# Hand back: the second drops to 0, below the first's 5.
repl_handback
check "it installed the second master's 3 records" grep -q \
	"osmats replication: installed 3 ServiceRecords from the shadow" "$RUN/osm.log"
dump >"$RUN/back"
check "it serves exactly the second master's records" diff "$RUN/second" "$RUN/back"
check_rc "X (host1's 10.1.0.2) did not come back" 1 "no ATS records" \
	atsctl host4 -n dump --sid 0x10000ce100415454
check_absent "... nor X (Gone Service)" "10\.1\.0\.2|Gone Service" cat "$RUN/back"
check "it says what it dropped from the file, once" sh -c \
	"[ \$(grep -c 'WRN 7A49: 2 ServiceRecords of the SA database file $RUN/opensm-sa.dump' '$RUN/osm.log') -eq 1 ]"
check "the dump it wrote is the installed list: no X" wait_for "the new dump" 10 \
	sh -c "grep -q 'Kept Service' '$RUN/opensm-sa.dump' && ! grep -q 'Gone Service' '$RUN/opensm-sa.dump'"
check "the second SM is in sync as standby" wait_for "the shadow" 30 repl_synced "$S" "$M"

# No copy at a cold start: OpenSM loads its file as it always did.
stop_pid "$SM2"
sm_stop
sm_start
dump >"$RUN/cold"
check "a cold start serves the records of its SA database file: the same" \
	diff "$RUN/second" "$RUN/cold"
check "... and drops none of them" sh -c "[ \$(grep -c 'WRN 7A49' '$RUN/osm.log') -eq 1 ]"
finish
