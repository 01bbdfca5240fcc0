# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The Prometheus files: osmats.prom beside the plugin's state file and
# atsd's metrics_file parse with the reference Python client's parser,
# and count what was done.
. "$top_srcdir/tests/integration/harness.sh"

# The Debian package's module is the system python's: a python3 first on
# PATH (a pyenv shim) may lack it, and the test must not skip for that.
PY=
for p in python3 /usr/bin/python3; do
	"$p" -c 'import prometheus_client.parser' 2>/dev/null && PY=$p && break
done
[ -n "$PY" ] || skip "python3-prometheus-client is not installed"
fabric_start fabric4.net
PROM="$RUN/osmats.prom"
promcheck() {
	"$PY" "$top_srcdir/tests/tools/promcheck.py" "$@"
}

check "host2 registers 10.0.0.2" atsctl host2 register 10.0.0.2
check "osmats.prom appears beside the state file" wait_for "osmats.prom" 10 test -s "$PROM"
check "... parses, and counts the Set and the ATS record" wait_for "counts" 10 \
	promcheck "$PROM" 'ibats_sm_sets_accepted_total=1+' 'ibats_sm_records{service="ats"}=1+' \
	'ibats_sm_ats_records{state="present"}=1+' 'ibats_sm_repl_role{role="off"}=1'
check "... no temporary is left" test ! -e "$PROM.tmp"

# atsd runs as root: a symlink planted at its temporary's name (another
# user's, in a world-writable directory) is not written through.
echo victim >"$RUN/victim"
ln -s "$RUN/victim" "$RUN/atsd-host1.prom.tmp"
agent_start host1 "metrics_file $RUN/atsd-host1.prom" "address 10.0.0.1"
check "atsd writes its metrics_file" wait_for "atsd metrics" 20 test -s "$RUN/atsd-host1.prom"
check "... not through a symlink planted at its temporary" \
	test "$(cat "$RUN/victim")" = victim -a ! -L "$RUN/atsd-host1.prom"
# Every series names atsd's port, as one atsd per port (atsd@) needs.
P=$(sed -n 's/^ibats_host_records{\(ca="[^"]*",port="1"\)} .*/\1/p' "$RUN/atsd-host1.prom")
check "... its series name the CA and port" test -n "$P"
check "... and count the registration" wait_for "atsd counts" 20 \
	promcheck "$RUN/atsd-host1.prom" "ibats_host_addresses{$P,state=\"registered\"}=1" \
	"ibats_host_records{$P}=1" "ibats_host_sa_queries_total{$P}=1+"
check "a lookup through atsd" agent host1 resolve 10.0.0.2
check "... counted as a cache miss within the interval" wait_for "miss" 20 \
	promcheck "$RUN/atsd-host1.prom" "ibats_host_cache_misses_total{$P}=1+"
finish
