#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ats.h"
#include "state.h"

void state_rec_from(struct state_rec *s, const struct sr_record *r)
{
	memset(s, 0, sizeof(*s));
	s->sid = r->id;
	memcpy(s->gid, r->gid, 16);
	memcpy(s->data8, r->data8, 16);
	s->lease = r->lease;
	s->pkey = r->pkey;
}

void state_summary_add(struct state_summary *sum, const struct sr_record *rec, int is_ats)
{
	size_t i;

	if (!is_ats) {
		sum->other++;
		return;
	}
	sum->ats++;
	for (i = 0; i < sum->npkeys; i++)
		if (sum->pkeys[i].pkey == rec->pkey)
			break;
	if (i == sum->npkeys) {
		if (i == STATE_MAX_PKEYS) {
			sum->pkeys_more++;
			return;
		}
		sum->pkeys[i].pkey = rec->pkey;
		sum->pkeys[i].n = 0;
		sum->npkeys++;
	}
	sum->pkeys[i].n++;
}

static void put_counters(FILE *f, const char *name, const uint64_t *v)
{
	unsigned r;

	fprintf(f, "    \"%s\": {", name);
	for (r = 1; r < POL_NRULES; r++)
		fprintf(f, "%s\"%s\": %" PRIu64, r > 1 ? ", " : "",
			pol_rule_name((enum pol_rule)r), v[r]);
	fprintf(f, "}");
}

int state_write(const char *path, const struct state_info *info,
		const struct state_summary *sum, const struct state_rec *recs, size_t n,
		const struct state_counters *cnt, const struct state_index *idx)
{
	char tmp[600], gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	FILE *f;
	size_t i;
	int ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "{\n  \"version\": 2,\n  \"plugin\": \"osmats %s\",\n"
		"  \"opensm\": \"%s\",\n  \"time\": %lld,\n  \"sm_state\": \"%s\",\n",
		IBATS_VERSION, info->opensm, info->time, info->sm_state);
	fprintf(f, "  \"counters\": {\n    \"accepted\": %" PRIu64 ",\n", cnt->accepted);
	put_counters(f, "rejected", cnt->rejected);
	fprintf(f, ",\n");
	put_counters(f, "warned", cnt->warned);
	fprintf(f, ",\n    \"clamped\": %" PRIu64 ",\n    \"flushed\": %" PRIu64 "\n  },\n",
		cnt->clamped, cnt->flushed);
	fprintf(f, "  \"index\": {\"records\": %" PRIu64 ", \"bytes\": %" PRIu64
		", \"rebuilds\": %" PRIu64 ", \"gets_indexed\": %" PRIu64
		", \"gets_fallback\": %" PRIu64 ", \"get_avg_ns\": %" PRIu64
		", \"sets\": %" PRIu64 ", \"set_avg_ns\": %" PRIu64 "},\n",
		idx->records, idx->bytes, idx->rebuilds, idx->gets_indexed, idx->gets_fallback,
		idx->gets_indexed ? idx->get_ns / idx->gets_indexed : 0, idx->sets,
		idx->sets ? idx->set_ns / idx->sets : 0);
	fprintf(f, "  \"services\": {\"ats\": %" PRIu64 ", \"other\": %" PRIu64
		", \"scanned\": %lld},\n", sum->ats, sum->other, sum->scanned);
	/* One P_Key a line: atsctl audit --state reads them line by line. */
	fprintf(f, "  \"partitions\": [");
	for (i = 0; i < sum->npkeys; i++)
		fprintf(f, "%s\n    {\"pkey\": \"0x%04x\", \"ats_records\": %" PRIu64 "}",
			i ? "," : "", sum->pkeys[i].pkey, sum->pkeys[i].n);
	fprintf(f, "%s],\n  \"partitions_more\": %" PRIu64 ",\n", sum->npkeys ? "\n  " : "",
		sum->pkeys_more);
	fprintf(f, "  \"absent\": %" PRIu64 ",\n  \"absent_records\": [", sum->absent);
	for (i = 0; i < n; i++) {
		const struct state_rec *r = &recs[i];
		struct ats_ip a;

		if (ats_ip_decode(r->data8, &a, NULL))
			snprintf(ip, sizeof(ip), "-");
		else
			ats_ip_format(&a, ip, sizeof(ip));
		fprintf(f, "%s\n    {\"sid\": \"0x%016" PRIx64 "\", \"gid\": \"%s\", "
			"\"pkey\": \"0x%04x\", \"lease\": %" PRIu32 ", \"ip\": \"%s\", "
			"\"port_present\": %s, \"missing_sweeps\": %" PRIu32 "}",
			i ? "," : "", r->sid, ats_gid_format(r->gid, gid, sizeof(gid)),
			r->pkey, r->lease, ip, recs[i].port_present ? "true" : "false",
			recs[i].missing_sweeps);
	}
	fprintf(f, "%s]\n}\n", n ? "\n  " : "");
	if (fflush(f) || fsync(fileno(f)))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
