#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# make bench-connect: connect time by GID and by IP through ATS with
# librdmacm over AF_IB (tests/bench/cmbench.c), between host1 (client)
# and host2 (server) of fabric4.net, each with ib_cm loaded and an atsd
# holding its ATS primary (cache_ttl 3600). Every latency also as a ratio
# to T_cpi (SA ClassPortInfo round trip, measured first in the same run)
# and to the connection by GID.
#   BENCH_CONNS  connections per phase (default 200)
#   BENCH_CPIS   ClassPortInfo Gets for T_cpi (default 1000)
# BENCH_CONNS is at most 300: ib_cm keeps each closed connection in
# timewait for ms(packet life + 1), 2 s on ibsim's paths, and the
# simulated one holds 1024 (three phases' worth).
# Phases, one server and one client each:
#   gid    client by GID, server accepts at once: the CM exchange alone
#   agent  client asks its atsd (cached), server checks the requester's
#          A11 source address through its atsd (cached reverse lookup)
#   sa     the same, both straight to the SA (libibats without atsd: cold)
#   acm    client by rdma_getaddrinfo(IP), as unmodified programs: host1's
#          stock ibacm with the ats provider (through its atsd), warm after
#          the first (cold) lookup; server accepts at once
# Prints raw lines "phase name p50_us p99_us count" and "phase sa_name
# sa_requests lookups", then a summary ("SA req": SA requests per lookup).
top_builddir=${top_builddir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
export top_builddir top_srcdir
CONNS=${BENCH_CONNS:-200}
[ "$CONNS" -ge 1 ] && [ "$CONNS" -le 300 ] || { echo "BENCH_CONNS: 1 to 300" >&2; exit 2; }
CPIS=${BENCH_CPIS:-1000}
SABENCH="$top_builddir/tests/bench/sabench"
CMBENCH="$top_builddir/tests/bench/cmbench"

echo "# ibats connect bench $(date -u +%F): $CONNS connections per phase, load $(cut -d' ' -f1-3 /proc/loadavg)"
out=$(mktemp /tmp/ibats-bench-connect.XXXXXX)
(
	. "$top_srcdir/tests/integration/harness.sh"
	# sabench's SA key (BENCH_SA_KEY), as run.sh gives OpenSM.
	echo "sa_key 0x5a5a" >"$RUN/opensm.extra"
	fabric_start fabric4.net
	echo "cpi $(on host1 "$SABENCH" cpi "$CPIS")"
	agent_start host1 "address 10.0.0.1 primary" "cache_ttl 3600"
	agent_start host2 "address 10.0.0.2 primary" "cache_ttl 3600"
	G2=$(port_gid host2)
	wait_for "host1's record" 20 has_primary host2 "$(port_gid host1)" || exit 1
	wait_for "host2's record" 20 has_primary host1 "$G2" || exit 1
	simhost host1 modprobe ib_cm >/dev/null || exit 1
	simhost host2 modprobe ib_cm >/dev/null || exit 1
	# Every phase's REQ carries the Annex A11 IP header: host2's kernel
	# takes it only for an address on its IPoIB interface (cma.c
	# cma_ib_id_from_event; the conformance issue's rule).
	ipoib_addr host2 ib0 10.0.0.2/24 || exit 1
	ibacm_start host1 10.0.0.1 || exit 1
	port=5000
	for phase in "gid none $G2" "agent agent $RUN/atsd-host1.sock" "sa sa" "acm none"; do
		set -- $phase
		port=$((port + 1))
		on host2 "$CMBENCH" server "$2" "$CONNS" "$port" "$RUN/atsd-host2.sock" \
			>"$RUN/server-$1.out" &
		srv=$!
		wait_for "the $1 server" 10 grep -q listening "$RUN/server-$1.out" || exit 1
		on host1 "$CMBENCH" client "$1" "$CONNS" "$port" 10.0.0.1 10.0.0.2 ${3:-} |
			sed "s/^/$1 /"
		wait "$srv" || exit 1
		grep -v listening "$RUN/server-$1.out" | sed "s/^/$1 /"
	done
) | tee "$out"
rc=${PIPESTATUS[0]}
awk '
	NF == 5 { p50[$2] = $3; p99[$2] = $4 }
	NF == 3 && $2 == "ats_acm_cold" { acm["cold"] = $3 }
	NF == 4 && $2 ~ /^sa_/ { sa[substr($2, 4)] = $4 ? $3 / $4 : 0 }
	function line(what, k) {
		if (!(k in p50))
			return
		printf "%-44s %9.1f %9.1f %7.2f %7.2f", what, p50[k], p99[k], p50[k] / cpi,
			p50[k] / p50["connect_gid"]
		if (k in sa)
			printf " %6.2f", sa[k]
		printf "\n"
	}
	END {
		cpi = p50["cpi"]
		printf "\nT_cpi p50 %.1f us\n\n", cpi
		printf "%-44s %9s %9s %7s %7s %6s\n", "client (rdma_resolve_addr to ESTABLISHED)", "p50 us", "p99 us", "/Tcpi", "/gid", "SA req"
		line("by GID (no ATS)", "connect_gid")
		line("by IP, atsd cached: total", "connect_agent")
		line("  of which the ATS lookup", "ats_agent")
		line("by IP, straight to the SA (cold): total", "connect_sa")
		line("  of which the ATS lookup", "ats_sa")
		line("by IP, rdma_getaddrinfo via ibacm + ats: total", "connect_acm")
		line("  of which rdma_getaddrinfo (warm)", "ats_acm")
		if ("cold" in acm)
			printf "%-44s %9.1f %9s %7.2f\n", "  the first rdma_getaddrinfo (cold)", acm["cold"], "", acm["cold"] / cpi
		if ("ats_acm" in p50)
			printf "\nwarm rdma_getaddrinfo overhead %.2f T_cpi (goal <= 0.6)\n", p50["ats_acm"] / cpi
		printf "\n%-44s %9s %9s %7s %7s %6s\n", "server (CONNECT_REQUEST to rdma_accept)", "p50 us", "p99 us", "/Tcpi", "/gid", "SA req"
		line("no check", "accept_none")
		line("A11 check, atsd cached: total", "accept_agent")
		line("  of which ibats_check_peer", "check_agent")
		line("A11 check, straight to the SA: total", "accept_sa")
		line("  of which ibats_check_peer", "check_sa")
		if ("connect_agent" in p50)
			printf "\nby-IP overhead (p50, client): atsd %.1f us (%.2f T_cpi), SA %.1f us (%.2f T_cpi)\n",
				p50["connect_agent"] - p50["connect_gid"], (p50["connect_agent"] - p50["connect_gid"]) / cpi,
				p50["connect_sa"] - p50["connect_gid"], (p50["connect_sa"] - p50["connect_gid"]) / cpi
	}' "$out"
rm -f "$out"
exit "$rc"
