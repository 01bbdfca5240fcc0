# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsctl usage errors name the argument (exit 2); transport errors say
# what went wrong (exit 3).
. "$top_srcdir/tests/integration/harness.sh"

check_rc "unknown command" 2 "command 'frobnicate': unknown" "$ATSCTL" frobnicate
check_rc "bad IP" 2 "IP 'not-an-ip': not an IPv4 or IPv6 address" "$ATSCTL" register not-an-ip
check_rc "loopback IP refused before any MAD" 2 "IP '127.0.0.1': IPv4 loopback" "$ATSCTL" register 127.0.0.1
check_rc "bad PKey" 2 "--pkey '0x10000': not a PKey" "$ATSCTL" resolve 10.0.0.1 --pkey 0x10000
check_rc "zero PKey" 2 "--pkey '0': not a PKey" "$ATSCTL" resolve 10.0.0.1 --pkey 0
check_rc "bad lease" 2 "--lease 'soon'" "$ATSCTL" register 10.0.0.1 --lease soon
check_rc "SID outside the block for dump" 2 "--sid '0x1234': outside the ATS SID block" "$ATSCTL" dump --sid 0x1234
check_rc "option of another command" 2 "resolve '--primary': option not valid" "$ATSCTL" resolve 10.0.0.1 --primary
check_rc "missing argument" 2 "resolve takes 1 argument" "$ATSCTL" resolve
# The option as typed, never its argument; a missing argument said so.
check_rc "option of another command, its argument apart: the option named" 2 \
	"resolve '--lid': option not valid" "$ATSCTL" resolve 10.0.0.1 --lid 3
check_rc "an option's missing argument: named, not called invalid" 2 \
	"resolve '--pkey': needs an argument" "$ATSCTL" resolve 10.0.0.1 --pkey
check_rc "... a global one's after the command" 2 "resolve '-t': needs an argument" \
	"$ATSCTL" resolve 10.0.0.1 -t
check_rc "... before the command" 2 "option '--ca': needs an argument" "$ATSCTL" --ca
check_rc "an unknown letter in a cluster: that letter" 2 "option '-x': unknown" "$ATSCTL" -xv dump
check_rc "unknown global option" 2 "option '--bogus': unknown" "$ATSCTL" --bogus dump
check_rc "bad timeout" 2 "--timeout '0'" "$ATSCTL" -t 0 dump
check_rc "bad GID" 2 "GID 'nonsense': not a GID or port GUID" "$ATSCTL" reverse nonsense
check_rc "bad rmpp mode" 2 "--rmpp 'maybe'" "$ATSCTL" --rmpp maybe dump
check_out "--help lists the commands" "register IP" "$ATSCTL" --help
check_rc "disconnect with garbage" 2 "connection ID 'garbage': not a number" "$ATSCTL" disconnect garbage
check_rc "--service-id with garbage" 2 "--service-id '0x1g': not a service ID" \
	"$ATSCTL" connect 10.0.0.1 5000 --service-id 0x1g
check_rc "a GUID is hex: 17 digits are too many" 2 "GID '00000000000000001': not a GID or port GUID" \
	"$ATSCTL" reverse 00000000000000001
check_rc "--sid is hex, never decimal" 2 "--sid '1152921770542454867': not a ServiceID" \
	"$ATSCTL" dump --sid 1152921770542454867
check_rc "atsd -c DIR is an error" 1 "is a directory, not a config file" "$ATSD" -f -c "$RUN"

# atsd -V, and --check-config: start-up's parser and checks, nothing else
# (no socket, no lock, no SA), exit 0 or 1 (atsd(8)).
check_rc "atsd -V prints its version" 0 "^atsd \(ibats\) [0-9]+\.[0-9]+" "$ATSD" -V
mkdir -m 0755 "$RUN/cc"
printf 'socket %s\nstate_file %s\naddress 10.0.0.1 primary\n' "$RUN/cc/atsd.sock" \
	"$RUN/cc/atsd.state" >"$RUN/cc/good.conf"
check_rc "atsd --check-config FILE: a good file, exit 0, atsctl's word" 0 \
	"^$RUN/cc/good\.conf: valid atsd\.conf$" "$ATSD" --check-config "$RUN/cc/good.conf"
check "... no socket, lock or state file made" sh -c "[ -z \"\$(ls '$RUN/cc' | grep -v good.conf)\" ]"
{ cat "$RUN/cc/good.conf"; echo "verify_intervall 5"; } >"$RUN/cc/typo.conf"
check_rc "... an unknown key: exit 1 with file:line" 1 "$RUN/cc/typo\.conf:4: unknown key 'verify_intervall'" \
	"$ATSD" -t "$RUN/cc/typo.conf"
check_rc "... -c FILE --check-config: the same" 1 "$RUN/cc/typo\.conf:4: unknown key" \
	"$ATSD" -c "$RUN/cc/typo.conf" --check-config
mkdir -m 0777 "$RUN/cc/open"
printf 'state_file %s\n' "$RUN/cc/open/atsd.state" >"$RUN/cc/open.conf"
check_rc "... a state file others could swap: exit 1, as at start" 1 \
	"state_file $RUN/cc/open/atsd\.state: $RUN/cc/open is writable by others" \
	"$ATSD" --check-config="$RUN/cc/open.conf"
check_rc "... a missing file: exit 1" 1 "$RUN/cc/none\.conf: No such file" \
	"$ATSD" --check-config "$RUN/cc/none.conf"
mkfifo "$RUN/cc/fifo.conf"
check_rc "... a FIFO: exit 1 at once, not waiting for a writer" 1 "$RUN/cc/fifo\.conf: not a regular file" \
	timeout 10 "$ATSD" --check-config "$RUN/cc/fifo.conf"
# Without a file atsd runs on its defaults, and so does the check: no
# file at the default path is valid (a file that is there is checked).
if [ -e "$("$ATSD" --help | sed -n 's/.*-c, --config FILE .*(default \(.*\))$/\1/p')" ]; then
	check_rc "atsd --check-config, the default file: checked" 0 "valid atsd\.conf" "$ATSD" --check-config
else
	check_rc "atsd --check-config without a file: the defaults are valid" 0 \
		"valid atsd\.conf \(no such file: the built-in defaults\)" "$ATSD" --check-config
fi
# A configuration server checks hosts' files: a group missing there is a
# warning (atsd's start still refuses it), in the words atsctl uses.
{ cat "$RUN/cc/good.conf"; echo "control_group no-such-group-ibats"; } >"$RUN/cc/group.conf"
check_rc "... a control_group missing on this machine: a warning, exit 0" 0 \
	"atsd: warning: $RUN/cc/group\.conf:4: control_group: no group 'no-such-group-ibats' on this machine" \
	"$ATSD" -t "$RUN/cc/group.conf"
check_rc "... atsctl check-config: the same" 0 \
	"atsctl: warning: $RUN/cc/group\.conf:4: control_group: no group 'no-such-group-ibats' on this machine" \
	"$ATSCTL" check-config "$RUN/cc/group.conf"
check_rc "... atsd's start refuses it, file:line" 1 "group\.conf:4: control_group: no group" \
	"$ATSD" -f -c "$RUN/cc/group.conf"
check_json "... --json: valid, the warning with its line" \
	"d['valid'] and d['config'] == 'atsd.conf' and not d['defaults'] and d['error'] is None and len(d['warnings']) == 1 and ':4: control_group' in d['warnings'][0]" \
	"$ATSD" --check-config --json "$RUN/cc/group.conf"
"$ATSD" -t --json "$RUN/cc/group.conf" >"$RUN/cc/atsd.json" 2>/dev/null
"$ATSCTL" --json check-config "$RUN/cc/group.conf" >"$RUN/cc/atsctl.json" 2>/dev/null
check "... the same document as atsctl --json check-config" cmp "$RUN/cc/atsd.json" "$RUN/cc/atsctl.json"
check_json "... an error: valid false, the error in file:line words" \
	"not d['valid'] and 'typo.conf:4: unknown key' in d['error']" "$ATSD" -t --json "$RUN/cc/typo.conf"
check_rc "--json without --check-config: a usage error" 2 "atsd: --json goes with --check-config" \
	"$ATSD" --json

# atsctl CMD --help and atsctl help CMD, every command of the table: its
# synopsis, exactly its own options (--list-commands) and an example.
cmd_help() {
	local cmd=$1 opts o all
	shift
	opts=$("$ATSCTL" --list-commands | awk -v c="$cmd" '$1 == c { $1 = ""; print }')
	"$ATSCTL" "$cmd" --help >"$RUN/help.out" || return 1
	"$ATSCTL" help "$cmd" | cmp - "$RUN/help.out" || return 1
	"$ATSCTL" "$cmd" -h | cmp - "$RUN/help.out" || return 1
	grep -q "^Usage: atsctl \[OPTIONS\] $cmd" "$RUN/help.out" || return 1
	grep -A1 '^Example:$' "$RUN/help.out" | grep -q "^  atsctl .*$cmd" || return 1
	for o in $opts; do
		grep -q -- "${o%=}[ ]" "$RUN/help.out" || { echo "$cmd --help lacks $o"; return 1; }
	done
	all=$("$ATSCTL" --list-commands | tr ' ' '\n' | grep '^--' | sort -u)
	for o in $all; do
		case " $opts " in *" $o "*) continue ;; esac
		! grep -q -- "${o%=}[ ]" "$RUN/help.out" || { echo "$cmd --help shows $o"; return 1; }
	done
}
for c in $("$ATSCTL" --list-commands | cut -d' ' -f1); do
	check "$c --help and help $c: synopsis, its options, an example" cmd_help "$c"
done
check_rc "help of an unknown command" 2 "command 'frob': unknown" "$ATSCTL" help frob
check_out "atsctl help is --help" "^Commands:" "$ATSCTL" help
check_out "--help lists exit status 4 (atsctl(8) EXIT STATUS)" "^found, 2 usage error, 3 SA, agent or transport error, 4 \(status, resync\)\$" \
	"$ATSCTL" --help
check_out "-V prints the version" "^atsctl \(ibats\) [0-9]" "$ATSCTL" -V
check_out "--version too" "^atsctl \(ibats\) [0-9]" "$ATSCTL" --version

# check-config: the plugin's and atsd's own parsers, file:line, exit 0/1.
printf 'enforce_lease yes\nlease_max 600\n' >"$RUN/osmats.ok"
printf 'enforce_lease yes\nlease_mx 600\n' >"$RUN/osmats.bad"
printf 'ca mlx5_0\nport 1\n' >"$RUN/atsd.ok"
printf 'ca mlx5_0\nport 300\n' >"$RUN/atsd.bad"
check_out "check-config --plugin: a valid osmats.conf" "valid osmats.conf" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.ok"
check_rc "check-config --plugin: an unknown key, file:line (exit 1)" 1 \
	"osmats.bad:2: unknown key 'lease_mx'" "$ATSCTL" check-config --plugin "$RUN/osmats.bad"
check_out "check-config: a valid atsd.conf" "valid atsd.conf" "$ATSCTL" check-config "$RUN/atsd.ok"
check_rc "check-config: a bad value, file:line (exit 1)" 1 "atsd.bad:2: port" \
	"$ATSCTL" check-config "$RUN/atsd.bad"
check_rc "check-config: osmats.conf is not atsd.conf" 1 "osmats.ok:1: unknown key" \
	"$ATSCTL" check-config "$RUN/osmats.ok"
check_rc "check-config: a missing file is an error" 1 "nothing.conf: No such file" \
	"$ATSCTL" check-config "$RUN/nothing.conf"
# The replication key file, read as the plugin reads it at start (as
# root, OpenSM's user): one it would refuse turns replication off (ERR
# 7A48) though osmats.conf parses; the error names osmats.conf's line.
mkdir -m 755 "$RUN/kf"
chmod o+x "$RUN"
K="$RUN/kf/repl.key"
printf 'enforce_lease yes\nreplication_key_file %s\n' "$K" >"$RUN/osmats.key"
check_rc "check-config --plugin: a missing replication key file (exit 1)" 1 \
	"osmats\.key:2: replication_key_file .*repl\.key: No such file.*would be off \(ERR 7A48\)" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.key"
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$K"
chmod 644 "$K"
check_rc "... one others can read (exit 1)" 1 "osmats\.key:2: .*repl\.key: mode 0644 lets group or others" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.key"
chmod 600 "$K"
check_out "... a good one: valid" "valid osmats.conf" "$ATSCTL" check-config --plugin "$RUN/osmats.key"
check_json "... --json: valid, no warning" \
	"d['valid'] and d['config'] == 'osmats.conf' and d['warnings'] == []" \
	"$ATSCTL" --json check-config --plugin "$RUN/osmats.key"
# What a careless admin makes of the key file: each refused, saying why.
key_conf() {
	printf 'replication_key_file %s\n' "$1" >"$RUN/osmats.kf"
}
mkdir -m 700 "$RUN/kf/dir.key"
key_conf "$RUN/kf/dir.key"
check_rc "... a directory" 1 "osmats\.kf:1: replication_key_file .*dir\.key: not a regular file" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.kf"
ln -s repl.key "$RUN/kf/link.key"
key_conf "$RUN/kf/link.key"
check_rc "... a symbolic link to a good key" 1 "link\.key: a symbolic link" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.kf"
install -m 600 /dev/null "$RUN/kf/empty.key"
key_conf "$RUN/kf/empty.key"
check_rc "... an empty file" 1 "empty\.key:1: 0 hex digits" "$ATSCTL" check-config --plugin "$RUN/osmats.kf"
{ cat "$K"; printf '\r\n'; } >"$RUN/kf/crlf.key"
chmod 600 "$RUN/kf/crlf.key"
key_conf "$RUN/kf/crlf.key"
check_rc "... a DOS line end" 1 "crlf\.key:1: character 65 is not a hex digit" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.kf"
cp -p "$K" "$RUN/kf/nobody.key"
chown 65534 "$RUN/kf/nobody.key"
key_conf "$RUN/kf/nobody.key"
check_rc "... another user's" 1 "nobody\.key: owned by uid [0-9]*, neither root nor OpenSM's user \(uid 0\)" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.kf"
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
}
# Where nobody can run the build's atsctl (not a tree under a 0700 home).
if command -v setpriv >/dev/null && as_nobody "$ATSCTL" -V >/dev/null 2>&1; then
	# Run as that user, the check still judges for OpenSM's root.
	chmod 644 "$RUN/osmats.kf" "$RUN/osmats.key"
	check_rc "... ... checked as that user: still refused (OpenSM is root)" 1 \
		"nobody\.key: owned by uid [0-9]*, neither root" \
		as_nobody "$ATSCTL" check-config --plugin "$RUN/osmats.kf"
	check_rc "... root's key checked by another user: an error saying to run it as root" 1 \
		"osmats\.key:2: .*repl\.key: Permission denied \(atsctl runs as uid [0-9]*: run check-config as root" \
		as_nobody "$ATSCTL" check-config --plugin "$RUN/osmats.key"
fi
mkdir -m 755 "$RUN/kf/a dir"
cp -p "$K" "$RUN/kf/a dir/the key"
key_conf "$RUN/kf/a dir/the key"
check_out "... a path with spaces: taken whole" "valid osmats.conf" "$ATSCTL" check-config --plugin "$RUN/osmats.kf"
printf 'replication no\nreplication_key_file %s\n' "$RUN/kf/dir.key" >"$RUN/osmats.kf"
check_rc "... with replication no, not read by the plugin: a warning, exit 0" 0 \
	"atsctl: warning: .*osmats\.kf:2: replication_key_file .*dir\.key: not a regular file: not read while replication is no" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.kf"
printf 'state_file %s\n' "$RUN/kf/nowhere/osmats-state.json" >"$RUN/osmats.kf"
check_rc "... a state_file whose directory is missing here: a warning, exit 0" 0 \
	"atsctl: warning: .*osmats\.kf:1: state_file .*nowhere is not a directory on this machine" \
	"$ATSCTL" check-config --plugin "$RUN/osmats.kf"
# What a careless admin names: a FIFO is refused at once (OpenSM loading
# the plugin would wait for a writer), a NUL byte is named, not taken for
# the end of its line.
mkfifo -m 600 "$RUN/conf.fifo"
check_rc "check-config --plugin a FIFO: refused, no wait for a writer" 1 "conf\.fifo: not a regular file" \
	timeout 10 "$ATSCTL" check-config --plugin "$RUN/conf.fifo"
check_rc "atsd --check-config a FIFO: the same" 1 "conf\.fifo: not a regular file" \
	timeout 10 "$ATSD" --check-config "$RUN/conf.fifo"
printf 'ca mlx5_0\nport 1\0junk' >"$RUN/atsd.nul"
check_rc "check-config: a NUL byte, file:line (exit 1)" 1 "atsd\.nul:2: a NUL byte" \
	"$ATSCTL" check-config "$RUN/atsd.nul"

# The SM_Key's sources refuse what is wrong before any MAD, never
# printing the key.
echo 0x5a5a >"$RUN/smkey"
chmod 644 "$RUN/smkey"
check_rc "--smkey-file readable by others is refused" 2 "smkey: permissions 0644 are too open" \
	"$ATSCTL" --smkey-file "$RUN/smkey" port
chmod 600 "$RUN/smkey"
check_rc "-k and --smkey-file together" 2 "not both" "$ATSCTL" -k 1 --smkey-file "$RUN/smkey" port
check_rc "-k - with a line that is no key" 2 "-k -: not an SM_Key" sh -c "echo 0x5a5z | $ATSCTL -k - port"
check_rc "-k - with nothing on stdin" 2 "-k -: no line on standard input" sh -c "$ATSCTL -k - port </dev/null"
check_rc "a bad IBATS_SMKEY is named, not echoed" 2 "^atsctl: IBATS_SMKEY: not a 64-bit key" \
	env IBATS_SMKEY=0x5a5z "$ATSCTL" port
check_absent "... the value is not printed" "5a5z" env IBATS_SMKEY=0x5a5z "$ATSCTL" port
check_absent "a bad -k value is not printed" "5a5z" "$ATSCTL" -k 0x5a5z port
mkfifo -m 600 "$RUN/smkey.fifo"
check_rc "--smkey-file a FIFO: refused at once, no wait for a writer" 2 "smkey\.fifo: not a regular file" \
	timeout 10 "$ATSCTL" --smkey-file "$RUN/smkey.fifo" port
{ printf '0x5a5a%200s' ''; echo junk; } >"$RUN/smkey.long"
printf '0x5a5a\0junk\n' >"$RUN/smkey.nul"
chmod 600 "$RUN/smkey.long" "$RUN/smkey.nul"
check_rc "--smkey-file: a first line longer than a key is none (not its start)" 2 \
	"smkey\.long: the first line is not an SM_Key" "$ATSCTL" --smkey-file "$RUN/smkey.long" port
check_rc "--smkey-file: a NUL in the line is no key" 2 "smkey\.nul: the first line is not an SM_Key" \
	"$ATSCTL" --smkey-file "$RUN/smkey.nul" port
# ^C at the "-k -" prompt: atsctl dies of SIGINT with the terminal's echo
# back on (a pseudo-terminal: its echo is polled off first).
tty_sigint() {
	"$PYTHON3" - "$ATSCTL" <<'PY'
import fcntl, os, pty, signal, sys, termios, time
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(s, fd)
    os.execv(sys.argv[1], [sys.argv[1], "-k", "-", "port"])
echo = lambda: termios.tcgetattr(s)[3] & termios.ECHO
end = time.monotonic() + 10
while echo() and time.monotonic() < end:
    time.sleep(0.01)
off = not echo()
os.kill(pid, signal.SIGINT)
_, st = os.waitpid(pid, 0)
sys.exit(0 if off and os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGINT and echo() else 1)
PY
}
check "-k -: ^C at the prompt leaves the terminal's echo on" tty_sigint

# atsctl's own options after the command too, as git and ip take them;
# a command's own stay after it.
check_out "-V after a command" "^atsctl \(ibats\) [0-9]" "$ATSCTL" resolve -V
check_rc "-t after the command is atsctl's --timeout" 2 "--timeout '0'" "$ATSCTL" resolve 10.0.0.1 -t 0
check_rc "--rmpp after the command" 2 "--rmpp 'maybe'" "$ATSCTL" dump --rmpp maybe
check_rc "-S after the command names the socket" 3 "no socket at $RUN/nosock" \
	"$ATSCTL" status -S "$RUN/nosock"
check_rc "--socket=PATH after the command and -j" 3 "no socket at $RUN/nosock2" \
	"$ATSCTL" status -j --socket="$RUN/nosock2"
check_rc "-k before the command, --smkey-file after: still not both" 2 "not both" \
	"$ATSCTL" -k 1 port --smkey-file "$RUN/smkey"
check_rc "a command's option before it is unknown" 2 "option '--pkey': unknown" \
	"$ATSCTL" --pkey 1 resolve 10.0.0.1
check_rc "an unknown option after the command names the command" 2 "resolve '--bogus': option not valid" \
	"$ATSCTL" resolve 10.0.0.1 --bogus

# A fabric without an SM: the port never becomes active.
mkfifo "$RUN/ibsim.in"
sleep 1000000 >"$RUN/ibsim.in" &
T_PIDS="$T_PIDS $!"
(cd "$RUN" && exec "$IBSIM" -s "$TOPODIR/fabric4.net") <"$RUN/ibsim.in" >"$RUN/ibsim.log" 2>&1 &
T_PIDS="$T_PIDS $!"
wait_for "ibsim" 20 grep -q 'sim>' "$RUN/ibsim.log" || exit 1
check_rc "no SM: exit 3 with the reason" 3 "port is not active or has no SM" \
	atsctl host1 resolve 10.0.0.1
check_rc "atsctl's own options after the command reach the SA client (-j -v -t -r)" 3 \
	"port is not active or has no SM" atsctl host1 resolve 10.0.0.1 -j -v -t 100 -r 0
finish
