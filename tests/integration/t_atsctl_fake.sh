# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsctl against a fake atsd that answers with hostile lines: a clear
# error or the lines made safe, never a control byte on the terminal,
# never a number JSON would misread.
. "$top_srcdir/tests/integration/harness.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY"
FAKE="$RUN/fake.sock"
# fake ANSWER ATSCTL-ARGS...: one connection answered with ANSWER (python
# bytes literal), then atsctl's output and exit code.
fake() {
	local answer=$1
	shift
	"$PY" - "$FAKE" "$answer" "$ATSCTL" "$@" <<'PYEOF'
import ast, os, socket, subprocess, sys
path, answer, cmd = sys.argv[1], ast.literal_eval(sys.argv[2]), sys.argv[3:]
if os.path.exists(path):
    os.unlink(path)
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(1)
p = subprocess.Popen([cmd[0], "-S", path] + cmd[1:], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT)
s.settimeout(10)
c, _ = s.accept()
c.recv(4096)
c.sendall(answer)
c.shutdown(socket.SHUT_WR)
out, _ = p.communicate(timeout=20)
sys.stdout.write(repr(out)[2:-1] + " rc=%d\n" % p.returncode)
PYEOF
}

check_out "connections: an escape sequence is shown as \\x1b, not sent to the terminal" \
	'^0x1 active established \\\\x1b\[31m\\\\x07\\n rc=0$' \
	fake 'b"OK 1\n0x1 active established \x1b[31m\x07\n"' connections
check_out "stats --json: a count over 64 bits stays a string" \
	'"big": "99999999999999999999999"' \
	fake 'b"OK 2\nbig 99999999999999999999999\nmax 18446744073709551615\n"' --json stats
check_out "... 2^64-1 is still a number" '"max": 18446744073709551615' \
	fake 'b"OK 2\nbig 99999999999999999999999\nmax 18446744073709551615\n"' --json stats
check_out "an ERR's message with an escape sequence is shown escaped" \
	'atsctl: stats: no \\\\x1b\]0;owned\\\\x07\\n rc=3$' \
	fake 'b"ERR EIO no \x1b]0;owned\x07\n"' stats
check_out "status: a line with a control byte is a bad status line" \
	"atsd sent a bad status line '- fe80::1 0xffff 60 10.0.0.1 registered \\\\\\\\x1b\\[2J'\\\\n rc=3\$" \
	fake 'b"OK 1\n- fe80::1 0xffff 60 10.0.0.1 registered \x1b[2J\n"' status
finish
