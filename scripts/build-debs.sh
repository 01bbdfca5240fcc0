#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Builds ibats's Debian packages (debian/, dpkg-buildpackage -b) from a
# copy of this tree and puts them, with the .changes and .buildinfo, in
# DIR (default: ./debs), then runs lintian on them. dpkg-buildpackage
# builds inside the tree and writes beside it: the copy keeps this tree
# (configured or not) and its parent directory as they were.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$src/debs}" && cd "${1:-$src/debs}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibats-debs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ibats"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	# The files of the working tree that git knows or would add: no
	# build products, uncommitted edits included.
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp -P --parents -t "$tmp/ibats")
else
	cp -a "$src/." "$tmp/ibats"
fi
(cd "$tmp/ibats" &&
	DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" dpkg-buildpackage -b -us -uc)
mv "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out"/
ls -l "$out"
# What the docs name is what the packages ship (dh_compress would gzip it).
dpkg-deb -c "$out"/ibats-agent_*.deb | grep -q ' \./usr/share/doc/ibats-agent/alerts/ibats\.rules\.yml$' ||
	{ echo "ibats-agent does not ship alerts/ibats.rules.yml uncompressed" >&2; exit 1; }
# The ats provider lies where this machine's ibacm loads providers: the
# directory of its own libibacmp.so (its default provider_lib_path),
# as a regular file (ibacm skips symlinks).
provdir=$(dpkg -L ibacm | sed -n 's|^\(.*\)/libibacmp\.so$|\1|p')
# grep reads it all (not -q): dpkg-deb's tar would die of a broken pipe.
dpkg-deb -c "$out"/ibacm-provider-ats_*.deb | grep "^-.* \.$provdir/libibacmats\.so\$" >/dev/null ||
	{ echo "ibacm-provider-ats does not ship libibacmats.so in ${provdir:-ibacm's provider directory}" >&2; exit 1; }
# Errors fail the build; warnings and the rest are shown.
lintian --fail-on error --display-info "$out"/*.changes
