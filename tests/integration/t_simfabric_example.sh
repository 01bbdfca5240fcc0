# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# doc/testing.md's "simulated fabric by hand" (scripts/simfabric-example.sh)
# runs as a user runs it, outside this harness's fabric: the page links
# the script and shows the commands of its header, it ends with exit status 0, the standby installs
# both agents' records when the master is killed, and it leaves no process
# and no scratch directory behind (the harness's IBSIM_SOCKNAME is the
# script's: finish finds what it left).
. "$top_srcdir/tests/integration/harness.sh"
SCRIPT="$top_srcdir/scripts/simfabric-example.sh"

# The page links the script (not a copy of it) and shows the commands
# its header says to run, as the header has them.
page_links_script() {
	"$PYTHON3" -c 'import re, sys
page, script = (open(f, encoding="utf-8").read() for f in sys.argv[1:3])
run = [l[1:].strip() for l in script.split("\n")[:12] if re.match(r"#   (make|\./scripts)", l)]
sys.exit(not run or "(../scripts/simfabric-example.sh)" not in page or
         "```sh\n" + "\n".join(run) + "\n```\n" not in page)' "$top_srcdir/doc/testing.md" "$SCRIPT"
}
check "doc/testing.md links scripts/simfabric-example.sh and shows how to run it" page_links_script

# As the script's header says: from the build tree. This harness's
# programs and preload (a sanitizer build's runtime first), and the
# OpenSM configure found.
run_example() {
	(cd "$top_builddir" && TMPDIR="$RUN" IBSIM="$IBSIM" OPENSM="$OPENSM" \
		SIM_PRELOAD="$SIM_PRELOAD" \
		LD_LIBRARY_PATH="${OSM_LIBDIR:+$OSM_LIBDIR:}${LD_LIBRARY_PATH:-}" \
		timeout 120 bash "$SCRIPT") >"$RUN/example.out" 2>&1
	local rc=$?
	cat "$RUN/example.out"
	return $rc
}
check "the script runs to its end" run_example
check_out "... OpenSM loads the plugin" 'osmats .* loaded' cat "$RUN/example.out"
check_count "... both agents' records are in the SA before the failover" 2 \
	sed -n '/^== atsd on host1/,/^== the standby/p' "$RUN/example.out"
check_out "... the standby installs them from its copy" 'installed 2 ServiceRecords' \
	cat "$RUN/example.out"
check_out "... and host2 resolves host1's address on the new master" \
	'^0x10000ce100415453 .* 10\.10\.0\.1 \(primary\)' \
	sed -n '/^host2 resolves/,$p' "$RUN/example.out"
check "... its scratch directory is gone" \
	sh -c "! ls -d '$RUN'/simfabric.* 2>/dev/null"
finish
