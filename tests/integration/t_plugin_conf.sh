# A config error stops the plugin's load with file:line; OpenSM runs on
# without it, so ATS requests are no longer policed.
. "$top_srcdir/tests/integration/harness.sh"

printf '# osmats\nlease_min 10\nno_such_key yes\n' >"$RUN/osmats.conf"
fabric_start fabric4.net
check_out "the error names the file, line and key" \
	"ERR 7A20: $RUN/osmats.conf:3: unknown key 'no_such_key'" cat "$RUN/osm.log"
check_out "the plugin is not loaded" "ERR 7A23: osmats not loaded: fix $RUN/osmats.conf" \
	cat "$RUN/osm.log"
check "OpenSM itself runs: the SA answers" sa_answers host2
check_out "unpoliced: a record outside the rules goes through" '^status 0x0000$' \
	srtool host1 --sid 0x10000CE100415553 --ip 10.1.0.1 set
finish
