# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsd registers nothing its state file cannot list (issue 22, finding 8):
# with the file's filesystem full a new address stays off the SA and
# status says why; with room again it is registered at the next sync;
# after SIGKILL a new atsd finds in the SA only what a state file lists.
# And a state file others could swap, or make first, is refused at start
# and at reload.
# The tmpfs lives in a mount namespace of the test's own: it goes when
# the test's last process does, whatever way the test ends.
if [ -z "${T_MOUNT_NS:-}" ] && unshare -m true 2>/dev/null; then
	T_MOUNT_NS=1 exec unshare -m --propagation private "${BASH:-sh}" "$0" "$@"
fi
. "$top_srcdir/tests/integration/harness.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root (mount, other uids)"
[ -n "${T_MOUNT_NS:-}" ] || skip "no mount namespace of its own (unshare -m)"
ST=$RUN/st
mkdir -m 0755 "$ST"
mount -t tmpfs -o size=64k,mode=0755 ibats-state "$ST" || skip "cannot mount a tmpfs"

fabric_up fabric4.net host1
P=0x10000ce1004154
COMMON="verify_interval 1
sm_poll_interval 1
backoff_max 2
metrics_file $RUN/atsd-host1.prom"
IFS_SAVE=$IFS

# has GID SID IP: the SA holds that record (asked from host4).
has() {
	atsctl host4 -n dump --gid "$1" 2>/dev/null | grep -Eq "^$2 +$1 +0x[0-9a-f]+ +[a-z0-9]+ +$3( |\$)"
}
# sa_matches_file: the SA holds for G1 exactly the records the state file
# lists (SID, PKey, address), nothing more.
sa_matches_file() {
	atsctl host4 -n dump --gid "$G1" 2>/dev/null |
		awk '/^0x/ { print $1, $3, $5 }' | sort >"$RUN/sa.list"
	awk 'NR > 1 && !/^end / { print $1, $2, $3 }' "$ST/atsd.state" | sort >"$RUN/file.list"
	diff "$RUN/file.list" "$RUN/sa.list"
}
# fill: no room left on the state file's filesystem.
fill() {
	dd if=/dev/zero of="$ST/fill" bs=1k 2>/dev/null
	[ "$(stat -f -c %a "$ST")" -eq 0 ]
}

IFS='
'
AGENT_STATE_FILE=$ST/atsd.state agent_start host1 $COMMON "address 10.0.0.1 primary"
IFS=$IFS_SAVE
check "host1 registers 10.0.0.1" wait_for "10.0.0.1" 10 has "$G1" ${P}53 10.0.0.1
check "... and lists it in its state file" grep -q " 10\.0\.0\.1\$" "$ST/atsd.state"

# status_has RE: host1's status has a line matching RE.
status_has() {
	agent host1 status | grep -Eq -- "$1"
}
# sa_has IP: the SA holds a record of G1 carrying IP; sa_lacks: none.
sa_has() {
	atsctl host4 -n dump --gid "$G1" 2>/dev/null |
		awk -v ip="$1" '/^0x/ && $5 == ip { f = 1 } END { exit !f }'
}
sa_lacks() {
	! sa_has "$1"
}

# --- Full: a new address stays off the SA, and status says why.
check "the state file's filesystem is full" fill
check "host1 holds 10.0.0.5" agent host1 hold 10.0.0.5 --owner t
check "... a sync decides on it" wait_for "10.0.0.5 decided" 10 status_has "10\.0\.0\.5 +(unsaved|registered)"
check_out "... status: not registered, the state file's error as the reason" \
	"10\.0\.0\.5 +unsaved \(state file $ST/atsd\.state: No space left on device\)" \
	agent host1 status
check_out "... --json carries state and reason" \
	'"ip": "10\.0\.0\.5", "primary": false, "state": "unsaved", "reason": "state file .*: No space left on device"' \
	agent host1 --json status
check "... the SA holds no 10.0.0.5" sa_lacks 10.0.0.5
check "... the SA holds nothing the state file does not list" sa_matches_file
check "... the log says why" grep -q "state file $ST/atsd.state: No space left on device; new addresses are not registered" \
	"$RUN/atsd-host1.log"
check "... the metrics count it" wait_for "metrics" 15 grep -Eq \
	'^ibats_host_addresses\{[^}]*state="unsaved"[^}]*\} 1$' "$RUN/atsd-host1.prom"
check "... 10.0.0.1 stays registered (re-Sets and verifies go on)" has "$G1" ${P}53 10.0.0.1

# --- Room again: registered at the next sync, listed first.
rm -f "$ST/fill"
check "room again: 10.0.0.5 is registered within a sync" wait_for "10.0.0.5" 10 sa_has 10.0.0.5
check "... status: registered" wait_for "status" 5 status_has "10\.0\.0\.5 +registered"
check "... the state file lists it" grep -q " 10\.0\.0\.5\$" "$ST/atsd.state"
check "... the SA holds what the state file lists" sa_matches_file

# --- SIGKILL, a new atsd: it adopts what the file lists and wants, and
# removes the rest (the hold did not survive); nothing unknown is left.
kill -9 "$(agent_pid host1)"
wait "$(agent_pid host1)" 2>/dev/null
IFS='
'
AGENT_STATE_FILE=$ST/atsd.state agent_start host1 $COMMON "address 10.0.0.1 primary"
IFS=$IFS_SAVE
check "after SIGKILL and restart: 10.0.0.5 (no longer held) is removed" \
	wait_for "10.0.0.5 gone" 10 sa_lacks 10.0.0.5
check "... 10.0.0.1 adopted, still registered" has "$G1" ${P}53 10.0.0.1
check "... the SA holds what the state file lists" wait_for "file and SA agree" 10 sa_matches_file
check "... the log says it adopted them" grep -Eq "adopted [0-9]+ record\(s\) .*listed in the state file" "$RUN/atsd-host1.log"

# --- A state file others could swap: refused at reload...
chmod 0777 "$ST"
kill -HUP "$(agent_pid host1)"
check "reload with the state file's directory writable by all: refused" \
	wait_for "reload refused" 10 grep -q "not reloaded" "$RUN/atsd-host1.log"
check_out "... naming the path and why" \
	"state_file $ST/atsd\.state: $ST is writable by others \(uid 0, mode 0777\) and not sticky" \
	cat "$RUN/atsd-host1.log"
chmod 0755 "$ST"

# ... and at start: atsd exits 1 saying why, before it touches the SA.
# refused NAME STATE_FILE: atsd on host2 with that state file.
refused() {
	printf 'socket %s\nstate_file %s\naddress 10.0.0.2 primary\n' \
		"$RUN/$1.sock" "$2" >"$RUN/$1.conf"
	on host2 timeout 20 "$ATSD" -f -c "$RUN/$1.conf"
}
mkdir -m 0777 "$RUN/open"
check_rc "a state file in a directory anyone may write to (not sticky): atsd exits 1" 1 \
	"state_file $RUN/open/atsd\.state: $RUN/open is writable by others" \
	refused open "$RUN/open/atsd.state"
mkdir -m 0775 "$RUN/grp"
check_rc "... writable by the group: exit 1" 1 "$RUN/grp is writable by others" \
	refused grp "$RUN/grp/atsd.state"
mkdir -m 0755 "$RUN/other"
chown 4242 "$RUN/other"
check_rc "... owned by another user: exit 1" 1 "$RUN/other is owned by uid 4242" \
	refused other "$RUN/other/atsd.state"
mkdir -m 0755 "$RUN/lnk"
ln -s "$ST/atsd.state" "$RUN/lnk/atsd.state"
check_rc "... a symlink: exit 1" 1 "state_file $RUN/lnk/atsd\.state: $RUN/lnk/atsd\.state is a symbolic link" \
	refused lnk "$RUN/lnk/atsd.state"
mkdir -m 1777 "$RUN/sticky"
: >"$RUN/sticky/atsd.state"
chown 4242 "$RUN/sticky/atsd.state"
check_rc "... in a sticky directory, made first by another user: exit 1" 1 \
	"state_file $RUN/sticky/atsd\.state: $RUN/sticky/atsd\.state is owned by uid 4242" \
	refused sticky "$RUN/sticky/atsd.state"
check "... none of them made its socket" test ! -e "$RUN/open.sock" -a ! -e "$RUN/lnk.sock" \
	-a ! -e "$RUN/sticky.sock"
finish
