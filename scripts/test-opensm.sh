#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# scripts/test-opensm.sh SRC_OR_PREFIX: build ibats against another OpenSM
# and run the whole suite there (make check, the integration tests
# included; they need root, and skip without ibsim).
#
# SRC_OR_PREFIX is either an OpenSM source tree (a checkout of
# linux-rdma/opensm: autogen.sh when it has no configure, then
# configure, make and make install into a private prefix; Debian's build
# dependencies: bison, flex, libtool-bin) or the prefix an OpenSM is
# installed in (PREFIX/sbin/opensm, PREFIX/include/infiniband,
# PREFIX/lib64 or PREFIX/lib). ibats is configured --with-opensm=PREFIX
# in a build directory of its own; this tree is copied first when it is
# configured in place (automake builds no second tree from it then).
#
# A manual check (doc/opensm-versions.md says which OpenSMs passed it),
# not part of CI: scripts/deps-debian.sh does not install OpenSM's build
# dependencies for it.
#
# Environment: IBATS_OPENSM_WORK, the working directory (default a new
# /tmp/ibats-opensm.XXXXXX, kept: opensm-build/, opensm/ the prefix,
# ibats/ the copy, build/ ibats' build with its test logs); JOBS, make's
# -j (default 2); TESTS, the tests to run, as make check takes them
# (default all).
set -euo pipefail

usage() {
	echo "usage: $0 OPENSM_SOURCE_TREE|OPENSM_PREFIX" >&2
	exit 2
}
if [ $# -ne 1 ] || [ ! -d "$1" ]; then usage; fi

src=$(cd "$1" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
work=${IBATS_OPENSM_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/ibats-opensm.XXXXXX")}
mkdir -p "$work"
work=$(cd "$work" && pwd)
say() { printf '== %s\n' "$*"; }

# The OpenSM: installed, or built and installed into $work/opensm.
if [ -x "$src/sbin/opensm" ] && [ -d "$src/include/infiniband/opensm" ]; then
	prefix=$src
elif [ -f "$src/configure.ac" ] && [ -d "$src/opensm" ]; then
	prefix=$work/opensm
	say "building OpenSM from $src into $prefix"
	[ -x "$src/configure" ] || (cd "$src" && ./autogen.sh)
	# A tree configured in place builds there; else out of tree.
	if [ -f "$src/config.status" ]; then
		osm_build=$src
	else
		osm_build=$work/opensm-build
		mkdir -p "$osm_build"
	fi
	(cd "$osm_build" &&
		{ [ -f config.status ] || "$src/configure" --prefix="$prefix"; } &&
		nice make -j"$jobs" && make install)
else
	echo "$src is neither an OpenSM source tree nor an installed OpenSM" >&2
	usage
fi
say "OpenSM: $("$prefix/sbin/opensm" --version | grep -m 1 '^OpenSM ') in $prefix"

# ibats' source: this tree, or a copy of it when it is configured in place.
ibsrc=$top
if [ -f "$top/config.status" ]; then
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || {
		echo "$top is configured in place and no git checkout: make distclean there" >&2
		exit 1
	}
	ibsrc=$work/ibats
	say "copying $top (configured in place) to $ibsrc"
	rm -rf "$ibsrc"
	mkdir -p "$ibsrc"
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 tar cf - --no-recursion) | tar xf - -C "$ibsrc"
fi
[ -x "$ibsrc/configure" ] || (cd "$ibsrc" && autoreconf -fi)

say "building ibats in $work/build"
mkdir -p "$work/build"
cd "$work/build"
"$ibsrc/configure" --enable-werror --with-opensm="$prefix"
nice make -j"$jobs"
say "make check ${TESTS:-(all)}"
rc=0
nice make -j"$jobs" check ${TESTS:+TESTS="$TESTS"} || rc=$?
grep -E '^# (TOTAL|PASS|SKIP|XFAIL|FAIL|XPASS|ERROR):' test-suite.log || true
grep -E '^(FAIL|ERROR): ' test-suite.log || true
say "$([ $rc -eq 0 ] && echo passed || echo FAILED) against $prefix; logs in $work/build"
exit $rc
