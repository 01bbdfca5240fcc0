#!/bin/sh
# The plugin's layout rules, checked on the build: every .c has its own
# header, no source file is over 800 lines, and no two of libosmats.so's
# objects depend on each other in a cycle (X depends on Y when X
# references a symbol Y defines).
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
fail=0

for c in "$top_srcdir"/plugin/*.c; do
	[ -f "${c%.c}.h" ] || { echo "not ok - $c has no header of its own"; fail=1; }
done
for f in "$top_srcdir"/plugin/*.[ch]; do
	n=$(wc -l <"$f")
	[ "$n" -le 800 ] || { echo "not ok - $f has $n lines"; fail=1; }
done

objs=$(ls "$top_builddir"/plugin/.libs/*.o 2>/dev/null || ls "$top_builddir"/plugin/*.o)
[ -n "$objs" ] || { echo "not ok - no objects under plugin/"; exit 1; }
defs=$(mktemp)
trap 'rm -f "$defs"' EXIT
for o in $objs; do
	nm --defined-only "$o" | awk -v o="$(basename "$o")" '$2 ~ /^[TDBRV]$/ { print $3, o }'
done | sort >"$defs"
edges=$(for o in $objs; do
	nm -u "$o" | awk '{ print $2 }' | sort -u | join - "$defs" |
		awk -v o="$(basename "$o")" '$2 != o { print o, $2 }'
done | sort -u)
if ! printf '%s\n' "$edges" | tsort >/dev/null 2>&1; then
	echo "not ok - the plugin's objects depend on each other in a cycle:"
	printf '%s\n' "$edges" | tsort 2>&1 >/dev/null | sed 's/^/# /'
	fail=1
fi
[ "$fail" -eq 0 ] && echo "ok - plugin layout: own headers, <= 800 lines, no cycle"
exit "$fail"
