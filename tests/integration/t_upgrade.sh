# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Replication across plugin versions, as a site upgrades (doc/deploy.md:
# standbys first, then a handover, then the old master): the previous
# plugin (IBATS_OLD_REV, default a49289b: the last landed before the
# windowed change stream, replication's newest change) as master and this
# one as its standby, then this one master after the old one dies and the
# old one back as its standby. Each way the standby gets in sync and holds
# the master's records. Built from git history by tests/tools/old-plugin.sh
# (once per build tree, in .old-plugin); skipped in a tree without it (a release tarball).
. "$top_srcdir/tests/integration/harness.sh"
OLD_REV=${IBATS_OLD_REV:-a49289b}
OLD="$top_builddir/.old-plugin/$OLD_REV"
rc=0
"$top_srcdir/tests/tools/old-plugin.sh" "$top_srcdir" "$OLD_REV" "$OLD" || rc=$?
[ "$rc" -eq 77 ] && skip "no git history here: the plugin of $OLD_REV cannot be built"
[ "$rc" -eq 0 ] || { tail -n 20 "$OLD/build.log"; exit 1; }
NEW_LD_PATH=$OSM_LD_PATH

# takes_over PID DIR WHO N NODE SID: the master PID killed, the standby
# logging in DIR (WHO: "new", "old") is master with at least N records,
# and the last of NODE's Sets (SID) is in its SA.
takes_over() {
	local inst
	sm_kill "$1"
	check "the $3 standby takes over" wait_for "the $3 master" 30 grep -q "SUBNET UP" "$2/osm.log"
	inst=$(sed -n 's/.*installed \([0-9]*\) ServiceRecords.*/\1/p' "$2/osm.log" | tail -n 1)
	echo "# the $3 master installed ${inst:-none} records"
	check "... installing at least $4 records" test "${inst:-0}" -ge "$4"
	check "the SA answers" wait_for "the SA" 20 sa_answers host4
	check_out "$5's last record is there" "status 0x0000" srtool "$5" --sid "$6" delete
}
OLD_LD_PATH=$OLD/plugin/.libs${OSM_LIBDIR:+:$OSM_LIBDIR}

# 1. Standbys first: the old master, a new standby.
OSM_LD_PATH=$OLD_LD_PATH
repl_fabric fabric4.net
check "the old plugin (commit $OLD_REV) runs the master" \
	grep -q "$OLD/plugin/.libs/libosmats.so" /proc/"$SM_PID"/maps
check "host1 sets 100 records on the old master" \
	srtool host1 --sid 0x1000 --name other --count 100 set
OSM_LD_PATH=$NEW_LD_PATH
second_sm host3 10
check "the new standby gets in sync with the old master" \
	wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm2/osm.log"
check "this plugin runs the standby" \
	sh -c "grep libosmats /proc/$SM2/maps | grep -qv '$OLD'"
check "host2 sets 50 more while it is in sync" \
	srtool host2 --sid 0x2000 --name other --count 50 set

# 2. The old master goes (the handover of an upgrade): the new standby
# takes over with every record.
takes_over "$SM_PID" "$RUN/sm2" new 150 host2 $((0x2000 + 49))

# 3. The old plugin back as the new master's standby (an SM not yet
# upgraded restarted, or the order the other way round).
OSM_LD_PATH=$OLD_LD_PATH
mkdir -p "$RUN/sm3"
sed -e "s|^log_file .*|log_file $RUN/sm3/osm.log|" -e "s|^dump_files_dir .*|dump_files_dir $RUN/sm3|" \
	-e "/^sm_priority /d" "$RUN/opensm.conf" >"$RUN/sm3/opensm.conf"
echo "sm_priority 5" >>"$RUN/sm3/opensm.conf"
osm_launch smhost "$RUN/sm3" "$RUN/sm3/opensm.conf"
check "the old standby gets in sync with the new master" \
	wait_for "in sync" 30 grep -q "in sync with master" "$RUN/sm3/osm.log"
check "... the old plugin runs it" grep -q "$OLD/plugin/.libs/libosmats.so" /proc/"$OSM_LAUNCHED"/maps
check "host1 sets 20 more on the new master" \
	srtool host1 --sid 0x3000 --name other --count 20 set
takes_over "$SM2" "$RUN/sm3" old 169 host1 $((0x3000 + 19))
finish
