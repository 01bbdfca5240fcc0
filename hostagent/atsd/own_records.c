/* What atsd knows of its own records besides the list it owns: the state
 * file that survives a crash (atsd(8), "Own records") and the addresses
 * the SA refused (retried after refused_retry). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mono.h"
#include "agent.h"
#include "agent_state.h"
#include "log.h"

const struct plan_refused *agent_refused(const struct agent *a, const struct ats_ip *ip,
					 uint16_t pkey)
{
	size_t i;

	for (i = 0; i < a->nrefused; i++)
		if (a->refused[i].pkey == pkey && ats_ip_equal(&a->refused[i].ip, ip))
			return &a->refused[i];
	return NULL;
}

/* Refusals of this sync in; addresses now registered out. */
void own_refused_update(struct agent *a, struct saj *j)
{
	int64_t retry = mono_ms() + (int64_t)a->conf.refused_retry * 1000;
	size_t i, k, n = 0;

	for (i = 0; i < a->nrefused; i++) {
		int reg = 0;

		for (k = 0; k < a->nowned && !reg; k++)
			reg = a->owned[k].pkey == a->refused[i].pkey &&
			      ats_ip_equal(&a->owned[k].ip, &a->refused[i].ip);
		for (k = 0; k < j->nrefused && !reg; k++)
			reg = j->refused[k].pkey == a->refused[i].pkey &&
			      ats_ip_equal(&j->refused[k].ip, &a->refused[i].ip);
		/* Due ones were in this sync's want: refused again (below) or not. */
		if (!reg && a->refused[i].retry_at > mono_ms())
			a->refused[n++] = a->refused[i];
	}
	a->nrefused = n;
	for (k = 0; k < j->nrefused; k++) {
		struct plan_refused *v = realloc(a->refused, (a->nrefused + 1) * sizeof(*v));

		if (!v) {
			log_err("out of memory for a refused address");
			return;
		}
		a->refused = v;
		v[a->nrefused] = j->refused[k];
		v[a->nrefused].retry_at = retry;
		a->nrefused++;
	}
	if (j->nrefused)
		log_warn("%zu address(es) refused by the SA; the rest are registered; retrying them in %u s or when the addresses change",
			 j->nrefused, a->conf.refused_retry);
}

void own_state_done(struct agent *a, struct saj *j)
{
	if (j->state_err && j->state_err != a->state_err)
		log_warn("state file %s: %s; after a crash atsd will not know its own records",
			 a->conf.state_file, strerror(-j->state_err));
	else if (!j->state_err && a->state_err && j->state_saved)
		log_info("state file %s written again", a->conf.state_file);
	if (j->state_err || j->state_saved)
		a->state_err = j->state_err;
}

/* What this atsd registered before it was stopped or killed. */
void own_state_start(struct agent *a)
{
	char dir[sizeof(a->conf.state_file)], *slash;
	const char *why;
	int ret;

	snprintf(dir, sizeof(dir), "%s", a->conf.state_file);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			log_debug("cannot create %s: %s", dir, strerror(errno));
	}
	ret = astate_load(a->conf.state_file, a->port.gid, &a->owned, &a->nowned, &why);
	if (!ret) {
		a->owned_from_state = 1;
		log_info("state file %s: %zu record(s) registered by atsd before", a->conf.state_file,
			 a->nowned);
		return;
	}
	/* Without a list, only records carrying an address we want are taken
	 * as ours; every other record of this GID is left alone. */
	a->adopt_wanted = 1;
	if (ret == -ENOENT)
		log_info("no state file %s: first start", a->conf.state_file);
	else if (ret == -EBADMSG)
		log_warn("state file %s ignored: %s", a->conf.state_file, why);
	else
		log_warn("state file %s: %s", a->conf.state_file, strerror(-ret));
}
