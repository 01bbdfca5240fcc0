# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# atsctl's bash completion (hostagent/atsctl/bash-completion/atsctl) in a
# bash without rc files, with bash-completion's helpers loaded and without
# them: commands and each command's options as atsctl's table has them,
# option arguments, and the addresses a real atsd on ibsim holds; only
# atsd's socket is asked (never the SA), and an atsd that does not answer
# costs a bounded wait.
. "$top_srcdir/tests/integration/harness.sh"

COMP="$top_srcdir/hostagent/atsctl/bash-completion/atsctl"
BC=/usr/share/bash-completion/bash_completion
MODES=plain
if [ -f "$BC" ]; then
	MODES="plain bc"
else
	echo "# bash-completion not installed (Debian: bash-completion): its helpers untested"
fi

# Every atsctl the completion runs, logged: what it asks is checked below.
cat >"$RUN/atsctl" <<EOF
#!/bin/sh
echo "\$*" >>"$RUN/calls"
exec "$ATSCTL" "\$@"
EOF
chmod +x "$RUN/atsctl"

# comp MODE ARGS: what completing "atsctl ARGS" offers (the cursor at the
# end; a trailing blank starts a new word), one a line; MODE bc first
# loads bash-completion. Words as readline splits them, bar the colons.
WB=$' \t\n"\'><=;|&(:'
comp() {
	WB=$WB SHELL_OPTS=${SHELL_OPTS:-} timeout 10 bash --norc --noprofile -c '
		[ "$1" = bc ] && . "$4"
		. "$3"
		eval "$SHELL_OPTS"
		line="$5 $2"
		read -ra COMP_WORDS <<<"$line"
		[[ $line == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		COMP_WORDBREAKS=$WB
		_atsctl atsctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "$2" "$COMP" "$BC" "$RUN/atsctl" | sort
}

# offers MODE ARGS WORD...: completing ARGS offers exactly the WORDs.
offers() {
	local mode=$1 args=$2 want got
	shift 2
	want=$(printf '%s\n' "$@" | sed '/^$/d' | sort)
	got=$(comp "$mode" "$args" | sed '/^$/d')
	[ "$got" = "$want" ] || { printf 'atsctl %s: got\n%s\nwanted\n%s\n' "$args" "$got" "$want"; return 1; }
}

# has MODE ARGS WORD: completing ARGS offers WORD among others.
has() {
	comp "$1" "$2" | grep -Fxq -- "$3" || { echo "atsctl $2: no $3 in:"; comp "$1" "$2"; return 1; }
}

# silent MODE ARGS: completing ARGS offers nothing and prints nothing.
silent() {
	local out
	out=$(comp "$1" "$2" 2>&1 | sed '/^$/d')
	[ -z "$out" ] || { printf 'atsctl %s:\n%s\n' "$2" "$out"; return 1; }
}

# ms CMD...: run CMD, print how long it took in milliseconds.
ms() {
	local t0
	t0=$(date +%s%3N)
	"$@" >/dev/null 2>&1
	echo $(($(date +%s%3N) - t0))
}

CMDS="$("$ATSCTL" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]\{1,\}\).*/\1/p') help"
GLOBAL="--ca= --port= --json --timeout= --retries= --smkey= --smkey-file= --rmpp= --socket= --no-agent
	--verbose --version --help"
for m in $MODES; do
	# shellcheck disable=SC2086 # lists of words
	check "$m: every command of atsctl --help at the first word" offers "$m" "" $CMDS
	check "$m: commands by prefix" offers "$m" "re" register release resolve resync reverse
	check "$m: commands after global options and their arguments" \
		offers "$m" "-v --timeout 100 -S /x st" stats status
	# shellcheck disable=SC2086
	check "$m: global options before the command" offers "$m" "-" $GLOBAL
	check "$m: --rmpp values" offers "$m" "--rmpp " auto off on
	check "$m: hold's own options" offers "$m" "-j hold 10.0.0.1 --" --json --owner= --pkey=
	check "$m: ping's options" offers "$m" "ping --" --count= --interval= --json --pkey= --size= --type=
	check "$m: resync takes no option" offers "$m" "resync --"
	check "$m: help COMMAND: the commands" offers "$m" "help re" register release resolve resync reverse
	check "$m: check-config's file" has "$m" "check-config --plugin $RUN/atsc" "$RUN/atsctl"
	check "$m: --smkey-file completes file names" has "$m" "--smkey-file $RUN/atsc" "$RUN/atsctl"
	check "$m: atsctl's own options after the command too, by prefix" \
		offers "$m" "dump --s" --sid= --smkey= --smkey-file= --socket=
	check "$m: ... with their values" offers "$m" "dump --rmpp " auto off on
	check "$m: ... whose argument is none of the command's" \
		offers "$m" "help -t 100 re" register release resolve resync reverse
	check "$m: sm's and why's options (issues 24, 37)" offers "$m" "sm --" --json --lid= --node-name-map=
	check "$m: ... why's" offers "$m" "-k 1 why --" --json --lid= --node-name-map=
	check "$m: --type values" offers "$m" "ping 3 --type " echo info timestamp
	check "$m: --type=VALUE" offers "$m" "ping --type=t" timestamp
	check "$m: --owner takes no completion" offers "$m" "hold --owner "
	check "$m: --save completes file names" has "$m" "audit --save $RUN/atsc" "$RUN/atsctl"
	check "$m: purge's options" offers "$m" "purge --" --json --pkey= --yes
	check "$m: --node-name-map completes file names" has "$m" "whois 10.0.0.1 --node-name-map $RUN/atsc" "$RUN/atsctl"
	check "$m: a second argument of connect (the port) has none" \
		offers "$m" "-S $RUN/none.sock connect 10.0.0.1 "
done

# The user's shell options: failglob (an error for every glob that
# matches nothing: no /sys/class/infiniband here), set -u with nullglob
# (an empty list of matches), noglob. Silence and the fallbacks.
for m in $MODES; do
	for o in "shopt -s failglob" "set -u; shopt -s nullglob" "set -f"; do
		SHELL_OPTS=$o check "$m, $o: --ca: nothing, silently" silent "$m" "--ca "
		SHELL_OPTS=$o check "$m, $o: --port: 1" offers "$m" "--port " 1
		SHELL_OPTS=$o check "$m, $o: --pkey: nothing, silently" silent "$m" "dump --pkey "
		SHELL_OPTS=$o check "$m, $o: addresses: nothing, silently" \
			silent "$m" "-S $RUN/none.sock ping "
		SHELL_OPTS=$o check "$m, $o: commands" offers "$m" "re" register release resolve resync reverse
	done
done

# gid6 SYSFS WANT: a GID as sysfs gives it is offered as atsctl prints it.
gid6() {
	local got
	got=$(bash --norc --noprofile -c '. "$1"; _atsctl_gid6 "$2"' _ "$COMP" "$1")
	[ "$got" = "$2" ] || { echo "$1: got '$got', wanted '$2'"; return 1; }
}
gids() {
	gid6 fe80:0000:0000:0000:0002:c903:000a:b1c2 fe80::2:c903:a:b1c2 &&
		gid6 2001:0db8:0000:0001:0000:0000:0000:0001 2001:db8:0:1::1 &&
		gid6 2001:0db8:0000:0000:0001:0000:0000:0001 2001:db8::1:0:0:1 &&
		gid6 fe80:0000:0000:0000:0000:0000:0000:0000 fe80:: &&
		gid6 0000:0000:0000:0000:0000:0000:0000:0000 ""
}
check "sysfs GIDs as atsctl prints them (RFC 5952); none for a zero GID" gids

# No atsd: nothing offered, at once, silently.
for m in $MODES; do
	check_rc "$m: no atsd: no address, no error" 0 '^$' comp "$m" "-S $RUN/none.sock resolve 10.0."
done
# An atsd that takes the request and never answers: one bounded wait.
"$PYTHON3" -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
time.sleep(120)' "$RUN/mute.sock" &
T_PIDS="$T_PIDS $!"
wait_for "the mute socket" 10 test -S "$RUN/mute.sock" || exit 1
for m in $MODES; do
	t=$(ms comp "$m" "-S $RUN/mute.sock resolve 10.0.")
	check "$m: a mute atsd costs at most ~1 s ($t ms)" test "$t" -lt 3000
	check_rc "$m: a mute atsd: nothing offered" 0 '^$' comp "$m" "-S $RUN/mute.sock ping "
done

# A hostile "atsd" (any socket -S names) answering status and connections
# with words the shell would expand: compgen -W expands its word list, so
# an address must never reach it; only address-like words are offered.
# shellcheck disable=SC2016 # the $(...) are the hostile answers
"$PYTHON3" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(8)
pw = sys.argv[2]
while True:
    c, _ = s.accept()
    req = c.makefile().readline().split()
    if req and req[0] == "status":
        c.sendall(("OK 3\n0x10000ce100415454 fe80::1 0xffff 0 $(>%s) registered\n"
                   "0x10000ce100415454 `>%s.2` 0xffff 0 10.9.9.9 registered\n"
                   "0x10000ce100415454 fe80::2 0xffff 0 ~root registered\n" % (pw, pw)).encode())
    else:
        c.sendall(("OK 1\n0x00000001 active established sid=0x1 local=fe80::1/lid=1/qpn=0x000001 "
                   "remote=$(>%s.3)/lid=2/qpn=0x000002 ip=10.0.0.1:1->$(>%s.4) pkey=0xffff\n"
                   % (pw, pw)).encode())
    c.close()' "$RUN/evil.sock" "$RUN/pwned" &
T_PIDS="$T_PIDS $!"
wait_for "the hostile socket" 10 test -S "$RUN/evil.sock" || exit 1
for m in $MODES; do
	check "$m: a hostile atsd's addresses: only the address-like ones" \
		offers "$m" "-S $RUN/evil.sock ping " 10.9.9.9 fe80::1 fe80::2
	check "$m: ... and nothing they hold ran" sh -c "! ls '$RUN'/pwned*"
	check "$m: ... nor a tilde expanded" silent "$m" "-S $RUN/evil.sock resolve /"
done

# compw MODE WORD...: completing after the WORDs as typed (quotes and
# backslashes kept, as COMP_WORDS has them), then a blank.
compw() {
	timeout 10 bash --norc --noprofile -c '
		[ "$1" = bc ] && . "$2"
		. "$3"
		COMP_WORDS=("${@:4}" "")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}" COMP_POINT=${#COMP_LINE}
		_atsctl atsctl "" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$1" "$BC" "$COMP" "$RUN/atsctl" "${@:2}" | sort
}
# A socket path with a blank, quoted or escaped as typed.
mkdir "$RUN/sp ace"
ln -s "$RUN/evil.sock" "$RUN/sp ace/s"
spaced() {
	local got
	got=$(compw "$@" | sed '/^$/d' | tr '\n' ' ')
	[ "$got" = "10.9.9.9 fe80::1 fe80::2 " ] || { echo "$*: got '$got'"; return 1; }
}
for m in $MODES; do
	check "$m: -S \"a path with a blank\"" spaced "$m" -S "\"$RUN/sp ace/s\"" ping
	check "$m: -S 'a path with a blank'" spaced "$m" -S "'$RUN/sp ace/s'" ping
	check "$m: -S a\\ path\\ with\\ a\\ blank" spaced "$m" -S "$RUN/sp\\ ace/s" ping
	check "$m: --socket=\"a path with a blank\"" spaced "$m" "--socket=\"$RUN/sp ace/s\"" ping
done

# A real atsd on ibsim with 10.0.0.1 and 10.0.0.11 on host1.
host_ns h1
N1=$(ns h1)
fabric_up fabric4.net host1
ip -n "$N1" addr add 10.0.0.1/24 dev v0
ip -n "$N1" addr add 10.0.0.11/24 dev v0
agent_start host1 "verify_interval 2" "sm_poll_interval 1" "interface v0 netns $N1"
SOCK="$RUN/atsd-host1.sock"
wait_for "atsd to register 10.0.0.11" 20 sh -c "'$ATSCTL' -S '$SOCK' status | grep -q ' 10.0.0.11 .*registered'" ||
	exit 1
lookups() {
	agent host1 stats | awk '$1 == "sa_lookups" { print $2 }'
}
before=$(lookups)
: >"$RUN/calls"
for m in $MODES; do
	check "$m: resolve: atsd's addresses" offers "$m" "-S $SOCK resolve 10.0." 10.0.0.1 10.0.0.11
	check "$m: hold, --socket=PATH, options first" \
		offers "$m" "--socket=$SOCK hold --owner x 10.0.0.1" 10.0.0.1 10.0.0.11
	check "$m: connect after --service-id" offers "$m" "-S $SOCK connect --service-id 0x1 10.0.0.1" \
		10.0.0.1 10.0.0.11
	check "$m: reverse: atsd's GID" offers "$m" "-S $SOCK reverse " "$G1"
	check "$m: dump --gid: atsd's GID" offers "$m" "-S $SOCK dump --gid " "$G1"
	check "$m: ping: addresses and GIDs" offers "$m" "-S $SOCK ping " 10.0.0.1 10.0.0.11 "$G1"
	check "$m: a GID after its colons: the rest (readline keeps the prefix)" \
		offers "$m" "-S $SOCK primary ${G1%:*}:" "${G1##*:}"
done
check "the completion ran atsctl for its table, status and connections only" \
	sh -c "cat '$RUN/calls'; [ -s '$RUN/calls' ] && ! grep -Evx -- '--list-commands|-S [^ ]+ (status|connections)|--socket=[^ ]+ (status|connections)' '$RUN/calls'"
check "atsd asked the SA nothing for the completion ($before lookups)" \
	test -n "$before" -a "$(lookups)" = "$before"

finish
