#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ats.h"
#include "json.h"
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

static void put_counters(struct json *j, const char *name, const uint64_t *v)
{
	unsigned r;

	json_obj(j, name);
	for (r = 1; r < POL_NRULES; r++)
		json_u64(j, pol_rule_name((enum pol_rule)r), v[r]);
	json_end(j);
}

int state_write(const char *path, const struct state_info *info,
		const struct state_summary *sum, const struct state_rec *recs, size_t n,
		const struct state_counters *cnt, const struct state_index *idx)
{
	char tmp[600], gid[ATS_IP_STRLEN], ip[ATS_IP_STRLEN];
	struct json j;
	FILE *f;
	size_t i;
	int ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	/* A member of the document or an entry of its lists a line, for
	 * people and for grep. */
	json_init(&j, f, 1);
	json_obj(&j, NULL);
	json_u64(&j, "version", 2);
	json_fmt(&j, "plugin", "osmats %s", IBATS_VERSION);
	json_str(&j, "opensm", info->opensm);
	json_i64(&j, "time", info->time);
	json_str(&j, "sm_state", info->sm_state);
	json_obj(&j, "counters");
	json_u64(&j, "accepted", cnt->accepted);
	put_counters(&j, "rejected", cnt->rejected);
	put_counters(&j, "warned", cnt->warned);
	json_u64(&j, "clamped", cnt->clamped);
	json_u64(&j, "flushed", cnt->flushed);
	json_end(&j);
	json_obj(&j, "index");
	json_u64(&j, "records", idx->records);
	json_u64(&j, "bytes", idx->bytes);
	json_u64(&j, "rebuilds", idx->rebuilds);
	json_u64(&j, "gets_indexed", idx->gets_indexed);
	json_u64(&j, "gets_fallback", idx->gets_fallback);
	json_u64(&j, "get_avg_ns", idx->gets_indexed ? idx->get_ns / idx->gets_indexed : 0);
	json_u64(&j, "sets", idx->sets);
	json_u64(&j, "set_avg_ns", idx->sets ? idx->set_ns / idx->sets : 0);
	json_end(&j);
	json_obj(&j, "services");
	json_u64(&j, "ats", sum->ats);
	json_u64(&j, "other", sum->other);
	json_i64(&j, "scanned", sum->scanned);
	json_end(&j);
	json_arr(&j, "partitions");
	for (i = 0; i < sum->npkeys; i++) {
		json_obj(&j, NULL);
		json_hex16(&j, "pkey", sum->pkeys[i].pkey);
		json_u64(&j, "ats_records", sum->pkeys[i].n);
		json_end(&j);
	}
	json_end(&j);
	json_u64(&j, "partitions_more", sum->pkeys_more);
	json_u64(&j, "absent", sum->absent);
	json_arr(&j, "absent_records");
	for (i = 0; i < n; i++) {
		const struct state_rec *r = &recs[i];

		ats_data8_str(r->data8, ip, sizeof(ip));
		json_obj(&j, NULL);
		json_hex64(&j, "sid", r->sid);
		json_str(&j, "gid", ats_gid_format(r->gid, gid, sizeof(gid)));
		json_hex16(&j, "pkey", r->pkey);
		json_u64(&j, "lease", r->lease);
		json_str(&j, "ip", ip);
		json_bool(&j, "port_present", r->port_present);
		json_u64(&j, "missing_sweeps", r->missing_sweeps);
		json_end(&j);
	}
	json_end(&j);
	json_end(&j);
	ret = json_fini(&j);
	if (!ret && (fflush(f) || fsync(fileno(f))))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
