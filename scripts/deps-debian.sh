#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Installs what ibats needs to build, test and package on Debian 12
# (systemd for systemd-analyze: nothing here starts it).
set -e
PKGS="build-essential autoconf automake libtool pkg-config
	opensm libopensm-dev libibumad-dev libibverbs-dev librdmacm-dev libmnl-dev nettle-dev libcmocka-dev
	ibsim-utils infiniband-diags iproute2 python3 python3-prometheus-client clang libclang-rt-14-dev cppcheck
	debhelper dpkg-dev lintian systemd man-db bash-completion strace python3-yaml rdmacm-utils
	ibacm"
# systemd and man-db: t_systemd's systemd-analyze verify (ExecStart=,
# Documentation= man pages) and security, and systemd-sysusers; strace:
# the address families and socket calls atsd makes (t_systemd);
# python3-yaml: tests/layout/t_alerts.py reads doc/alerts/ibats.rules.yml;
# rdmacm-utils: the stock ucmatose that t_simhost and t_hostile run
# across the simulated fabric (interop, the MRA storm bound); ibacm: its
# provider interface (infiniband/acm_prov.h) for acmprov/, and the stock
# ibacm and ib_acme t_ibacm runs per node.
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
# A fresh machine's unattended-upgrades (or another apt) may hold the
# dpkg lock: wait for it, up to 10 minutes, instead of failing at once
# (apt.conf(5), DPkg::Lock::Timeout).
LOCK="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086
$SUDO apt-get $LOCK update -q
# shellcheck disable=SC2086
$SUDO apt-get $LOCK install -y -q --no-install-recommends $PKGS
# Debian's opensm package enables opensm.service with PORTS=ALL
# (/etc/default/opensm): a subnet manager on every port of this machine.
# A build or test machine needs none (the tests start their own): it is
# disabled, and stopped where systemd runs, unless IBATS_KEEP_OPENSM=1.
if [ "${IBATS_KEEP_OPENSM:-0}" != 1 ] && command -v systemctl >/dev/null &&
	systemctl is-enabled --quiet opensm.service 2>/dev/null; then
	$SUDO systemctl disable opensm.service >/dev/null 2>&1 || true
	case "$(systemctl is-system-running 2>/dev/null)" in
	offline | "") ;;
	*) $SUDO systemctl stop opensm.service || true ;;
	esac
	echo "deps-debian.sh: opensm.service disabled (a subnet manager on every port);" \
		"IBATS_KEEP_OPENSM=1 keeps it"
fi
# Debian's ibacm enables ibacm.socket and ibacm.service: a resolver
# listening in /run for every program's rdma_getaddrinfo(). A build
# machine needs none (t_ibacm starts one per simulated node).
if [ "${IBATS_KEEP_IBACM:-0}" != 1 ] && command -v systemctl >/dev/null &&
	{ systemctl is-enabled --quiet ibacm.socket 2>/dev/null ||
		systemctl is-enabled --quiet ibacm.service 2>/dev/null; }; then
	$SUDO systemctl disable ibacm.socket ibacm.service >/dev/null 2>&1 || true
	case "$(systemctl is-system-running 2>/dev/null)" in
	offline | "") ;;
	*) $SUDO systemctl stop ibacm.socket ibacm.service || true ;;
	esac
	echo "deps-debian.sh: ibacm.socket and ibacm.service disabled;" \
		"IBATS_KEEP_IBACM=1 keeps them"
fi
