# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make install DESTDIR=...: a third-party program compiles and links with
# `pkg-config --cflags --libs ibats` against the installed files only and
# runs; the installed library is libibats.so.1 and exports ibats_* alone;
# every exported function has its section 3 manual page.
set -u
command -v pkg-config >/dev/null || { echo "1..0 # SKIP no pkg-config"; exit 0; }
. "${top_srcdir:-$(dirname "$0")/../..}/tests/install/tap.sh" install
# Under a sanitizer build the library needs the ASan runtime first.
SAN_RT=$(ldd "$top_builddir/hostagent/atsd/atsd" 2>/dev/null | awk '/libasan/ {print $3}')
ASAN_OPTIONS=${ASAN_OPTIONS:-}
DEST="$TMP/root"

# The test runs under make check: not its jobserver.
check "make install DESTDIR=$DEST" env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make -C "$top_builddir" install DESTDIR="$DEST"
pcvar() {
	sed -n "s|^$1=||p" "$top_builddir/lib/libibats/ibats.pc"
}
prefix=$(pcvar prefix)
libdir=$(pcvar libdir | sed "s|\${exec_prefix}|$(pcvar exec_prefix)|; s|\${prefix}|$prefix|")
LIBDIR="$DEST$libdir"
export PKG_CONFIG_PATH="$LIBDIR/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$DEST"
export PKG_CONFIG_LIBDIR="$LIBDIR/pkgconfig"
check "ibats.pc is installed and pkg-config reads it" pkg-config --exists ibats
check "pkg-config --cflags points into the installation" \
	sh -c "pkg-config --cflags ibats | grep -q -- '-I$DEST'"
check "<ibats/ibats.h> is installed" test -f "$DEST$prefix/include/ibats/ibats.h"

cat >"$TMP/app.c" <<'C'
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <ibats/ibats.h>

int main(void)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(5001) };
	struct sockaddr_in d = { .sin_family = AF_INET };
	struct ibats_opts o = { .socket_path = "/nonexistent/atsd.sock", .flags = IBATS_NO_SA };
	struct ibats_record *r;
	struct ibats *h;
	unsigned char pd[IBATS_A11_LEN];
	size_t n;

	inet_pton(AF_INET, "10.0.0.1", &s.sin_addr);
	inet_pton(AF_INET, "10.0.0.2", &d.sin_addr);
	if (ibats_ip_cm_sid(IBATS_PS_TCP, 5001) != 0x0000000001061389ULL)
		return 1;
	if (ibats_a11_encode((struct sockaddr *)&s, (struct sockaddr *)&d, pd, sizeof(pd)) !=
	    IBATS_A11_LEN || pd[1] != 0x40 || pd[2] != 0x13 || pd[3] != 0x89)
		return 1;
	if (ibats_open(&h, &o))
		return 1;
	if (ibats_resolve(h, "10.0.0.2", 0, &r, &n) != -ECONNREFUSED)
		return 1;
	ibats_close(h);
	printf("third-party program ok\n");
	return 0;
}
C
check "a third-party program compiles and links with pkg-config --cflags --libs ibats" \
	sh -c "cc -Wall -Werror -o '$TMP/app' '$TMP/app.c' \$(pkg-config --cflags --libs ibats)"
# A sanitizer build's library needs its runtime loaded first; the
# third-party program itself is built without it.
check "... and runs against the installed libibats.so.1" \
	env LD_LIBRARY_PATH="$LIBDIR" ${SAN_RT:+LD_PRELOAD="$SAN_RT"} ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" "$TMP/app"
check "the program needs libibats.so.1" sh -c "readelf -d '$TMP/app' | grep -q 'NEEDED.*\[libibats\.so\.1\]'"
check "the installed library's soname is libibats.so.1" \
	sh -c "readelf -d '$LIBDIR/libibats.so.1' | grep -q 'SONAME.*\[libibats\.so\.1\]'"
nm -D --defined-only "$LIBDIR/libibats.so.1" | awk '$2 != "A" {print $3}' |
	sed 's/@.*//' | sort >"$TMP/exports"
check "it exports ibats_* functions only" sh -c "test -s '$TMP/exports' && ! grep -v '^ibats_' '$TMP/exports'"
check "... all in version IBATS_1.0 but the three of IBATS_1.1 and the one of IBATS_1.3" sh -c \
	"nm -D --defined-only '$LIBDIR/libibats.so.1' | awk '\$2 != \"A\"' | grep -v '@@IBATS_1.0\$' |
	 grep -v -E ' ibats_(lookup_info|port_gid|set_log)@@IBATS_1.1\$' |
	 grep -v -E ' ibats_check_peer_lid@@IBATS_1.3\$' | grep . && exit 1 || exit 0"
check "... ibats_check_peer_lid in IBATS_1.3" sh -c \
	"nm -D --defined-only '$LIBDIR/libibats.so.1' | grep -q ' ibats_check_peer_lid@@IBATS_1.3\$'"
check "... no symbol of the internal code (sa_, ats_, atsd_, mport_, log_, ifev_)" sh -c \
	"! nm -D --defined-only '$LIBDIR/libibats.so.1' | grep -E ' (sa|ats|atsd|mport|log|ifev|cm|json)_'"
mandir="$DEST$prefix/share/man"
# man ibats_xxx finds every function, .so links included.
rendered() {
	if command -v man >/dev/null; then
		MANWIDTH=80 man -M "$mandir" -P cat "$1" "$2" >"$TMP/man.out" 2>&1 &&
			grep -q "^SYNOPSIS" "$TMP/man.out" && grep -q "$2" "$TMP/man.out"
	else
		test -s "$mandir/man$1/$2.$1"
	fi
}
for f in $(cat "$TMP/exports"); do
	check "man 3 $f" rendered 3 "$f"
done
check "man 7 libibats" rendered 7 libibats
check "every header function is exported" sh -c \
	"for f in \$(grep -o '^[a-z_ 0-9*]*ibats_[a-z0-9_]*(' '$DEST$prefix/include/ibats/ibats.h' | grep -o 'ibats_[a-z0-9_]*'); do grep -qx \"\$f\" '$TMP/exports' || { echo \"\$f missing\"; exit 1; }; done"
# TAP: the plan last, after the summary as a diagnostic.
echo "# t_libibats_install: $T_PASS passed, $T_FAIL failed"
tap_end
