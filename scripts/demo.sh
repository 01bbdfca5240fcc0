#!/bin/bash
# Demo: a simulated 8-host fabric (ibsim), OpenSM with the osmats plugin,
# hosts registering their addresses, and the ATS table as one host sees it.
# Run from the build tree after `make`.
top_builddir=$(cd "$(dirname "$0")/.." && pwd)
top_srcdir=$top_builddir
export top_builddir top_srcdir
. "$top_srcdir/tests/integration/harness.sh"
say() { printf '\n== %s\n' "$*"; }

say "starting ibsim (ibsim-topologies/fabric8.net) and OpenSM with libosmats.so"
fabric_start fabric8.net
grep -o 'osmats .* loaded.*' "$RUN/osm.log"

say "hosts register their IPoIB addresses (primary first)"
for n in 1 2 3 4 5 6 7; do
	atsctl host$n register 10.10.0.$n --primary
done
atsctl host1 register 10.10.1.1
atsctl host1 register fd00:10::1
atsctl host2 register 10.10.1.2
atsctl host8 register 10.10.0.8 --primary

say "registrations that break the ATS rules are refused by the SM"
atsctl host3 register 10.10.9.9 --sid 0x10000CE100415553
atsctl host3 register 10.10.0.1 --gid "$(port_gid host1)"
atsctl host3 register 10.10.0.1
grep -o 'ERR 7A0.*' "$RUN/osm.log"

say "host6 is unplugged: the SM flushes its records"
sim 'Unlink "host6"'
wait_for "flush" 10 grep -q 'WRN 7A10' "$RUN/osm.log"
grep -o 'WRN 7A10.*' "$RUN/osm.log"

say "the ATS table, as host5 reads it from the SA"
atsctl host5 -v dump

say "resolve 10.10.1.1"
atsctl host5 resolve 10.10.1.1
say "primary address of host1"
atsctl host5 primary "$(port_gid host1)"
say "the SM's view: counters in the plugin's state file"
sed -n '/"counters"/,/^  },/p' "$RUN/osmats-state.json"
