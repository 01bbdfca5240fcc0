#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The layout canary (ERR 7A4A, plugin/glue.c): the plugin refuses an
# OpenSM whose event_plugin_name does not name it, as it reads in one laid
# out otherwise than its headers; here OpenSM loads the same file under
# another name. OpenSM then runs without the plugin, on its own rules.
. "$top_srcdir/tests/integration/harness.sh"

[ -n "$PLUGIN_DIR" ] || skip "the build tree's plugin only (IBATS_INSTALLED)"
mkdir "$RUN/alias"
ln -s "$PLUGIN_DIR/libosmats.so" "$RUN/alias/libnotats.so"
OSM_LD_PATH="$RUN/alias:$OSM_LD_PATH"
# After fabric_start's own event_plugin_name line: the last one counts.
echo "event_plugin_name notats" >"$RUN/opensm.extra"
fabric_up fabric4.net host1
check_out "the plugin refuses to load: ERR 7A4A names what it read" \
	'ERR 7A4A: osmats refused: event_plugin_name reads "notats", not its name' cat "$RUN/osm.log"
check_out "OpenSM goes on without it" "ERR 1000: cannot load plugin 'notats'" cat "$RUN/osm.log"
check "no plugin loaded" test "$(grep -c 'osmats_create: osmats .* loaded' "$RUN/osm.log")" -eq 0
check "OpenSM runs: the SA answers" sa_answers host2
check_out "OpenSM's own rules: a Set of another port's GID is taken" '^status 0x0000$' \
	srtool host2 --gid "$G1" --ip 10.1.0.1 set
check "no plugin state file" test ! -e "$RUN/osmats-state.json"
finish
