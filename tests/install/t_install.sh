# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make install as doc/packaging.md tells an admin, each way it shows: every
# ./configure line of "Installing the host agent from source" and
# "Installing the plugin from source" and a plain ./configure (prefix
# /usr/local). Each installs under DESTDIR and is checked against the
# page's own commands (the config file its
# tee writes, the /usr/local path it names): the units' ExecStart= and
# config, where systemd, systemd-sysusers, bash-completion and ld.so look,
# the man pages' FILES, nothing outside the prefix.
# One build serves every way: the installation directories are make
# variables (automake), so make install-data with a configure line's
# directories installs the data files that configure would, the units
# and man pages substituted at install (hostagent/atsd/Makefile.inc,
# doc/Makefile.inc). The programs are built once; atsd's default config
# is checked against this tree's own configure.
set -u
. "${top_srcdir:-$(dirname "$0")/../..}/tests/install/tap.sh" t-install
# Under make check: not its jobserver.
unset MAKEFLAGS MFLAGS MAKELEVEL

# equal WHAT GOT WANT
equal() {
	[ "$2" = "$3" ] && return 0
	echo "$1: got '$2', want '$3'"
	return 1
}
# One of the words after the first is the first.
one_of() {
	local want=$1 d
	shift
	for d in "$@"; do [ "$d" = "$want" ] && return 0; done
	echo "$want is none of: $*"
	return 1
}

# A section of doc/packaging.md, "## NAME" to the next "## ".
section() {
	awk -v h="## $1" '$0 == h { on = 1; next } /^## / { on = 0 } on' "$top_srcdir/doc/packaging.md"
}
# A make variable's value in the tree with VAR=VALUE overrides, as make
# install would use it.
mkvar() {
	local var=$1
	shift
	printf 'print-var:\n\t@echo $(%s)\n' "$var" >"$TMP/print.mk"
	make -s -C "$top_builddir" -f Makefile -f "$TMP/print.mk" print-var "$@"
}

AGENT=$(section "Installing the host agent from source")
PLUGIN=$(section "Installing the plugin from source")
# The file the admin writes: the page's tee.
CONF=$(printf '%s\n' "$AGENT" | sed -n 's/.*| *sudo tee \([^ ]*\)$/\1/p' | head -n 1)
# The one a plain ./configure's atsd reads, as the page names it.
CONF_LOCAL=$(printf '%s\n' "$AGENT" | tr '\n' ' ' | grep -o 'plain `\./configure`.*' |
	grep -o '`/usr/local/[^`]*/atsd\.conf`' | head -n 1 | tr -d '`')
check "doc/packaging.md: \"Installing the host agent from source\" writes an atsd.conf" test -n "$CONF"
check "doc/packaging.md: it names the atsd.conf of a plain ./configure" test -n "$CONF_LOCAL"

# Systemd's search paths (systemd.unit(5), sysusers.d(5)); bash-completion
# looks in XDG_DATA_DIRS, /usr/local/share:/usr/share unless set.
UNIT_PATHS="/etc/systemd/system /usr/local/lib/systemd/system /lib/systemd/system /usr/lib/systemd/system"
command -v systemd-analyze >/dev/null &&
	UNIT_PATHS=$(systemd-analyze unit-paths 2>/dev/null || echo "$UNIT_PATHS")
SYSUSERS_PATHS="/etc/sysusers.d /run/sysusers.d /usr/local/lib/sysusers.d /usr/lib/sysusers.d"
COMPLETION_PATHS="/usr/local/share/bash-completion/completions /usr/share/bash-completion/completions"
# ld.so's directories: /etc/ld.so.conf's and the trusted ones.
# /lib and /usr/lib are one under usrmerge: compared resolved.
LD_PATHS=$(PATH=$PATH:/sbin:/usr/sbin ldconfig -v -N 2>/dev/null |
	sed -n 's|^\(/[^:]*\):.*|\1|p' | xargs -r readlink -f)

# install_way NAME CONF CONFIGURE-ARGS...: make install-data with the
# directories those arguments give (autoconf's defaults for the others)
# and check it against CONF, the atsd.conf the page has the admin write.
install_way() {
	local name=$1 conf=$2 a prefix=/usr/local sysconfdir='' localstatedir='' libdir=''
	shift 2
	for a in "$@"; do
		case $a in
		--prefix=*) prefix=${a#*=} ;;
		--sysconfdir=*) sysconfdir=${a#*=} ;;
		--localstatedir=*) localstatedir=${a#*=} ;;
		--libdir=*) libdir=${a#*=} ;;
		--*) echo "# $name: $a not understood here"; return 1 ;;
		esac
	done
	set -- prefix="$prefix" exec_prefix="$prefix" sysconfdir="${sysconfdir:-$prefix/etc}" \
		localstatedir="${localstatedir:-$prefix/var}" libdir="${libdir:-$prefix/lib}" \
		datarootdir="$prefix/share"
	local dest="$TMP/$name" unitdir sysusersdir compdir mandir libd provd
	check "$name: make install-data DESTDIR=$dest $*" \
		make -C "$top_builddir" install-data DESTDIR="$dest" "$@"
	unitdir=$(mkvar systemdsystemunitdir "$@")
	sysusersdir=$(mkvar sysusersdir "$@")
	compdir=$(mkvar bashcompletiondir "$@")
	mandir=$(mkvar mandir "$@")
	libd=$(mkvar libdir "$@")
	provd=$(mkvar ibacmproviderdir "$@")

	check "$name: nothing installed outside $prefix" sh -c \
		"find '$dest' -type f ! -path '$dest$prefix/*' | grep . && exit 1 || exit 0"
	local u="$dest$unitdir/atsd.service" i="$dest$unitdir/atsd@.service" d=${conf%/*}
	check "$name: atsd runs as $prefix/sbin/atsd with $conf" equal ExecStart \
		"$(sed -n 's/^ExecStart=\([^ ]*\) .*--config \([^ ]*\).*/\1 \2/p' "$u")" \
		"$prefix/sbin/atsd $conf"
	check "$name: atsd@CA:PORT reads $d/atsd@CA:PORT.conf" equal "ExecStart, ConditionPathExists" \
		"$(sed -n 's/^ExecStart=.*--config \([^ ]*\).*/\1/p; s/^ConditionPathExists=//p' "$i" |
			sort -u)" "$d/atsd@%i.conf"
	for f in "$u" "$i"; do
		check "$name: ${f##*/} orders after network.target and rdma-hw.target, wants neither" \
			sh -c "grep -Eq '^After=(.* )?network\.target( |$)' '$f' &&
				grep -Eq '^After=(.* )?rdma-hw\.target( |$)' '$f' &&
				! grep -E '^(Wants|Requires)=.*(network|rdma-hw)\.target' '$f'"
	done
	check "$name: systemd reads units from $unitdir" one_of "$unitdir" $UNIT_PATHS
	check "$name: systemd-sysusers reads $sysusersdir/ibats.conf" sh -c \
		"test -f '$dest$sysusersdir/ibats.conf' && echo '$SYSUSERS_PATHS' | grep -qw '$sysusersdir'"
	check "$name: bash-completion loads $compdir/atsctl" sh -c \
		"test -f '$dest$compdir/atsctl' && echo '$COMPLETION_PATHS' | grep -qw '$compdir'"
	check "$name: ld.so finds libosmats.so in $libd (after ldconfig)" one_of "$(readlink -f "$libd")" $LD_PATHS
	# ibacm dlopen()s the regular *.so files of its provider_lib_path
	# (symlinks skipped): LIBDIR/ibacm is its default's shape.
	check "$name: the ats provider is a regular file in $libd/ibacm" sh -c \
		"test '$provd' = '$libd/ibacm' && test -f '$dest$provd/libibacmats.so' &&
		! test -L '$dest$provd/libibacmats.so'"
	# The pages' FILES name what this install put in place.
	check "$name: atsd(8) names $conf, $sysusersdir/ibats.conf" sh -c \
		"grep -qF '$conf' '$dest$mandir/man8/atsd.8' &&
		grep -qF '$sysusersdir/ibats.conf' '$dest$mandir/man8/atsd.8'"
	check "$name: atsctl(8) names $compdir/atsctl" \
		grep -qF "$compdir/atsctl" "$dest$mandir/man8/atsctl.8"
	if [ "$d" != /etc/ibats ]; then
		check "$name: no installed page names /etc/ibats" sh -c \
			"cat '$dest$mandir'/man*/* | sed 's|$d||g' | grep /etc/ibats && exit 1 || exit 0"
	fi
}

n=0
for text in "$AGENT" "$PLUGIN"; do
	while read -r line; do
		n=$((n + 1))
		# The configure arguments, up to the first &&.
		# shellcheck disable=SC2046 # split into arguments
		install_way "readme$n" "$CONF" $(printf '%s\n' "$line" | sed 's/&&.*//; s/^\.\/configure//')
	done <<EOF
$(printf '%s\n' "$text" | grep '^\./configure ')
EOF
done
check "doc/packaging.md: a ./configure line in each of the two sections" test "$n" -ge 2
install_way plain "$CONF_LOCAL"

# The Debian package puts the provider where Debian's ibacm keeps its
# own (libibacmp.so: its default provider_lib_path), and so does
# debian/rules' configure line.
provider_deb() {
	local acmp inst
	acmp=$(dpkg -L ibacm | sed -n 's|^/\(.*\)/libibacmp\.so$|\1|p')
	inst=$(sed -n 's|^\(usr/lib/\*/ibacm\)/libibacmats\.so$|\1|p' \
		"$top_srcdir/debian/ibacm-provider-ats.install")
	[ -n "$acmp" ] && [ -n "$inst" ] || { echo "ibacm's: '$acmp', the package's: '$inst'"; return 1; }
	# shellcheck disable=SC2254 # the .install's glob
	case $acmp in $inst) ;; *) echo "$acmp is not $inst"; return 1 ;; esac
	grep -q -- '--with-ibacm-provider-dir=/usr/lib/$(DEB_HOST_MULTIARCH)/ibacm' \
		"$top_srcdir/debian/rules"
}
if [ ! -f "$top_srcdir/debian/rules" ]; then
	skip "debian: ibacm-provider-ats installs into ibacm's provider directory" "no debian/ (a release tarball)"
elif dpkg -L ibacm >/dev/null 2>&1; then
	check "debian: ibacm-provider-ats installs into ibacm's provider directory" provider_deb
else
	skip "debian: ibacm-provider-ats installs into ibacm's provider directory" "no ibacm package"
fi

# atsd's built-in default is the file its units name (SYSCONFDIR).
check "atsd --help: the default config is this tree's sysconfdir's" sh -c \
	"'$top_builddir/hostagent/atsd/atsd' --help | grep -qF -- '$(mkvar sysconfdir)/ibats/atsd.conf'"

tap_end
