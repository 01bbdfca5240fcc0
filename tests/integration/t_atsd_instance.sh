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
check_rc "--instance needs CA:PORT" 2 "--instance 'ibsim0': not CA:PORT" "$ATSD" --instance ibsim0
printf 'ca mlx5_9\n' >"$RUN/other.conf"
check_rc "a config naming another CA is refused" 1 \
	"ca mlx5_9 port 1 is not this instance's port \\(--instance ibsim0:1\\)" \
	"$ATSD" -f --instance ibsim0:1 -c "$RUN/other.conf"

fabric_start fabric4.net
AGENT_ARGS="--instance ibsim0:1" agent_start host1 "address 10.0.0.1 primary" "ibsim yes"
check_out "atsd --instance ibsim0:1 serves that port" "atsd .* on ibsim0 port 1, GID " \
	cat "$RUN/atsd-host1.log"
check "... and registers" wait_for "10.0.0.1" 10 sh -c \
	"'$ATSCTL' -S '$RUN/atsd-host1.sock' status | grep -Eq '10\\.0\\.0\\.1 +registered'"
finish
