# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Integration harness: a private ibsim fabric, OpenSM with the just-built
# plugin, and commands run on chosen simulated nodes. Source it from a test;
# it cleans up every process it started when the test exits, pass or fail.
# A failed test keeps its directory; T_KEEP=1 keeps it after a pass too.
#
#   fabric_start TOPOLOGY        ibsim + OpenSM (SM on node "smhost")
#   sm_stop                      stop OpenSM (the SM LID stays in PortInfo)
#   sm_sweep                     SIGHUP OpenSM, wait for the next SUBNET UP
#   sim CMD                      an ibsim console command (Unlink, ReLink...)
#   rules_off                    an osmats.conf with every ATS rule and the
#                                flush off: OpenSM's own ServiceRecord rules
#   sm_start [CONF]              start OpenSM again after sm_stop; CONF
#                                $RUN/opensm-stock.conf: without the plugin
#   osm_launch NODE DIR CONF     another OpenSM (pid in OSM_LAUNCHED)
#   second_sm NODE PRIO          OpenSM with the plugin in $RUN/sm2 (pid SM2)
#   two_sm_opts                  opensm.conf lines for two SMs under ibsim
#   key_file FILE                a new replication key in FILE, mode 0600
#   repl_key                     key_file $RUN/repl.key, named in $RUN/osmats.conf
#   repl_sm_opts                 two_sm_opts plus repl_key: replication on
#   repl_field FILE KEY          a field of a state file's "replication" object
#   repl_is FILE KEY=VALUE...    the "replication" object holds these values
#   repl_synced SFILE MFILE      the standby (state file SFILE) holds all the
#                                master (MFILE) committed
#   prober_start NODE IP FILE    resolve IP from NODE every 50 ms (at most) into FILE
#   prober_stop FILE             stop that prober
#   prober_window FILE           the failures in FILE: first, last, count, longest run
#   prober_fails FILE FROM TO    failed attempts that started >= FROM, ended <= TO
#   host_ns NAME                 a network namespace `ns NAME` with veth v0 up
#   agent_start NODE [LINE...]   atsd on NODE, config lines appended (state
#                                file in $RUN unless AGENT_STATE_FILE); with
#                                a cm or cm_listen line the node's ib_cm is
#                                loaded first, as on a host (not with
#                                AGENT_NO_KERNEL_CM=1)
#   agent NODE ARGS...           atsctl on NODE talking to that agent
#   on NODE CMD ARGS...          run CMD attached to NODE (its simulated host)
#   node_up NODE [OPTS]          NODE's simulated kernel (simhost);
#                                $RUN/simhost-NODE.extra, written before the
#                                node starts (before fabric_start on a small
#                                fabric), holds more simhostd options for it
#                                (--cm-retries 2 --cm-timeout 14, say)
#   simhost NODE CMD             a command to it (rereg, status, drop, rmpp,
#                                ipoib add/del, modprobe/rmmod ib_cm)
#   rmpp_off                     every node without RMPP (an SA without it)
#   atsctl NODE ARGS...          run the built atsctl on NODE
#   wait_for DESC SECONDS CMD... poll CMD until it succeeds
#   check DESC CMD...            one TAP assertion: ok N / not ok N
#   check_json DESC EXPR CMD...  CMD prints JSON (Python's parser) where EXPR holds
#   skip REASON                  skip the rest of the test
#   finish                       stop all, check that nothing the test started
#                                survives (kill -9 and name what does), the
#                                summary and the TAP plan; exits 1 on a failure
#
# The output is TAP (automake's tap-driver.sh): the plan comes last, so a
# test that dies midway has none and is reported as an ERROR. In a
# ThreadSanitizer build (atsd links libtsan) finish adds one check: no
# TSan report names our code (tsan_check; doc/design.md, "Robustness").
#
# The functions live in lib/, one file a concern, sourced below in this
# order (setup needs tap's skip; procs sets the EXIT trap once $RUN is
# made): tap (checks, wait_for, finish), setup (programs, $RUN), procs
# (stop_all, cleanup), host (simulated nodes), fabric (ibsim, OpenSMs),
# repl, prober, netns, agent (atsd), fixture (one-line preludes:
# fabric_up, repl_fabric).

set -u

: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$top_builddir}"
. "$top_builddir/tests/integration/env.sh"

for T_LIB in tap setup procs host fabric repl prober netns agent acm fixture; do
	. "$top_srcdir/tests/integration/lib/$T_LIB.sh"
done
unset T_LIB
