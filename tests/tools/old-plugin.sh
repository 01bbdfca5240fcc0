#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# old-plugin.sh SRCDIR REV DIR: libosmats.so as commit REV of SRCDIR's git
# history built it, in DIR/plugin/.libs (kept: a second call reuses it).
# For t_upgrade.sh: an SM upgraded before or after its peer. Exit 77 when
# SRCDIR has no such history (a release tarball).
set -eu
src=$1 rev=$2 dir=$3
[ -e "$dir/plugin/.libs/libosmats.so" ] && exit 0
git -C "$src" cat-file -e "$rev^{commit}" 2>/dev/null || exit 77
rm -rf "$dir" && mkdir -p "$dir"
git -C "$src" archive "$rev" | tar -x -C "$dir"
cd "$dir"
autoreconf -fi >build.log 2>&1
./configure --quiet >>build.log 2>&1
make -j"$(nproc)" plugin/libosmats.la >>build.log 2>&1
