# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Fail closed: a config error at start names file:line, and the plugin
# runs with its built-in defaults, every rule on; a fixed file is loaded
# at the next sweep. Only an explicit setting turns a rule off.
. "$top_srcdir/tests/integration/harness.sh"

printf '# osmats\nenforce_ownership no\nno_such_key yes\n' >"$RUN/osmats.conf"
fabric_up fabric4.net host1
check_out "the error names the file, line and key" \
	"ERR 7A20: $RUN/osmats.conf:3: unknown key 'no_such_key'" cat "$RUN/osm.log"
check_out "the plugin runs with its defaults, every rule on" \
	"ERR 7A23: $RUN/osmats.conf not used: osmats runs with its built-in defaults, every rule on: .*enforce_ownership=yes .*enforce_partition=yes" \
	cat "$RUN/osm.log"
check "OpenSM runs: the SA answers" sa_answers host2
check_rc "ownership is enforced (the broken file's 'no' is not): REQ_INVALID" 3 '^status 0x0200$' \
	srtool host2 --gid "$G1" --ip 10.1.0.1 set
check_rc "the SID block rule too" 3 '^status 0x0200$' \
	srtool host1 --sid 0x10000CE100415553 --ip 10.1.0.1 set
check_out "... logged as WRN 7A05" "WRN 7A05: ATS rule ownership: rejected" cat "$RUN/osm.log"

# The fixed file is read at the next sweep and its explicit setting holds.
printf 'enforce_ownership no\n' >"$RUN/osmats.conf"
check "OpenSM sweeps" sm_sweep
check "the fixed file is loaded" wait_for "reload" 10 grep -q "reloaded $RUN/osmats.conf" "$RUN/osm.log"
check_out "an explicit 'enforce_ownership no' turns that rule off" '^status 0x0000$' \
	srtool host2 --gid "$G1" --ip 10.1.0.1 set

# A bad value on reload keeps the settings in force.
printf 'enforce_ownership yes\nmax_records_per_port -1\n' >"$RUN/osmats.conf"
check "OpenSM sweeps again" sm_sweep
check "the bad value is reported" wait_for "ERR 7A21" 10 grep -q "ERR 7A21" "$RUN/osm.log"
check_out "... the previous settings stay (ownership still off)" '^status 0x0000$' \
	srtool host2 --sid 0x10000CE100415454 --gid "$G1" --ip 10.1.0.2 set
finish
