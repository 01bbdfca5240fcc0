# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsd's control socket and its records, as an unprivileged local user and
# a careless admin would use them: who may change what (control_group,
# SO_PEERCRED), per-uid connection limit and idle timeout, answers in
# request order, the line limit, owner names; one address the SA refuses
# does not stop the rest, and status shows it; after SIGKILL and restart
# atsd removes only the records it registered itself (state file).
. "$top_srcdir/tests/integration/harness.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (other uids, groups, namespaces)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"

host_ns h1
host_ns h2
N1=$(ns h1)
N2=$(ns h2)
fabric_up fabric4.net host1 host2
P=0x10000ce1004154
GRP="ibats$$"
groupadd "$GRP" || skip "cannot create a group"
GID_CTL=$(getent group "$GRP" | cut -d: -f3)
# The harness's cleanup reads the exit status: keep it.
trap 'rc=$?; groupdel "$GRP" 2>/dev/null; (exit $rc); cleanup' EXIT
# Others must reach the socket in the test directory (it is 0700).
chmod 755 "$RUN"
mkdir -m 1777 "$RUN/pub"

ip -n "$N1" addr add 10.0.0.1/24 dev v0
ip -n "$N2" addr add 10.0.0.2/24 dev v0
COMMON="verify_interval 1
sm_poll_interval 1
backoff_max 2
cache_ttl 60
negative_ttl 60
max_clients_per_uid 4
client_idle_timeout 3
refused_retry 600"
IFS_SAVE=$IFS
IFS='
'
agent_start host1 $COMMON "interface v0 netns $N1" "control_group $GRP"
agent_start host2 $COMMON "interface v0 netns $N2"
IFS=$IFS_SAVE
SOCK="$RUN/atsd-host1.sock"

# has GID SID IP: the SA holds exactly that record (asked from host4).
has() {
	atsctl host4 -n dump --gid "$1" 2>/dev/null | grep -Eq "^$2 +$1 +0x[0-9a-f]+ +[a-z0-9]+ +$3( |\$)"
}
count() {
	[ "$(atsctl host4 -n dump --gid "$1" 2>/dev/null | grep -c '^0x')" -eq "$2" ]
}
# as UID [GROUPS] -- ARGS: atsctl on host1's socket as another user.
as() {
	local uid=$1 groups=$2
	shift 2
	if [ -n "$groups" ]; then
		setpriv --reuid="$uid" --regid="$uid" --groups="$groups" "$ATSCTL" -S "$SOCK" "$@"
	else
		setpriv --reuid="$uid" --regid="$uid" --clear-groups "$ATSCTL" -S "$SOCK" "$@"
	fi
}
# user ARGS...: atsctl on host1 itself (its simulated kernel and sysfs)
# as uid 65534 without groups: an ordinary user of that host.
user() {
	on host1 setpriv --reuid=65534 --regid=65534 --clear-groups "$ATSCTL" "$@"
}
# sock PY-EXPR...: a raw client of host1's socket (python as root).
sock() {
	"$PY" - "$SOCK" "$@" <<'PYEOF'
import socket, sys, time, os
path = sys.argv[1]
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(10)
    return s
def readall(s):
    out = b""
    while True:
        try:
            d = s.recv(65536)
        except (socket.timeout, ConnectionResetError):
            break
        if not d:
            break
        out += d
    return out
for code in sys.argv[2:]:
    exec(code)
PYEOF
}

check "host1: 10.0.0.1 registered" wait_for "host1" 10 has "$G1" ${P}53 10.0.0.1
check "host2: 10.0.0.2 registered" wait_for "host2" 10 has "$G2" ${P}53 10.0.0.2

# --- Who may do what (SO_PEERCRED; control_group).
for req in "hold 10.0.8.1 --owner x" "release 10.0.8.1 --owner x" "resync" \
	"connect 10.0.0.2 4791" "disconnect 1"; do
	# shellcheck disable=SC2086
	check_rc "uid 65534: '$req' is refused (EPERM, exit 3)" 3 "needs root or group $GRP" \
		as 65534 "" $req
done
check "... and logged with the uid" grep -q "refused 'hold' from uid 65534" "$RUN/atsd-host1.log"
check_out "uid 65534 may look up (resolve through atsd)" "10\.0\.0\.2" as 65534 "" resolve 10.0.0.2
check_out "... status" "10\.0\.0\.1 +registered" as 65534 "" status
check_out "... stats" "^syncs " as 65534 "" stats
check "... ipoib and connections" sh -c "setpriv --reuid=65534 --regid=65534 --clear-groups $ATSCTL -S $SOCK ipoib && setpriv --reuid=65534 --regid=65534 --clear-groups $ATSCTL -S $SOCK connections"
# --- A user of host1 itself: the umad device is root's (0600, as
# distributions create it), lookups are public through atsd. The port
# GUID's subnet prefix comes from sysfs.
GUID2=$(port_guid host2)
check_out "host1's umad and issm are root's, mode 0600; uverbs everyone's, 0666 (stat)" \
	"^600 root root /dev/infiniband/umad0,600 root root /dev/infiniband/issm0,666 root root /dev/infiniband/uverbs0\$" \
	on host1 sh -c 'stat -c "%a %U %G %n" /dev/infiniband/umad0 /dev/infiniband/issm0 /dev/infiniband/uverbs0 | paste -sd,'
check_rc "uid 65534 on host1 cannot open umad0 (EACCES, as on a host)" 1 \
	"/dev/infiniband/umad0.*Permission denied" \
	on host1 setpriv --reuid=65534 --regid=65534 --clear-groups dd if=/dev/infiniband/umad0 count=0
check "... root can" on host1 dd if=/dev/infiniband/umad0 count=0
check "... and so can uid 65534 with CAP_DAC_OVERRIDE (fs/namei.c generic_permission)" \
	on host1 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+dac_override \
	--ambient-caps=+dac_override dd if=/dev/infiniband/umad0 count=0
check_rc "... so stock saquery fails for uid 65534" 255 "" \
	on host1 setpriv --reuid=65534 --regid=65534 --clear-groups "$SAQUERY" -g
check_out "... sysfs stays everyone's: ibstat as uid 65534 shows host1's port" \
	"Port GUID: $(port_guid host1)" \
	on host1 setpriv --reuid=65534 --regid=65534 --clear-groups ibstat
simhost host4 modprobe ib_cm >/dev/null
check_out "host4's rdma_cm (ib_cm loaded) is everyone's, mode 0666" \
	"^666 root root /dev/infiniband/rdma_cm\$" on host4 stat -c "%a %U %G %n" /dev/infiniband/rdma_cm
check "... uid 65534 opens it" \
	on host4 setpriv --reuid=65534 --regid=65534 --clear-groups dd if=/dev/infiniband/rdma_cm count=0
check_out "uid 65534 on host1 reverses host2's port GUID: atsd answers" \
	"reverse $GUID2 0xffff: answered by atsd" user -v -S "$SOCK" reverse "$GUID2"
check_out "... with its address" "^${P}53 +$G2 .*10\.0\.0\.2 \(primary\)$" user -S "$SOCK" reverse "$GUID2"
check_out "... primary by port GUID too" "^${P}53 +$G2 .*10\.0\.0\.2 \(primary\)$" \
	user -S "$SOCK" primary "$GUID2"
check_rc "... without atsd (no socket) the SA is not open to uid 65534: it says why (exit 3)" 3 \
	"^atsctl: reverse $GUID2: atsd at $RUN/pub/none\.sock: No such file or directory; cannot ask the SA: permission denied on /dev/infiniband/umad0: run as root or start atsd\$" \
	user -S "$RUN/pub/none.sock" reverse "$GUID2"
check_rc "... -n alike" 3 "cannot ask the SA: permission denied on /dev/infiniband/umad0: run as root, or ask atsd \(without -n\)" \
	user -n reverse "$GUID2"
check_rc "... an SA command says so too" 3 \
	"^atsctl: cannot open CA \(default\) port 0: permission denied on /dev/infiniband/umad0: run as root\$" \
	user dump
check "a member of $GRP (uid 65534) holds 10.0.8.1" as 65534 "$GID_CTL" hold 10.0.8.1 --owner jobA
check "... it is registered" wait_for "hold" 10 has "$G1" ${P}54 10.0.8.1
check_out "... status lists the hold with its owner's uid (SO_PEERCRED)" \
	"^jobA +65534 +10\.0\.8\.1 +0xffff$" atsctl host1 -S "$SOCK" status
check_out "... --json too" '"holds": \[\{"owner": "jobA", "uid": 65534, "ip": "10\.0\.8\.1", "pkey": "0xffff"\}\]' \
	atsctl host1 -S "$SOCK" --json status
check_rc "another member (uid 65533) cannot release uid 65534's hold" 3 "another user" \
	as 65533 "$GID_CTL" release 10.0.8.1 --owner jobA
check "... root can" atsctl host1 -S "$SOCK" release 10.0.8.1 --owner jobA
check "... and it is deregistered" wait_for "release" 10 count "$G1" 1
check_rc "an owner name with a control byte: usage error" 2 "control bytes" \
	atsctl host1 -S "$SOCK" hold 10.0.8.1 --owner "$(printf 'a\033b')"
check_out "... refused by atsd too" "^ERR EINVAL owner name contains control bytes" \
	sock "s=conn(); s.sendall(b'hold a\x1bb 10.0.8.1\n'); print(s.recv(200).decode())"
check_out "atsd refuses a connection ID that is not a number" "^ERR EINVAL connection ID 'zz' is not a number" \
	sock "s=conn(); s.sendall(b'disconnect zz\n'); print(s.recv(200).decode())"
check_out "... and a service ID that is not hex" "^ERR EINVAL service ID '12xyz' is not hex" \
	sock "s=conn(); s.sendall(b'connect 10.0.0.2 5001 12xyz\n'); print(s.recv(200).decode())"

# --- Answers in request order (doc/atsd-protocol.md): a lookup that waits
# for the SA holds back a stats behind it.
check_out "pipelined 'resolve MISS' + 'stats': the resolve is answered first" "^first=ERR ENOENT" \
	sock "s=conn(); s.sendall(b'resolve 10.0.77.7\nstats\n'); time.sleep(1.5); print('first=' + s.recv(65536).decode().split(chr(10))[0])"
check_out "... ten pipelined requests, ten answers in order" "^order=ok" \
	sock "s=conn(); s.sendall(b''.join(b'resolve 10.0.78.%d\nstats\n' % i for i in range(5))); s.shutdown(socket.SHUT_WR); d=readall(s).decode().split(chr(10)); heads=[l for l in d if l.startswith('OK') or l.startswith('ERR')]; print(heads); print('order=' + ('ok' if len(heads) == 10 and heads[0::2] == ['ERR ENOENT no ATS record']*5 and all(h.startswith('OK ') for h in heads[1::2]) else 'bad'))"

# --- The line limit: 510 bytes and a newline.
check_out "a 510-byte request is read as a request" "^ERR EINVAL unknown request" \
	sock "s=conn(); s.sendall(b'x'*510 + b'\n'); print(s.recv(200).decode())"
check_out "a 600-byte line: ERR E2BIG, then the connection closes" "^E2BIG closed" \
	sock "s=conn(); s.sendall(b'x'*600 + b'\n'); d=readall(s).decode(); print(d.split(' ')[1] + (' closed' if d.count(chr(10)) == 1 else ' open'))"
check_out "garbage and NUL bytes get errors, atsd lives on" "^ERR EINVAL request contains a NUL byte" \
	sock "s=conn(); s.sendall(b'res\x00olve 1\n\xff\xfe\n'); time.sleep(0.5); print(s.recv(400).decode())"
check_out "... and are not echoed back" "^ERR EINVAL unknown request '\?\?'" \
	sock "s=conn(); s.sendall(b'\xff\x1b\n'); print(s.recv(400).decode())"

# --- Fairness: a per-uid limit, an idle timeout, no SIGPIPE.
check_out "uid 65534 opens 4 connections; the 5th gets EBUSY" "^ERR EBUSY uid 65534" \
	sock "os.setgid(65534); os.setuid(65534); k=[conn() for i in range(4)]; x=conn(); print(x.recv(200).decode())"
# shellcheck disable=SC2016
sock "pid=os.fork()
if pid == 0:
    os.setgid(65534); os.setuid(65534); k=[conn() for i in range(4)]; open('$RUN/pub/held', 'w').close()
    # Busy, not idle: client_idle_timeout (3 s) must not free a slot
    # before the checks below are done, however slow the sanitizers make them.
    t=time.time()
    while not os.path.exists('$RUN/pub/release') and time.time() - t < 120:
        for s in k: s.sendall(b'stats\n'); s.recv(65536)
        time.sleep(0.5)
    os._exit(0)
" &
HOLDER=$!
wait_for "uid 65534 to hold its connections" 5 test -e "$RUN/pub/held"
check_out "... meanwhile root resolves through atsd" "10\.0\.0\.2" atsctl host1 -v -S "$SOCK" resolve 10.0.0.2
check_out "... and uid 65533 does" "10\.0\.0\.2" as 65533 "" resolve 10.0.0.2
as 65534 "" -v resolve 10.0.0.2 >"$RUN/busy.out" 2>&1
rc=$?
check "... uid 65534's next atsctl is not killed by SIGPIPE (exit $rc)" test "$rc" -ne 141
check "... it says it asks the SA instead" grep -q "asking the SA" "$RUN/busy.out"
touch "$RUN/pub/release"
wait "$HOLDER"
check_out "all 64 slots taken: root's atsctl resolve asks the SA itself" "10\.0\.0\.2 \(primary\).*rc 0" \
	sh -c "$PY -c \"
import socket, time, subprocess, os
k=[]
for i in range(70):
    s=socket.socket(socket.AF_UNIX); s.connect('$SOCK'); k.append(s)
time.sleep(0.3)
env=dict(os.environ, SIM_HOST='host1', LD_PRELOAD='$SIM_PRELOAD')
r=subprocess.run(['$ATSCTL','-v','-S','$SOCK','resolve','10.0.0.2'], cwd='$RUN/scratch', env=env, capture_output=True, text=True)
print(r.stderr, r.stdout.replace(chr(10), ' '), 'rc', r.returncode)
\""
check_out "an idle connection is closed after client_idle_timeout" "^closed" \
	sock "s=conn(); s.settimeout(8); t=time.time(); d=s.recv(10); print('closed' if d == b'' and time.time() - t >= 2.5 else 'open')"
check_out "a client that never reads its answers is dropped, atsd answers others" "^syncs " \
	sh -c "$PY -c \"
import socket
s=socket.socket(socket.AF_UNIX); s.connect('$SOCK'); s.setblocking(False)
try:
    for i in range(20000): s.send(b'stats\n')
except BlockingIOError: pass
\"; sleep 1; cd $RUN/scratch && $ATSCTL -S $SOCK stats"

# --- One refused address does not stop the rest (SA refusal per record).
check "host1 holds host2's primary 10.0.0.2 (the SM refuses it)" \
	atsctl host1 -S "$SOCK" hold 10.0.0.2 --owner dup
check "... and 10.0.8.2 after it" atsctl host1 -S "$SOCK" hold 10.0.8.2 --owner good
check "... 10.0.8.2 is registered all the same" wait_for "good" 10 sh -c "
	cd $RUN/scratch && SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n resolve 10.0.8.2 | grep -q '$G1'"
check_rc "... status: 10.0.0.2 refused with the SA's reason (exit 4)" 4 "10\.0\.0\.2 +refused \(request rejected as invalid" \
	atsctl host1 -S "$SOCK" status
check_rc "... status: 10.0.8.2 registered" 4 "10\.0\.8\.2 +registered" atsctl host1 -S "$SOCK" status
check_rc "... and the SM's reason (issue 24 item 4)" 4 \
	"10\.0\.0\.2 +refused \(request rejected as invalid.*; rule duplicate-address \(7A08\): 10\.0\.0\.2 is the primary address of $G2 in P_Key 0xffff\)" \
	atsctl host1 -S "$SOCK" status
check "... which atsd logged" grep -q \
	"10\.0\.0\.2 on SID 0x[0-9a-f]* PKey 0xffff refused by the SM: rule duplicate-address (7A08): 10\.0\.0\.2 is the primary address of $G2" \
	"$RUN/atsd-host1.log"
check_rc "... --json carries state and reason" 4 '"ip": "10\.0\.0\.2", "primary": false, "state": "refused", "reason": "request rejected' \
	atsctl host1 -S "$SOCK" --json status
s1=$(atsctl host1 -S "$SOCK" stats | sed -n 's/^syncs //p')
sleep 2.5
s2=$(atsctl host1 -S "$SOCK" stats | sed -n 's/^syncs //p')
check "... verify keeps running ($s1 -> $s2 syncs)" test "$s2" -gt "$s1"
check_out "... no failed sync, no backoff" "^sync_failures 0$" atsctl host1 -S "$SOCK" stats
n1=$(grep -c 'refused 10.0.0.2' "$RUN/atsd-host1.log")
check "... the refusal is logged with the address ($n1 times: the hold and the next change)" \
	test "$n1" -ge 1 -a "$n1" -le 2
sleep 2
check "... and not again at every verification" test "$(grep -c 'refused 10.0.0.2' "$RUN/atsd-host1.log")" -eq "$n1"
check_rc "... status exits 4 while an address is refused (monitoring)" 4 "10\.0\.0\.2 +refused" \
	atsctl host1 -S "$SOCK" status
# resync: the refused address again at once (refused_retry is 600 s), and
# what the sync did; exit 4 as it is still refused.
check_rc "resync retries it now and says what it did (exit 4: still refused)" 4 \
	"^checked 3 address\(es\): 0 registered, 0 deleted, 1 still refused$" \
	atsctl host1 -S "$SOCK" resync
check "... the SA was asked again" test "$(grep -c 'refused 10.0.0.2' "$RUN/atsd-host1.log")" -eq $((n1 + 1))
check_rc "... naming it with the reason status gives: the SA's, the SM's rule" 4 \
	"^refused: 10\.0\.0\.2 PKey 0xffff SID 0x[0-9a-f]+: request rejected as invalid.*; rule duplicate-address \(7A08\): 10\.0\.0\.2 is the primary address of $G2 in P_Key 0xffff$" \
	atsctl host1 -S "$SOCK" resync
check_rc "... --json" 4 '"checked": 3, "registered": 0, "deleted": 0, "refused": \[\{"ip": "10\.0\.0\.2", "pkey": "0xffff", "sid": "0x[0-9a-f]+", "reason": "request rejected[^"]*; rule duplicate-address \(7A08\)' \
	atsctl host1 -S "$SOCK" --json resync
atsctl host1 -S "$SOCK" release 10.0.0.2 --owner dup
atsctl host1 -S "$SOCK" release 10.0.8.2 --owner good
check "releases: back to one record" wait_for "releases" 10 count "$G1" 1
check_rc "... status exits 0: nothing refused" 0 "10\.0\.0\.1 +registered" atsctl host1 -S "$SOCK" status
check_rc "... resync too" 0 "^checked 1 address\(es\): 0 registered, 0 deleted, 0 still refused$" \
	atsctl host1 -S "$SOCK" resync

# --- Only delete what atsd created: an admin's record on the same GID
# survives a SIGKILL and restart; atsd's own stale record does not.
check "an admin registers 10.0.9.9 by hand on host1's GID" atsctl host1 -n register 10.0.9.9
ip -n "$N1" addr add 10.0.0.11/24 dev v0
check "host1 adds 10.0.0.11" wait_for "secondary" 10 has "$G1" "${P}5[0-9a-f]" 10.0.0.11
kill -9 "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
ip -n "$N1" addr del 10.0.0.11/24 dev v0
check_out "the state file lists atsd's records, not the admin's" "10\.0\.0\.11" cat "$RUN/atsd-host1.state"
check_absent "... not 10.0.9.9" "10\.0\.9\.9" cat "$RUN/atsd-host1.state"
IFS='
'
agent_start host1 $COMMON "interface v0 netns $N1" "control_group $GRP"
IFS=$IFS_SAVE
check "after SIGKILL and restart: atsd's stale 10.0.0.11 is removed" \
	wait_for "stale removed" 10 sh -c "! cd $RUN/scratch || ! SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n dump --gid $G1 | grep -q ' 10\.0\.0\.11\$'"
check "... the admin's 10.0.9.9 is still there" has "$G1" "${P}5[0-9a-f]" 10.0.9.9
check "... 10.0.0.1 once, no duplicates: 2 records" count "$G1" 2
check_out "... status says 10.0.9.9 is not atsd's business" "10\.0\.0\.1 +registered" atsctl host1 -S "$SOCK" status
# SIGKILL in the middle of a sync of 200 new holds: the state file lists
# the Sets before they go out, so the restarted atsd knows every record it
# may have made and removes them (holds do not survive a restart). atsd
# logs a sync's outcome when it ends, so the SA shows how far it got; 20%
# MAD loss on host1's link stretches the sync to many seconds (every lost
# MAD costs a timeout), so the kill lands in its middle on any machine.
held() {
	atsctl host4 -n dump --gid "$G1" 2>/dev/null | grep -c ' 10\.0\.6\.'
}
some_held() {
	[ "$(held)" -gt 0 ]
}
sim 'Error "host1"[1] 20'
sock "s=conn(); s.sendall(b''.join(b'hold k 10.0.6.%d\n' % i for i in range(1, 201))); print(s.recv(100))" >/dev/null
wait_for "the sync of the holds to be under way" 30 some_held
kill -9 "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
sim 'Error "host1"[1] 0'
made=$(held)
check "... killed mid-sync: $made of 200 registered" test "$made" -gt 0 -a "$made" -lt 200
IFS='
'
agent_start host1 $COMMON "interface v0 netns $N1" "control_group $GRP"
IFS=$IFS_SAVE
check "SIGKILL mid-sync, restart: none of the held addresses is left" \
	wait_for "mid-sync" 20 sh -c "! cd $RUN/scratch || ! SIM_HOST=host4 LD_PRELOAD='$SIM_PRELOAD' $ATSCTL -n dump --gid $G1 | grep -q ' 10\.0\.6\.'"
check "... 10.0.0.1 and the admin's 10.0.9.9: 2 records" wait_for "2 left" 10 count "$G1" 2
# A damaged state file: nothing that is not wanted is taken as atsd's.
kill -9 "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
echo "garbage" >"$RUN/atsd-host1.state"
IFS='
'
agent_start host1 $COMMON "interface v0 netns $N1" "control_group $GRP"
IFS=$IFS_SAVE
check "a damaged state file is reported" wait_for "warning" 10 grep -q "state file .* ignored" "$RUN/atsd-host1.log"
check "... the admin's record survives that too" has "$G1" "${P}5[0-9a-f]" 10.0.9.9
check "... and the state file is written again" wait_for "rewrite" 10 grep -q "^ibats-atsd-state 1 $G1" "$RUN/atsd-host1.state"
# A state file that cannot be written: atsd registers nothing it could
# not remove after a crash, and says why (t_atsd_state.sh: a full disk).
IFS='
'
AGENT_STATE_FILE=/proc/ibats-no/atsd.state agent_start host3 $COMMON "address 10.0.3.3"
IFS=$IFS_SAVE
host3_unsaved() {
	agent host3 status | grep -Eq "10\.0\.3\.3 +unsaved \(state file /proc/ibats-no/atsd\.state: No such file"
}
check "host3 with an unwritable state file does not register its address, status says why" \
	wait_for "host3's sync" 10 host3_unsaved
check "... the SA holds no record of host3" count "$(port_gid host3)" 0
check "... and logs why it cannot keep its state" grep -q "state file /proc/ibats-no/atsd.state: " "$RUN/atsd-host3.log"
kill "$(agent_pid host1)"
check "SIGTERM: host1 exits" wait_for "exit" 10 sh -c "! kill -0 $(agent_pid host1)"
check "... the admin's 10.0.9.9 stays" has "$G1" "${P}5[0-9a-f]" 10.0.9.9
check "... and so does the primary it needs (the SM refuses its delete: primary first)" \
	grep -q "the SA refused to delete 10.0.0.1" "$RUN/atsd-host1.log"
check_rc "atsd stopped: uid 65534's lookup on host1 fails and says why (exit 3)" 3 \
	"^atsctl: reverse $GUID2: atsd at $SOCK: .*; cannot ask the SA: permission denied on /dev/infiniband/umad0: run as root or start atsd\$" \
	user -S "$SOCK" reverse "$GUID2"
check_out "... root's goes to the SA" "^${P}53 +$G2 .*10\.0\.0\.2 \(primary\)$" \
	atsctl host1 -S "$SOCK" reverse "$GUID2"
finish
