#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Builds the RPMs of redhat/ibats.spec the way a packager would, from
# make dist's tarball and the spec inside it, and checks them with
# rpmlint (errors fail; the warnings kept are listed with their reasons in
# redhat/ibats.rpmlintrc). Run from a configured tree; puts the .rpms in
# DIR (default ./rpms). On a machine without systemd-rpm-macros (Debian,
# CI) it loads redhat/macros.debian and builds with --nodeps (the
# BuildRequires are Fedora's names) and without %check (make check's).
#   scripts/build-rpms.sh [DIR]
set -eu
OUT=${1:-rpms}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ibats-rpm.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
[ -z "${KEEP_RPM_TMP:-}" ] || trap 'echo "kept $TMP"' EXIT
mkdir -p "$TMP/SOURCES" "$OUT"
OUT=$(cd "$OUT" && pwd) # the RPMs are read below from another directory
TAR=ibats-$(sed -n 's/^PACKAGE_VERSION = //p' Makefile).tar.gz
make -s dist-gzip >/dev/null
mv "$TAR" "$TMP/SOURCES/"
# The spec and Source1 as the tarball has them.
tar -xzf "$TMP/SOURCES/$TAR" -C "$TMP"
D=$(tar -tzf "$TMP/SOURCES/$TAR" | head -n 1 | cut -d/ -f1)
cp "$TMP/$D/hostagent/atsd/ibats.sysusers" "$TMP/SOURCES/"
set -- --define "_topdir $TMP" --nocheck
MACROS=
if [ -z "$(rpm --eval '%{?systemd_post:y}')" ]; then
	MACROS="$TMP/$D/redhat/macros.debian"
	set -- "$@" --nodeps --load "$MACROS"
fi
rpmbuild -bb "$@" "$TMP/$D/redhat/ibats.spec" >"$TMP/rpmbuild.log" 2>&1 ||
	{ tail -n 40 "$TMP/rpmbuild.log"; exit 1; }
cp "$TMP"/RPMS/*/*.rpm "$OUT/"
# The RHEL layout: the plugin reads /etc/rdma/osmats.conf by default,
# where RHEL's OpenSM reads /etc/rdma/opensm.conf.
mkdir -p "$TMP/x"
for r in "$OUT"/*.rpm; do
	case $r in *.src.rpm | *-debuginfo-* | *-debugsource-*) continue ;; esac
	(cd "$TMP/x" && rpm2cpio "$r" | cpio -idm --quiet)
done
P=$(find "$TMP/x" -name libosmats.so | head -n 1)
[ -n "$P" ] || { echo "build-rpms.sh: no libosmats.so in the plugin's RPM"; exit 1; }
grep -aq '/etc/rdma/osmats.conf' "$P" ||
	{ echo "build-rpms.sh: the RPM's plugin does not default to /etc/rdma/osmats.conf"; exit 1; }
! grep -aq '/etc/opensm/osmats.conf' "$P" ||
	{ echo "build-rpms.sh: the RPM's plugin names /etc/opensm/osmats.conf"; exit 1; }
E=$(find "$TMP/x" -path '*/doc/*' -name osmats.conf | head -n 1)
[ -n "$E" ] && grep -q '^replication_key_file /etc/rdma/osmats.key$' "$E" && ! grep -q /etc/opensm/ "$E" ||
	{ echo "build-rpms.sh: the RPM's example osmats.conf does not name /etc/rdma"; exit 1; }
echo "build-rpms.sh: the plugin defaults to /etc/rdma/osmats.conf, its example names /etc/rdma/osmats.key"
# The paths doc/deploy.md gives for RHEL-family 9, as the packages hold
# them: the unit starts the atsd and reads the atsd.conf they ship, the
# man pages name /etc/rdma (doc/Makefile.inc substitutes the confdir).
ev() { rpm ${MACROS:+--load "$MACROS"} --eval "$1"; }
L=$(ev %{_libdir})
U=$(ev %{_unitdir})
for f in /etc/ibats/atsd.conf /usr/sbin/atsd /usr/bin/atsctl "$U/atsd.service" "$U/atsd@.service" \
	"$(ev %{_sysusersdir})/ibats.conf" "$L/libosmats.so" "$L/ibacm/libibacmats.so"; do
	[ -e "$TMP/x$f" ] || { echo "build-rpms.sh: no $f in the RPMs"; exit 1; }
done
grep -q '^ExecStart=/usr/sbin/atsd .*--config /etc/ibats/atsd.conf$' "$TMP/x$U/atsd.service" ||
	{ echo "build-rpms.sh: atsd.service does not start /usr/sbin/atsd with /etc/ibats/atsd.conf"; exit 1; }
for m in man5/osmats.conf.5 man8/libosmats.8; do
	M=$(find "$TMP/x" -path "*/$m*" | head -n 1)
	[ -n "$M" ] && zcat -f "$M" | grep -q /etc/rdma/osmats && ! zcat -f "$M" | grep -q /etc/opensm/ ||
		{ echo "build-rpms.sh: the RPM's $m does not name /etc/rdma, or names /etc/opensm"; exit 1; }
done
echo "build-rpms.sh: deploy.md's RHEL paths are the RPMs' (units, atsd.conf, sysusers, ibacm provider, man pages)"
rpmlint -r "$TMP/$D/redhat/ibats.rpmlintrc" "$OUT"/*.rpm "$TMP/$D/redhat/ibats.spec"
