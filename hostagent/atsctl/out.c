/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's shared output. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/ats.h"
#include "core/json.h"
#include "out.h"

int out_usage_err(const char *what, const char *arg, const char *why)
{
	fprintf(stderr, "atsctl: %s '%s': %s\n", what, arg, why);
	return CTL_EXIT_USAGE;
}

int out_not_found(const char *arg, const char *detail)
{
	char safe[256];

	fprintf(stderr, "atsctl: %s: not found%s%s\n", out_clean(arg, safe, sizeof(safe)),
		detail ? ": " : "", detail ? detail : "");
	return CTL_EXIT_NOTFOUND;
}

int out_sa_fail(const struct ctl *c, const char *what, int err)
{
	return out_sa_err(c, what, err, c->sa ? sa_client_last_status(c->sa) : 0,
			  c->sa ? sa_client_port(c->sa)->sm_lid : 0);
}

int out_sa_err(const struct ctl *c, const char *what, int err, uint16_t st, uint16_t sm_lid)
{
	if (st)
		fprintf(stderr, "atsctl: %s: SA status 0x%04x: %s\n", what, st,
			sa_status_str(st));
	else if (err == -ETIMEDOUT)
		fprintf(stderr, "atsctl: %s: no answer from the SA (SM LID %u) after %u attempt(s) of %u ms\n",
			what, sm_lid, c->sa_opts.retries + 1,
			c->sa_opts.timeout_ms ? c->sa_opts.timeout_ms : SA_CLIENT_TIMEOUT_MS_DEFAULT);
	else if (err == -ENETDOWN)
		fprintf(stderr, "atsctl: %s: port is not active or has no SM\n", what);
	else
		fprintf(stderr, "atsctl: %s: %s\n", what, strerror(-err));
	return err == -ENOENT ? CTL_EXIT_NOTFOUND : CTL_EXIT_SA;
}

void out_record_members(struct json *j, const struct sr_record *r)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	struct ats_ip have;

	json_hex64(j, "sid", r->id);
	json_str(j, "gid", ats_gid_format(r->gid, gid, sizeof(gid)));
	json_hex16(j, "pkey", r->pkey);
	json_u64(j, "lease", r->lease);
	if (ats_ip_decode(r->data8, &have, NULL))
		json_null(j, "ip");
	else
		json_str(j, "ip", ats_ip_format(&have, ip, sizeof(ip)));
	json_bool(j, "primary", r->id == ATS_SID_PRIMARY);
}

void out_records_open(struct json *j, const char *ip)
{
	json_init(j, stdout, 0);
	json_obj(j, NULL);
	if (ip)
		json_str(j, "ip", ip);
	json_arr(j, "records");
}

void out_records_close(struct json *j, int partial, int local)
{
	json_end(j);
	if (partial)
		json_bool(j, "partial", 1);
	if (local)
		json_bool(j, "local", 1);
	json_end(j);
	json_fini(j);
}

static void records_json(int partial, int local, const struct sr_record *r, size_t n)
{
	struct json j;
	size_t i;

	out_records_open(&j, NULL);
	for (i = 0; i < n; i++) {
		json_obj(&j, NULL);
		out_record_members(&j, &r[i]);
		if (local)
			json_bool(&j, "local", 1);
		json_end(&j);
	}
	out_records_close(&j, partial, local);
}

static const char *lease_text(uint32_t lease, char *buf, size_t len)
{
	if (lease == SR_LEASE_INFINITE)
		snprintf(buf, len, "infinite");
	else
		snprintf(buf, len, "%" PRIu32, lease);
	return buf;
}

int out_record_text(char *buf, size_t len, const struct sr_record *r)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN], lease[16];

	return snprintf(buf, len, "0x%016" PRIx64 " %s 0x%04x %s %s", r->id,
			ats_gid_format(r->gid, gid, sizeof(gid)), r->pkey,
			lease_text(r->lease, lease, sizeof(lease)),
			ats_data8_str(r->data8, ip, sizeof(ip)));
}

void out_records(int json, int partial, int local, const struct sr_record *r, size_t n)
{
	char gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN], lease[16];
	size_t i;

	if (json) {
		records_json(partial, local, r, n);
		return;
	}
	if (!n)
		return;
	printf("%-18s  %-26s  %-6s  %-10s  %s\n", "SID", "GID", "PKEY",
	       "LEASE", "IP");
	for (i = 0; i < n; i++) {
		lease_text(r[i].lease, lease, sizeof(lease));
		printf("0x%016" PRIx64 "  %-26s  0x%04x  %-10s  %s%s%s\n", r[i].id,
		       ats_gid_format(r[i].gid, gid, sizeof(gid)), r[i].pkey,
		       lease, ats_data8_str(r[i].data8, ip, sizeof(ip)),
		       r[i].id == ATS_SID_PRIMARY ? " (primary)" : "",
		       local ? " (local)" : "");
	}
}

/* Text of atsd's for a terminal: control bytes (an escape sequence from
 * whatever listens on the socket) as \xNN, as JSON escapes them; cut to
 * len. */
const char *out_clean(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return buf;
}
