# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsd under its systemd units' rules: the units pass systemd-analyze
# verify (and stay as hardened as they are: security's exposure), and
# atsd does its whole job without any capability, with no_new_privs and
# the control group as its gid, as the units run it (CapabilityBoundingSet=
# empty, NoNewPrivileges, Group=ibats): registers, answers an unprivileged
# lookup, gives its socket the control group, reloads on SIGHUP and
# deletes its records on SIGTERM, telling a sd_notify(3) listener READY=1
# (only once its socket accepts), RELOADING=1/READY=1 and STOPPING=1.
. "$top_srcdir/tests/integration/harness.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (atsd as root without capabilities, other uids)"
command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"

UNITS="$top_builddir/hostagent/atsd"
# The hardening block, from CapabilityBoundingSet= to the last line of
# [Service]: the same in both units.
hardening() {
	sed -n '/^CapabilityBoundingSet=/,/^\[Install\]/p' "$1" | grep -v '^\[Install\]'
}
hardening "$UNITS/atsd.service" >"$RUN/hardening"
hardening "$UNITS/atsd@.service" >"$RUN/hardening@"
check "atsd.service and atsd@.service have the same hardening" \
	sh -c "[ -s '$RUN/hardening' ] && diff '$RUN/hardening' '$RUN/hardening@'"
for u in atsd.service atsd@.service; do
	check_out "$u: Type=notify" "^Type=notify$" cat "$UNITS/$u"
	check_out "$u: no capability" "^CapabilityBoundingSet=$" cat "$UNITS/$u"
	check_out "$u: the control group's gid" "^Group=ibats$" cat "$UNITS/$u"
	check_out "$u: a restart keeps the records (SIGUSR1)" "^RestartKillSignal=SIGUSR1$" cat "$UNITS/$u"
	check_out "$u: a watchdog" "^WatchdogSec=[1-9]" cat "$UNITS/$u"
done

# systemd-analyze verify: what it checks of a unit file here is its syntax
# and settings, that ExecStart= is executable and that Documentation=
# man pages open (man(1)); not that User=/Group= exist. The built atsd
# stands in for the installed one; MANPATH finds the tree's pages. It
# exits 0 on an unknown key or a bad value, only logging them: silence
# is what passes.
if command -v systemd-analyze >/dev/null; then
	mkdir -p "$RUN/units" "$RUN/man/man5" "$RUN/man/man8"
	ln -s "$top_srcdir/doc/atsd.8" "$RUN/man/man8/atsd.8"
	ln -s "$top_srcdir/doc/atsd.conf.5" "$RUN/man/man5/atsd.conf.5"
	for u in atsd.service atsd@.service; do
		sed "s|^ExecStart=[^ ]*/atsd |ExecStart=$(cd "$top_builddir" && pwd)/hostagent/atsd/atsd |" \
			"$UNITS/$u" >"$RUN/units/$u"
	done
	# Without man(1) every Documentation= page would be a complaint.
	MAN_OPT=
	command -v man >/dev/null || { MAN_OPT=--man=no; echo "# no man(1): man pages not checked"; }
	check "systemd-analyze verify: no complaint" sh -c \
		"cd '$RUN/units' && out=\$(MANPATH='$RUN/man' SYSTEMD_LOG_LEVEL=notice \
		 systemd-analyze verify $MAN_OPT ./atsd.service ./atsd@.service 2>&1); rc=\$?; \
		 echo \"\$out\"; [ \$rc -eq 0 ] && [ -z \"\$out\" ]"
	# --offline (systemd 250): the unit file alone, no running manager.
	if systemd-analyze security --offline=true "$RUN/units/atsd.service" >"$RUN/security.out" 2>&1; then
		echo "# $(grep 'Overall exposure' "$RUN/security.out")"
		check "systemd-analyze security: exposure 2.5 at most" \
			systemd-analyze security --offline=true --threshold=25 "$RUN/units/atsd.service"
		# atsd(8)'s drop-in for the netns key adds that capability and
		# that namespace type, nothing else.
		mkdir -p "$RUN/root/etc/systemd/system/atsd.service.d"
		cp "$RUN/units/atsd.service" "$RUN/root/etc/systemd/system/"
		printf '[Service]\nCapabilityBoundingSet=CAP_SYS_ADMIN\nRestrictNamespaces=net\n' \
			>"$RUN/root/etc/systemd/system/atsd.service.d/netns.conf"
		systemd-analyze security --offline=true --root="$RUN/root" atsd.service \
			>"$RUN/dropin.out" 2>&1
		check_out "the netns drop-in grants CAP_SYS_ADMIN" "✗ CapabilityBoundingSet=~CAP_SYS_ADMIN " \
			cat "$RUN/dropin.out"
		check_out "... and network namespaces" "✗ RestrictNamespaces=~net " cat "$RUN/dropin.out"
		check_absent "... and nothing else" "✗ (CapabilityBoundingSet=~CAP_(SYS_PTRACE|DAC|CHOWN|NET_ADMIN|SETUID)|RestrictNamespaces=~(user|mnt|pid))" \
			cat "$RUN/dropin.out"
	else
		echo "# systemd-analyze security --offline: not here ($(tail -1 "$RUN/security.out"))"
	fi
else
	echo "# systemd-analyze not installed: units not verified"
fi
# sysusers.d: the file makes group ibats, the units' Group= (a private
# root: /etc/group there).
if command -v systemd-sysusers >/dev/null; then
	mkdir -p "$RUN/root/etc" "$RUN/root/usr/lib/sysusers.d"
	cp "$top_srcdir/hostagent/atsd/ibats.sysusers" "$RUN/root/usr/lib/sysusers.d/ibats.conf"
	check "systemd-sysusers makes group ibats" sh -c \
		"systemd-sysusers --root='$RUN/root' && grep '^ibats:x:[0-9]*:\$' '$RUN/root/etc/group'"
else
	echo "# systemd-sysusers not installed: sysusers.d file not checked"
fi

# The simulated host stands in for /dev/infiniband below: what the units count on
# for the real device, a root:root 0600 node (as umadN is by default)
# opening for root without capabilities, shown on /dev/null's
# numbers; and that no capability is left (another owner's node stays
# shut).
nocaps() {
	setpriv --bounding-set=-all --inh-caps=-all --no-new-privs "$@"
}
if mknod -m 0600 "$RUN/umad0" c 1 3 2>/dev/null; then
	check "a root:root 0600 device opens read-write without capabilities" \
		nocaps sh -c "exec 3<>'$RUN/umad0'"
	chown 1:1 "$RUN/umad0"
	check "... another owner's does not (no CAP_DAC_OVERRIDE)" \
		nocaps sh -c "! (exec 3<>'$RUN/umad0') 2>/dev/null"
else
	echo "# mknod not allowed here: device ownership not checked"
fi

fabric_up fabric4.net host1 host2
GRP="ibats$$"
groupadd "$GRP" || skip "cannot create a group"
GID_CTL=$(getent group "$GRP" | cut -d: -f3)
# The harness's cleanup reads the exit status: keep it.
trap 'rc=$?; groupdel "$GRP" 2>/dev/null; (exit $rc); cleanup' EXIT
# Others must reach the socket in the test directory (it is 0700).
chmod 755 "$RUN"
SOCK="$RUN/atsd-host1.sock"
NOTIFY="@ibats-notify-$$"

# A sd_notify(3) listener on NOTIFY (abstract, as a path would be): one
# line per datagram, its assignments joined by '|'; at READY=1 it also
# says whether atsd's socket accepted a connection at that moment.
"$PY" - "$NOTIFY" "$SOCK" "$RUN/notify.log" <<'PYEOF' &
import socket, sys
name, sock, log = sys.argv[1:4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + name[1:])
out = open(log, "a", buffering=1)
out.write("listening\n")
while True:
    msg = s.recv(4096).decode()
    line = msg.strip("\n").replace("\n", "|")
    if "READY=1" in msg.split("\n"):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            c.connect(sock)
            line += "|connect=ok"
        except OSError as e:
            line += "|connect=" + e.strerror
        c.close()
    out.write(line + "\n")
PYEOF
T_PIDS="$T_PIDS $!"
wait_for "the notify listener" 10 grep -q listening "$RUN/notify.log" || exit 1

# priv_start NODE SETPRIV_ARGS [ENV...] -- CONF LINES...: atsd on NODE as
# its units run it: root, no capability in any set (SETPRIV_BOUNDING:
# the bounding set, -all by default), no_new_privs. The preloaded
# simulator comes after setpriv, for atsd alone. priv_launch does not
# wait for atsd's socket, priv_start does.
priv_launch() {
	local node=$1 ids=$2 line pid
	shift 2
	local envs=""
	while [ "$1" != "--" ]; do
		envs="$envs $1"
		shift
	done
	shift
	{
		echo "socket ${SOCK_DIR:-$RUN}/atsd-$node.sock"
		echo "state_file $RUN/atsd-$node.state"
		for line in "$@"; do
			echo "$line"
		done
	} >"$RUN/atsd-$node.conf"
	# shellcheck disable=SC2086 # ATSD_WRAP: a command atsd runs under
	(cd "$RUN/scratch" && exec setpriv $ids --bounding-set="${SETPRIV_BOUNDING:--all}" --inh-caps=-all \
		--no-new-privs env $envs SIM_HOST="$node" LD_PRELOAD="$SIM_PRELOAD" \
		${ATSD_WRAP:-} "$ATSD" -f -c "$RUN/atsd-$node.conf") >>"$RUN/atsd-$node.log" 2>&1 &
	pid=$!
	T_PIDS="$T_PIDS $pid"
	eval "AGENT_PID_$node=$pid"
}

priv_start() {
	priv_launch "$@"
	wait_for "atsd on $1" 20 agent "$1" status
}

priv_start host1 "--regid=$GID_CTL --clear-groups" NOTIFY_SOCKET="$NOTIFY" -- \
	"address 10.0.0.1 primary" "control_group $GRP" "verify_interval 1"
P1=$(agent_pid host1)
check_out "atsd runs with no capability" "^CapEff:[[:space:]]+0+$" grep '^CapEff' "/proc/$P1/status"
check_out "... none to regain" "^CapBnd:[[:space:]]+0+$" grep '^CapBnd' "/proc/$P1/status"
check_out "... and no_new_privs" "^NoNewPrivs:[[:space:]]+1$" grep '^NoNewPrivs' "/proc/$P1/status"

# in_sa GID IP: the SA holds a record of IP on GID (asked from host4).
in_sa() {
	atsctl host4 -n dump --gid "$1" 2>/dev/null | grep -Eq " $2( |\$)"
}
check "it registers its address" wait_for "10.0.0.1 in the SA" 20 in_sa "$G1" 10.0.0.1
check_out "... stock saquery sees it" "ServiceGID\.+$G1" on host4 "$SAQUERY" -S
check_out "an unprivileged user's lookup is answered over the socket" "$G1" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$ATSCTL" -S "$SOCK" resolve 10.0.0.1
check_out "the socket has the control group's gid" "^$GID_CTL 666$" stat -c '%g %a' "$SOCK"
check_out "READY=1 came once the socket accepted connections, with a status" \
	"^READY=1\|STATUS=[0-9]+ records registered.*, SM LID [0-9]+\|connect=ok$" head -2 "$RUN/notify.log"
check "... the status follows the records" wait_for "1 record registered" 10 \
	grep -q "^STATUS=1 records registered, SM LID " "$RUN/notify.log"

# SIGHUP: a reloadable key (another static address) takes effect.
echo "address 10.0.0.2" >>"$RUN/atsd-host1.conf"
kill -HUP "$P1"
check "SIGHUP reloads: the new address is registered" wait_for "10.0.0.2 in the SA" 20 \
	in_sa "$G1" 10.0.0.2
check_out "... logged" "reloaded $RUN/atsd-host1.conf" cat "$RUN/atsd-host1.log"
check "... systemd heard RELOADING=1 with the time, then READY=1" "$PY" - "$RUN/notify.log" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
r = [i for i, l in enumerate(lines) if l.startswith("RELOADING=1|MONOTONIC_USEC=")]
sys.exit(not (len(r) == 1 and any(l.startswith("READY=1|") for l in lines[r[0] + 1:])))
PYEOF

# Gone or a zombie: exited_with reaps it.
exited() {
	! kill -0 "$1" 2>/dev/null || grep -q '^State:[[:space:]]*Z' "/proc/$1/status"
}
# exited_with STATUS PID: this shell's child PID exited with STATUS.
exited_with() {
	local rc=0
	wait "$2" || rc=$?
	echo "exit status $rc"
	[ "$rc" -eq "$1" ]
}
# since_line N: the log's lines after the first N.
since_line() {
	tail -n +"$(($1 + 1))" "$RUN/atsd-host1.log"
}

# A restart keeps the records (atsd(8) SIGNALS; the units'
# RestartKillSignal=SIGUSR1): a peer resolving host1's address every
# 50 ms through a SIGHUP with the same config, then an exit on SIGUSR1
# and a new atsd, never misses it. The new atsd adopts the records: no
# Delete, no Set.
prober_start host4 10.0.0.1 "$RUN/probe"
wait_for "the prober's first answer" 10 grep -q " ok " "$RUN/probe"
kill -HUP "$P1"
wait_for "the second reload" 10 sh -c "[ \$(grep -c 'reloaded $RUN/atsd-host1.conf' '$RUN/atsd-host1.log') -ge 2 ]"
N0=$(wc -l <"$RUN/atsd-host1.log")
kill -USR1 "$P1"
check "SIGUSR1: atsd exits" wait_for "atsd to exit" 20 exited "$P1"
check "... with status 0" exited_with 0 "$P1"
check_out "... saying so last" "^atsd: info: exiting: 2 records kept for the next atsd$" \
	sh -c "tail -1 '$RUN/atsd-host1.log'"
check_out "... systemd heard STOPPING=1 first" "^STOPPING=1\|STATUS=exiting, keeping 2 record" \
	grep "^STOPPING=1" "$RUN/notify.log"
check_absent "... nothing deleted" "deregistered [0-9.]+ from SID" since_line "$N0"
check "... the SA still holds both" gid_records "$G1" 2
# The next atsd as systemd starts it: stderr the journal's stream
# (sd-daemon(3) priorities), a watchdog (WatchdogSec=).
N1=$(wc -l <"$RUN/atsd-host1.log")
JSTREAM=$(stat -c '%d:%i' "$RUN/atsd-host1.log")
priv_start host1 "--regid=$GID_CTL --clear-groups" NOTIFY_SOCKET="$NOTIFY" \
	JOURNAL_STREAM="$JSTREAM" WATCHDOG_USEC=1000000 -- \
	"address 10.0.0.1 primary" "control_group $GRP" "verify_interval 1" "address 10.0.0.2"
P1=$(agent_pid host1)
check "the next atsd adopts them" wait_for "adoption" 20 grep -q "adopted 2 record(s)" "$RUN/atsd-host1.log"
check "... pinging the watchdog (WATCHDOG_USEC 1 s: every 0.5 s)" \
	wait_for "pings" 5 sh -c "[ \$(grep -c '^WATCHDOG=1\$' '$RUN/notify.log') -ge 3 ]"
prober_stop "$RUN/probe"
check_absent "... without a Set or a Delete" "(de)?registered [0-9.]+ (on|from) SID" since_line "$N1"
check_out "... the prober never missed 10.0.0.1" "^attempts [1-9][0-9]* failures 0 " prober_window "$RUN/probe"
check_out "... logging with journald priorities when stderr is the journal's stream" \
	"^<6>atsd: info: adopted 2 record" since_line "$N1"

# SIGTERM: the records go, then atsd exits.
prober_start host4 10.0.0.1 "$RUN/probe2"
kill "$P1"
check "SIGTERM: atsd exits" wait_for "atsd to exit" 20 exited "$P1"
check "... with status 0" exited_with 0 "$P1"
check "... after deleting its records" gid_records "$G1" 0
check_absent "... the SA has none of them" "$G1" on host4 "$SAQUERY" -S
check_out "... systemd heard STOPPING=1 first" "^STOPPING=1\|STATUS=deleting 2 record" \
	grep "^STOPPING=1" "$RUN/notify.log"
check_out "... saying so last" "^<6>atsd: info: exiting: 2 records deleted$" \
	sh -c "tail -1 '$RUN/atsd-host1.log'"
wait_for "the prober's miss" 10 grep -q " fail " "$RUN/probe2"
prober_stop "$RUN/probe2"
check_out "... a peer's lookup misses it (a stop is not a restart)" "failures [1-9]" \
	prober_window "$RUN/probe2"

# Without the control group as its gid and without CAP_CHOWN, atsd cannot
# give its socket that group: it says so, and serves all the same. Under
# strace where installed: the units' RestrictAddressFamilies= and a socket
# directory someone could write to, seen in atsd's system calls.
# Only host2's atsd runs under strace: ATSD_WRAP is given to that one
# call (under strace, a later atsd would outlive the cleanup, which stops
# strace, not its child).
STRACE2=
if command -v strace >/dev/null; then
	STRACE2="strace -f -qq -o $RUN/strace.host2 -e trace=socket,chmod,fchmodat,chown,lchown,fchownat"
else
	echo "# strace not installed: address families and socket calls not checked"
fi
ATSD_WRAP=$STRACE2 priv_start host2 "--clear-groups" -- "address 10.0.0.3 primary" "control_group $GRP"
if [ -n "$STRACE2" ]; then
	# atsd itself, strace's child: stopped before strace by the cleanup.
	P2=$(cat "/proc/$(agent_pid host2)/task/$(agent_pid host2)/children")
	T_PIDS="$T_PIDS $P2"
fi
check_out "a socket atsd cannot give its group: logged" \
	"cannot give it group $GRP \\(Operation not permitted\\)" cat "$RUN/atsd-host2.log"
check "... and atsd registers all the same" wait_for "10.0.0.3 in the SA" 20 in_sa "$G2" 10.0.0.3
if [ -n "$STRACE2" ]; then
	kill -HUP "$P2"
	wait_for "host2 reloaded" 10 grep -q "reloaded $RUN/atsd-host2.conf" "$RUN/atsd-host2.log"
	check_out "strace saw atsd's sockets" "socket\\(" cat "$RUN/strace.host2"
	check_absent "... none but AF_UNIX and AF_NETLINK (RestrictAddressFamilies=)" \
		"socket\\(AF_(INET|INET6|PACKET|IB)" cat "$RUN/strace.host2"
	# A name swapped for a symlink between bind(2) and a chmod or chown
	# by name would have root atsd change the link's target.
	check_absent "... the socket's mode from bind(2), no chmod by name" "chmod\\(" \
		cat "$RUN/strace.host2"
	check_out "... its group at start and on SIGHUP, not through a symlink" \
		"^([0-9]+ +)?fchownat\\(AT_FDCWD, \"$RUN/atsd-host2.sock\", -1, $GID_CTL, AT_SYMLINK_NOFOLLOW\\)" \
		cat "$RUN/strace.host2"
	check_absent "... never chown(2) or lchown(2) by another call" "[^t]chown\\(|^chown" \
		cat "$RUN/strace.host2"
fi

# A socket directory others may write to (not sticky): they could swap
# the socket for a symlink or their own socket; atsd refuses it.
mkdir -m 0777 "$RUN/open"
SOCK_DIR=$RUN/open priv_launch host4 "--clear-groups" -- "address 10.0.0.4 primary"
P4=$(agent_pid host4)
check "a socket directory anyone may write to: atsd exits" wait_for "atsd to exit" 20 exited "$P4"
# Still running: stopped, so that the wait below fails instead of hanging.
exited "$P4" || kill "$P4"
check "... with status 1" exited_with 1 "$P4"
check_out "... saying why" "socket directory $RUN/open is writable by others" cat "$RUN/atsd-host4.log"
check "... without a socket there" test ! -e "$RUN/open/atsd-host4.sock"

# The netns key: setns(2) needs CAP_SYS_ADMIN. Without it atsd says what
# to do and exits; with that one capability (the drop-in) it works.
host_ns h3
ip -n "$(ns h3)" addr add 10.0.3.1/24 dev v0
priv_launch host3 "--clear-groups" -- "interface v0 netns $(ns h3)"
P3=$(agent_pid host3)
check "netns without CAP_SYS_ADMIN: atsd exits" wait_for "atsd to exit" 20 exited "$P3"
check "... with status 1" exited_with 1 "$P3"
check_out "... saying what it lacks" \
	"interface v0 in netns $(ns h3): not allowed to enter the namespace \(setns: Operation not permitted\): netns needs CAP_SYS_ADMIN" \
	cat "$RUN/atsd-host3.log"
SETPRIV_BOUNDING=-all,+sys_admin priv_start host3 "--clear-groups" -- "interface v0 netns $(ns h3)"
check "with CAP_SYS_ADMIN alone it registers the namespace's address" \
	wait_for "10.0.3.1 in the SA" 20 in_sa "$(port_gid host3)" 10.0.3.1

finish
