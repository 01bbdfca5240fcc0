# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Careless admins: no replication key file (replication off, WRN 7A40,
# nothing pulled: the SM_Key alone never enables it), and SMs with
# different sm_keys (OpenSM makes both master: nothing is pulled either).
. "$top_srcdir/tests/integration/harness.sh"
two_sm_opts >"$RUN/opensm.extra"
fabric_start fabric4.net
check "the master: replication off (WRN 7A40)" grep -q "WRN 7A40" "$RUN/osm.log"
check "host1 registers 10.7.0.1" atsctl host1 register 10.7.0.1 --primary
second_sm host3 10
check "standby" wait_for "standby" 30 grep -q "Entering STANDBY state" "$RUN/sm2/osm.log"
check "the standby: replication off (WRN 7A40)" grep -q "WRN 7A40" "$RUN/sm2/osm.log"
check "no pull reached the master" sh -c "! grep -q 'WRN 7A43' '$RUN/osm.log'"
stop_pid "$SM2"
# Mismatched sm_keys, one replication key file.
echo "sm_key 0x00000000000ABCDE" >>"$RUN/opensm.conf"
repl_key
sm_stop
sm_start
check "host1 registers 10.7.0.1 again" atsctl host1 register 10.7.0.1 --primary
sed -e "s|^log_file .*|log_file $RUN/sm3/osm.log|" -e "s|^dump_files_dir .*|dump_files_dir $RUN/sm3|" \
	-e "/^sm_priority /d" -e "s|^sm_key .*|sm_key 0x00000000000ABCDF|" "$RUN/opensm.conf" >"$RUN/sm3.conf"
echo "sm_priority 10" >>"$RUN/sm3.conf"
mkdir -p "$RUN/sm3"
osm_launch host3 "$RUN/sm3" "$RUN/sm3.conf"
SM3=$OSM_LAUNCHED
# OpenSM itself ignores an SM with another sm_key (ERR 2F18) and becomes
# master too: there is no standby, and no replication to break.
check "OpenSM ignores the other SM (ERR 2F18)" wait_for "2F18" 30 grep -q "ERR 2F18" "$RUN/sm3/osm.log"
check "and becomes master itself" wait_for "master" 30 grep -q "SUBNET UP" "$RUN/sm3/osm.log"
check "its plugin is master with no standby" wait_for "the state file" 20 \
	repl_is "$RUN/sm3/osmats-state.json" role=master standbys_in_sync=0
check "no pull between them" sh -c "! grep -q 'WRN 7A43' '$RUN/osm.log' '$RUN/sm3/osm.log'"
finish
