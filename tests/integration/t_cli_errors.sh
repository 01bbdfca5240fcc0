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
check_rc "atsd -V prints its version" 0 "^atsd [0-9]+\.[0-9]+" "$ATSD" -V
mkdir -m 0755 "$RUN/cc"
printf 'socket %s\nstate_file %s\naddress 10.0.0.1 primary\n' "$RUN/cc/atsd.sock" \
	"$RUN/cc/atsd.state" >"$RUN/cc/good.conf"
check_rc "atsd --check-config FILE: a good file, exit 0" 0 "^$RUN/cc/good\.conf: OK$" \
	"$ATSD" --check-config "$RUN/cc/good.conf"
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

# A fabric without an SM: the port never becomes active.
mkfifo "$RUN/ibsim.in"
sleep 1000000 >"$RUN/ibsim.in" &
T_PIDS="$T_PIDS $!"
(cd "$RUN" && exec "$IBSIM" -s "$TOPODIR/fabric4.net") <"$RUN/ibsim.in" >"$RUN/ibsim.log" 2>&1 &
T_PIDS="$T_PIDS $!"
wait_for "ibsim" 20 grep -q 'sim>' "$RUN/ibsim.log" || exit 1
check_rc "no SM: exit 3 with the reason" 3 "port is not active or has no SM" \
	atsctl host1 resolve 10.0.0.1
finish
