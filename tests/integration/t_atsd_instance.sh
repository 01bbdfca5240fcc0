# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# One atsd per CA port (atsd@.service, instance CA:PORT): --instance picks
# the port and gives the instance a socket and state file of its own; a
# config that names another port is refused. The generated units carry
# the configured paths.
. "$top_srcdir/tests/integration/harness.sh"

UNIT="$top_builddir/hostagent/atsd/atsd@.service"
check_absent "atsd@.service has no placeholder left" "@[a-z]+@" cat "$UNIT"
check_out "... runs atsd --instance %i with the instance's config" \
	"^ExecStart=/.*/atsd --foreground --instance %i --config /.*/ibats/atsd@%i\\.conf$" cat "$UNIT"
check_absent "atsd.service has no placeholder left" "@[a-z]+@" \
	cat "$top_builddir/hostagent/atsd/atsd.service"
for u in atsd.service atsd@.service; do
	check_out "$u keeps /run/ibats when it stops (the other units' sockets are there)" \
		"^RuntimeDirectoryPreserve=yes$" cat "$top_builddir/hostagent/atsd/$u"
done
check_rc "--instance needs CA:PORT" 2 "--instance 'ibsim0': not CA:PORT" "$ATSD" --instance ibsim0
check_rc "... in one spelling: no leading zero" 2 "--instance 'ibsim0:01': not CA:PORT" \
	"$ATSD" --instance ibsim0:01
check_rc "... nor hex" 2 "--instance 'ibsim0:0x1': not CA:PORT" "$ATSD" --instance ibsim0:0x1
check_rc "--instance with --port is refused" 2 "--instance ibsim0:1 names the CA and port" \
	"$ATSD" -f --instance ibsim0:1 --port 2
check_rc "--instance with --ca is refused" 2 "--instance ibsim0:1 names the CA and port" \
	"$ATSD" -f --instance ibsim0:1 -C mlx5_0
printf 'ca mlx5_9\n' >"$RUN/other.conf"
check_rc "a config naming another CA is refused" 1 \
	"ca mlx5_9 port 1 is not this instance's port \\(--instance ibsim0:1\\)" \
	"$ATSD" -f --instance ibsim0:1 -c "$RUN/other.conf"

fabric_start fabric4.net
AGENT_ARGS="--instance ibsim0:1" agent_start host1 "address 10.0.0.1 primary"
check_out "atsd --instance ibsim0:1 serves that port" "atsd .* on ibsim0 port 1, GID " \
	cat "$RUN/atsd-host1.log"
check "... and registers" wait_for "10.0.0.1" 10 sh -c \
	"'$ATSCTL' -S '$RUN/atsd-host1.sock' status | grep -Eq '10\\.0\\.0\\.1 +registered'"
echo "port 2" >>"$RUN/atsd-host1.conf"
kill -HUP "$(agent_pid host1)"
check "a SIGHUP with a config naming port 2 is refused" wait_for "the refusal" 10 \
	grep -q "port 2 is not this instance's port" "$RUN/atsd-host1.log"
check_out "... the previous settings stay" "atsd-host1.conf not reloaded: the previous settings stay in force" \
	cat "$RUN/atsd-host1.log"
check "... and atsd still serves" sh -c \
	"'$ATSCTL' -S '$RUN/atsd-host1.sock' status | grep -Eq '10\\.0\\.0\\.1 +registered'"
# A second atsd on the same port (atsd.service beside atsd@CA:PORT) would
# adopt the first one's records and delete them when it stops: the port
# lock refuses it, whatever its socket.
printf 'socket %s\nstate_file %s\naddress 10.0.0.9 primary\n' \
	"$RUN/second.sock" "$RUN/second.state" >"$RUN/second.conf"
check_rc "a second atsd on host1's port is refused" 1 \
	"another atsd serves port GUID 0x[0-9a-f]{16} \\(it holds .*atsd-0x[0-9a-f]{16}\\.lock\\)" \
	on host1 "$ATSD" -f -c "$RUN/second.conf"
check "... and the first one's record is still in the SA" sh -c \
	"cd '$RUN/scratch' && SIM_HOST=host2 LD_PRELOAD='$SIM_PRELOAD' '$ATSCTL' -n resolve 10.0.0.1 >/dev/null"
finish
