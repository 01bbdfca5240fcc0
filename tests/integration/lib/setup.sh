# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The run's setting, at source time: the programs under test (the build
# tree's, or the installed ones with IBATS_INSTALLED=1), the counters the
# other files share, the skip when ibsim, OpenSM or the simulated host is
# missing, the sanitizer runtime, and the test's directory $RUN.
# Sourced by harness.sh, in its order: not a script of its own.

ATSCTL="$top_builddir/hostagent/atsctl/atsctl"
# atsctl links the built libibats.so: run libtool's binary itself, not its
# wrapper script (a shell and sed forks each time, ~15 ms, thousands of
# times a run). LD_LIBRARY_PATH goes before the binary's install RUNPATH.
if [ -z "${IBATS_INSTALLED:-}" ] && [ -x "$top_builddir/hostagent/atsctl/.libs/atsctl" ]; then
	ATSCTL="$top_builddir/hostagent/atsctl/.libs/atsctl"
	export LD_LIBRARY_PATH="$top_builddir/lib/libibats/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
SRTOOL="$top_builddir/tests/tools/srtool"
PLUGIN_DIR="$top_builddir/plugin/.libs"
TOPODIR="$top_srcdir/ibsim-topologies"

T_PASS=0
T_FAIL=0
T_N=0
T_PIDS=""
T_SMS=""
T_FABRIC=""
T_NETNS=""
ATSD="$top_builddir/hostagent/atsd/atsd"
T_NAME=$(basename "$0" .sh)
# IBATS_INSTALLED=1: the installed programs and plugin instead of the
# build tree's (CI runs the demo so against the Debian packages). OpenSM
# then finds libosmats.so by name in the library path, as on a real SM.
if [ -n "${IBATS_INSTALLED:-}" ]; then
	ATSCTL=$(PATH=$PATH:/usr/sbin:/sbin command -v atsctl) || { echo "no installed atsctl" >&2; exit 1; }
	ATSD=$(PATH=$PATH:/usr/sbin:/sbin command -v atsd) || { echo "no installed atsd" >&2; exit 1; }
	PLUGIN_DIR=
fi

for need in "$IBSIM" "$OPENSM"; do
	[ -n "$need" ] && [ -e "$need" ] || skip "ibsim or opensm not installed"
done
[ -x "$SIMHOSTD" ] && [ -e "$SIMHOST_LIB" ] ||
	skip "the simulated host is not built (make check builds simhost)"

# Every process on the simulated fabric runs on a simulated host
# (simhost, doc/design.md "Testing under ibsim"): its node's
# simulated kernel (simhostd, node_up) and libsimhost.so preloaded, which
# give it what the kernel's RDMA stack gives a process on a host.
# A sanitizer build needs its runtime first in the preload list; foreign
# programs (opensm, saquery) get it too but no leak check. Stock OpenSM is
# not instrumented: the runtime it preloads is the one the plugin was
# linked with (ASan, or ThreadSanitizer in a TSan build).
SAN_RT=$(ldd "$ATSD" 2>/dev/null | awk '/libasan|libtsan/ {print $3}')
TSAN=
case $SAN_RT in *libtsan*) TSAN=1 ;; esac
SIM_PRELOAD="${SAN_RT:+$SAN_RT }$SIMHOST_LIB"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="suppressions=$top_srcdir/tests/integration/asan.supp${ASAN_OPTIONS:+:$ASAN_OPTIONS}"

RUN=$(mktemp -d "${TMPDIR:-/tmp}/ibats-$T_NAME.XXXXXX")
mkdir -p "$RUN/scratch" "$RUN/cache" "$RUN/hosts"
# The simulated hosts' kernels: sockets, sysfs trees (node_up).
export SIMHOST_DIR="$RUN/hosts"
# ThreadSanitizer: every process writes its reports to $RUN/tsan.PID and
# runs on (halt_on_error=0) with its own exit status (exitcode=0), so a
# race changes no check; finish fails the test on any report that names
# our code (tsan_check). symbolize=0: the reports are symbolized
# afterwards (tsan_report.py), outside the processes under test.
[ -n "$TSAN" ] && export TSAN_OPTIONS="halt_on_error=0:exitcode=0:symbolize=0:log_path=$RUN/tsan:\
suppressions=$top_srcdir/tests/integration/tsan.supp${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
# A private simulator namespace: tests run side by side.
export IBSIM_SOCKNAME="ibats-$T_NAME-$$"
# The shell that sourced this file (a bench runs it in a subshell).
T_SHELL=$BASHPID
