# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The window of SA lookups (atsd.conf sa_depth; libibats ibats_opts.
# sa_depth): lookups of many clients fly together, never more than the
# depth at once; identical ones share one request; an SA that hangs holds
# them all, and when it answers every client gets its own address's
# record, in its own connection's order.
. "$top_srcdir/tests/integration/harness.sh"

LOOKUP="$top_builddir/tests/tools/.libs/ibats_lookup"
[ -x "$LOOKUP" ] || LOOKUP="$top_builddir/tests/tools/ibats_lookup"
N=12

fabric_up fabric4.net host1 host2 host3
addrs=("address 10.0.1.1 primary")
for i in $(seq 2 $N); do
	addrs+=("address 10.0.1.$i")
done
agent_start host1 "${addrs[@]}"
registered() {
	[ "$(agent host1 status | grep -c ' registered')" -eq $N ]
}
check "host1 registers its $N addresses" wait_for "$N registered" 20 registered
# Long SA timeouts: the hung SA below must not run them out.
agent_start host3 "sa_depth 4" "sa_timeout 4000" "sa_retries 2" "cache_ttl 0"
check_out "sa_depth is in the stats" "^sa_depth 4$" agent host3 stats

inflight() {
	agent host3 stats | grep -q "^sa_inflight $1\$"
}

stat_is() {
	agent host3 stats | grep -q "^$1 $2\$"
}
# Its start-up jobs done first (the sync, then the subscription): one of
# them caught by the hung SA below would hold the lookups behind it for
# its timeouts (12 s), and none would fly.
check "host3 subscribed to the SA's reports" wait_for "subscription" 20 stat_is subscribed 1

# A hung SA (SIGSTOP): the kernel queues the requests, nothing answers.

kill -STOP "$SM_PID"
clients=
for i in $(seq 1 $N); do
	agent host3 resolve "10.0.1.$i" >"$RUN/win-$i.out" 2>&1 &
	clients="$clients $!"
done
# Two more clients ask what the first one asks: no request of their own.
for k in a b; do
	agent host3 resolve 10.0.1.1 >"$RUN/win-1$k.out" 2>&1 &
	clients="$clients $!"
done
T_PIDS="$T_PIDS $clients"
check "every client's lookup reached atsd" wait_for "$N SA lookups" 10 stat_is sa_lookups $N
check "... two joined a lookup asked already" wait_for "2 coalesced" 10 stat_is coalesced 2
check "the window fills: 4 lookups in flight on a hung SA" wait_for "4 in flight" 10 inflight 4
check_out "... and never more than sa_depth" "^sa_inflight_max 4$" agent host3 stats
kill -CONT "$SM_PID"
check "when the SA answers, the window empties" wait_for "none in flight" 20 inflight 0
# shellcheck disable=SC2086
wait $clients
bad=0
for i in $(seq 1 $N) 1a 1b; do
	ip=10.0.1.${i%[ab]}
	grep -Eq "^0x10000ce1004154[0-9a-f]{2} +$G1 +0xffff +infinite +$ip( \(primary\))?$" "$RUN/win-$i.out" || {
		echo "# client $i: $(cat "$RUN/win-$i.out")"
		bad=$((bad + 1))
	}
done
check "every client got its own address's record" [ "$bad" -eq 0 ]
check_out "... none timed out" "^sa_timeouts 0$" agent host3 stats
check_out "... one SA lookup per address" "^sa_lookups $N$" agent host3 stats

# One connection asking in a pipeline gets its answers in its order.
printf 'resolve 10.0.1.%s\n' 5 4 3 2 1 >"$RUN/pipe.in"
check_out "a pipelined connection's answers come in its order" \
	"10\.0\.1\.5.*10\.0\.1\.4.*10\.0\.1\.3.*10\.0\.1\.2.*10\.0\.1\.1" \
	sh -c "python3 -c 'import socket,sys
s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(open(sys.argv[2],\"rb\").read())
buf=b\"\"
while buf.count(b\"\\n\")<10:
    d=s.recv(65536)
    if not d: break
    buf+=d
print(buf.decode().replace(\"\\n\",\" \"))' '$RUN/atsd-host3.sock' '$RUN/pipe.in'"

# libibats without atsd: 12 threads on one handle, depth 4, each asking
# its own address, 20 times.
check_out "libibats: threads sharing a handle each get their own address's record" \
	"^$N thread\(s\): 0 different answer\(s\)$" \
	on host3 "$LOOKUP" -n -d 4 -T $N -R $N -c 20 resolve 10.0.1.1
# Read ahead (prefetch_max): host2 reads the table once the SA answers
# and answers its addresses from the cache, exactly as the SA does.
agent_start host2 "prefetch_max 100"
read_ahead() {
	agent host2 stats | grep -q '^prefetches 1$'
}
check "host2 read the ATS table ahead" wait_for "a prefetch" 10 read_ahead
check_out "... all of host1's records" "^prefetch_records $N$" agent host2 stats
q0=$(agent host2 stats | awk '$1 == "sa_queries" { print $2 }')
for i in 1 7 12; do
	check_out "10.0.1.$i from the table: the SA's own answer" \
		"^$(agent host3 resolve "10.0.1.$i" | sed 's/[.()]/\\&/g')\$" agent host2 resolve "10.0.1.$i"
done
check_out "... without asking the SA" "^sa_queries $q0$" agent host2 stats
check_rc "an address not in the table still goes to the SA" 1 "no ATS record" \
	agent host2 resolve 10.0.9.9
check_out "... one SA lookup" "^sa_lookups 1$" agent host2 stats
stop_pid "$(agent_pid host2)"
agent_start host2 "prefetch_max 5"
check "a table larger than prefetch_max is not kept" wait_for "the log line" 10 \
	grep -q "holds $N records, more than prefetch_max 5" "$RUN/atsd-host2.log"
check_out "... and nothing was read ahead" "^prefetches 0$" agent host2 stats

check_rc "libibats: sa_depth above 256 is refused" 2 "Invalid argument" \
	on host3 "$LOOKUP" -n -d 257 resolve 10.0.1.1
finish
