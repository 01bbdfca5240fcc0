/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* This host's own records and the syncs that keep them (own_records.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/agent_state.h"
#include "core/log.h"
#include "model/nosa.h"
#include "core/mono.h"
#include "own_records.h"

static struct {
	struct sa_thread *saj;
	const struct agent_conf *conf;
	struct sources *src;
	struct own_records_hooks hooks;
	struct plan_held_rec *owned;      /* what atsd registered */
	size_t nowned;
	struct plan_held_rec *foreign;    /* others' records on our GID (last full read) */
	size_t nforeign;
	struct plan_refused *refused; /* addresses the SA refused */
	size_t nrefused;
	struct plan_held_rec *filed;      /* what the state file lists */
	size_t nfiled;
	struct plan_held_rec *unsaved;    /* not registered: the state file could
				      * not list them (last sync) */
	size_t nunsaved;
	unsigned unsaved_tries;      /* syncs in a row that held some back */
	int64_t unsaved_retry;
	int owned_from_state;        /* owned is the state file's list, unconfirmed */
	int adopt_wanted;            /* no usable state file: adopt wanted addresses */
	int state_err;               /* last state file write error, logged once */
	int running, again, full_next;
	uint64_t full_seq;           /* full syncs submitted */
	uint64_t running_seq;        /* the running sync's, 0 if not full */
	unsigned failures;           /* consecutive failed syncs */
	int64_t next_verify, next_retry;
	int terminating;
	int keep;                    /* shutdown keeping the records (restart) */
	int delete_sent;             /* shutdown: the deleting sync went out */
	int shutdown_err;            /* the deleting sync failed: -errno */
	uint64_t deletes_before;     /* st.deletes when the shutdown began */
	struct own_records_stats st;
} own;

void own_records_init(struct sa_thread *saj, const struct agent_conf *conf,
		      struct sources *src, const struct own_records_hooks *hooks)
{
	own.saj = saj;
	own.conf = conf;
	own.src = src;
	own.hooks = *hooks;
}

void own_records_fini(void)
{
	free(own.owned);
	free(own.foreign);
	free(own.refused);
	free(own.filed);
	free(own.unsaved);
	memset(&own, 0, sizeof(own));
}

/* Refusals of this sync in; addresses now registered out. */
static void refused_update(const struct saj_sync *s)
{
	int64_t retry = mono_ms() + (int64_t)own.conf->refused_retry * 1000;
	size_t i, k, n = 0;

	for (i = 0; i < own.nrefused; i++) {
		int reg = 0;

		for (k = 0; k < own.nowned && !reg; k++)
			reg = own.owned[k].pkey == own.refused[i].pkey &&
			      ats_ip_equal(&own.owned[k].ip, &own.refused[i].ip);
		for (k = 0; k < s->nrefused && !reg; k++)
			reg = s->refused[k].pkey == own.refused[i].pkey &&
			      ats_ip_equal(&s->refused[k].ip, &own.refused[i].ip);
		/* Due ones were in this sync's want: refused again (below) or not. */
		if (!reg && own.refused[i].retry_at > mono_ms())
			own.refused[n++] = own.refused[i];
	}
	own.nrefused = n;
	for (k = 0; k < s->nrefused; k++) {
		struct plan_refused *v = realloc(own.refused, (own.nrefused + 1) * sizeof(*v));

		if (!v) {
			log_err("out of memory for a refused address");
			return;
		}
		own.refused = v;
		v[own.nrefused] = s->refused[k];
		v[own.nrefused].retry_at = retry;
		own.nrefused++;
	}
	if (s->nrefused)
		log_warn("%zu address(es) refused by the SA; the rest are registered; retrying them in %u s or when the addresses change",
			 s->nrefused, own.conf->refused_retry);
}

/* The state file's outcome: its list, the addresses held back, when to
 * try again. A new address is registered only once the file lists it
 * (sync_exec.c, agent_state_gate), so a write that fails keeps it off the SA,
 * and a sync soon after writes again: 1 s, doubling up to backoff_max. */
static void state_done(struct saj_sync *s)
{
	unsigned shift;
	int64_t wait, cap = (int64_t)own.conf->backoff_max * 1000;

	if (s->state_err && s->state_err != own.state_err)
		log_warn("state file %s: %s; new addresses are not registered until it can be written",
			 own.conf->state_file, strerror(-s->state_err));
	else if (!s->state_err && own.state_err && s->state_saved)
		log_info("state file %s written again", own.conf->state_file);
	if (s->state_err || s->state_saved)
		own.state_err = s->state_err;
	if (s->state_saved) {
		free(own.filed);
		own.filed = s->filed;
		own.nfiled = s->nfiled;
		s->filed = NULL;
	}
	if (s->nunsaved && !own.nunsaved)
		log_warn("%zu address(es) not registered: state file %s cannot list them",
			 s->nunsaved, own.conf->state_file);
	free(own.unsaved);
	own.unsaved = s->unsaved;
	own.nunsaved = s->nunsaved;
	s->unsaved = NULL;
	if (!own.nunsaved) {
		own.unsaved_tries = 0;
		return;
	}
	shift = own.unsaved_tries < 16 ? own.unsaved_tries : 16;
	own.unsaved_tries++;
	wait = (int64_t)1000 << shift;
	own.unsaved_retry = mono_ms() + (wait < cap ? wait : cap);
}

/* What this atsd registered before it was stopped or killed. */
void own_records_state_start(const struct agent_conf *conf, const uint8_t *gid)
{
	char dir[sizeof(conf->state_file)], *slash;
	const char *why;
	int ret;

	snprintf(dir, sizeof(dir), "%s", conf->state_file);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			log_debug("cannot create %s: %s", dir, strerror(errno));
	}
	ret = agent_state_load(conf->state_file, gid, &own.owned, &own.nowned, &why);
	if (!ret && own.nowned) {
		own.filed = malloc(own.nowned * sizeof(*own.filed));
		if (!own.filed) {
			free(own.owned);
			own.owned = NULL;
			own.nowned = 0;
			ret = -ENOMEM;
		} else {
			memcpy(own.filed, own.owned, own.nowned * sizeof(*own.filed));
			own.nfiled = own.nowned;
		}
	}
	if (!ret) {
		own.owned_from_state = 1;
		log_info("state file %s: %zu record(s) registered by atsd before", conf->state_file,
			 own.nowned);
		return;
	}
	/* Without a list, only records carrying an address we want are taken
	 * as ours; every other record of this GID is left alone. */
	own.adopt_wanted = 1;
	if (ret == -ENOENT)
		log_info("no state file %s: first start", conf->state_file);
	else if (ret == -EBADMSG)
		log_warn("state file %s ignored: %s", conf->state_file, why);
	else
		log_warn("state file %s: %s", conf->state_file, strerror(-ret));
}

static void sync_done(struct saj *j, void *ctx);

static void submit_sync(int full, int want_nothing)
{
	struct saj *j = saj_new(SAJ_SYNC, sync_done, NULL);
	struct saj_sync *s;
	int ret = 0;

	if (!j) {
		log_err("out of memory for a sync");
		return;
	}
	s = &j->u.sync;
	s->full = full;
	s->lease = own.conf->lease;
	/* A change of the address set retries every refused address now. */
	if (sources_changed(own.src) && own.nrefused) {
		free(own.refused);
		own.refused = NULL;
		own.nrefused = 0;
	}
	if (!want_nothing)
		ret = sources_want(own.src, &s->want, &s->nwant);
	if (!ret)
		plan_want_drop_refused(s->want, &s->nwant, own.refused, own.nrefused, mono_ms());
	if (!ret && own.nforeign) {
		s->foreign = malloc(own.nforeign * sizeof(*s->foreign));
		if (s->foreign) {
			memcpy(s->foreign, own.foreign, own.nforeign * sizeof(*s->foreign));
			s->nforeign = own.nforeign;
		} else {
			ret = -ENOMEM;
		}
	}
	s->adopt_wanted = own.adopt_wanted;
	s->owned_from_state = own.owned_from_state;
	snprintf(s->state_path, sizeof(s->state_path), "%s", own.conf->state_file);
	if (!ret && own.nowned) {
		s->owned = malloc(own.nowned * sizeof(*s->owned));
		if (s->owned) {
			memcpy(s->owned, own.owned, own.nowned * sizeof(*s->owned));
			s->nowned = own.nowned;
		} else {
			ret = -ENOMEM;
		}
	}
	if (!ret && own.nfiled) {
		s->filed = malloc(own.nfiled * sizeof(*s->filed));
		if (s->filed) {
			memcpy(s->filed, own.filed, own.nfiled * sizeof(*s->filed));
			s->nfiled = own.nfiled;
		} else {
			ret = -ENOMEM;
		}
	}
	if (ret) {
		log_err("cannot prepare a sync: %s", strerror(-ret));
		saj_free(j);
		return;
	}
	sources_seen(own.src);
	own.running = 1;
	own.running_seq = full ? ++own.full_seq : 0;
	sa_thread_submit(own.saj, j);
}

void own_records_sm_changed(void)
{
	/* The backoff waited out the SM that is gone (or that asked us to
	 * register again): the new one is asked at once. */
	own.next_retry = 0;
}

void own_records_request_sync(int full)
{
	if (own.terminating)
		return;
	if (own.running) {
		own.again = 1;
		own.full_next |= full;
		return;
	}
	/* While backing off, only the retry timer starts the next one. */
	if (own.failures && mono_ms() < own.next_retry) {
		own.full_next |= full;
		own.again = 1;
		return;
	}
	submit_sync(full || own.full_next, 0);
	own.full_next = 0;
	own.again = 0;
}

/* Exponential backoff with +-25% jitter, so restarted SMs are not hit by
 * every host at the same moment. */
static int64_t backoff_ms(void)
{
	unsigned shift = own.failures > 16 ? 16 : own.failures;
	int64_t base = (int64_t)1000 << (shift ? shift - 1 : 0);
	int64_t cap = (int64_t)own.conf->backoff_max * 1000;

	if (base > cap)
		base = cap;
	return base * 3 / 4 + (int64_t)(random() % (base / 2 + 1));
}

/* At shutdown: the deleting sync, then the caller's next step. A keeping
 * shutdown sends none: the state file already lists every record of
 * ours the SA may hold (sync_exec.c writes it before each Set). */
static void shutdown_step(void)
{
	if (!own.delete_sent && !own.keep) {
		own.delete_sent = 1;
		submit_sync(0, 1);
	} else {
		own.hooks.stopped();
	}
}

/* A full sync's outcome, for those waiting on a resync. */
static void full_done(const struct saj *j, uint64_t seq)
{
	const struct saj_sync *s = &j->u.sync;
	struct own_records_resync r = {
		.checked = s->nwant, .sets = s->sets, .deletes = s->deletes,
		.refused = s->refused, .nrefused = s->nrefused,
		.err = j->err, .errmsg = j->errmsg,
	};

	if (seq && own.hooks.full_done)
		own.hooks.full_done(seq, &r);
}

static void sync_done(struct saj *j, void *ctx)
{
	struct saj_sync *s = &j->u.sync;
	uint64_t seq = own.running_seq;

	(void)ctx;
	own.running = 0;
	own.running_seq = 0;
	state_done(s);
	if (s->full && (!j->err || s->result)) {
		free(own.foreign);
		own.foreign = s->foreign;
		own.nforeign = s->nforeign;
		s->foreign = NULL;
		if (s->nforeign && !j->err)
			log_debug("%zu record(s) of this GID are not atsd's: left alone", s->nforeign);
	}
	own.st.sa_queries += j->queries;
	own.st.sets += s->sets;
	own.st.deletes += s->deletes;
	if (!j->err || s->result) {
		/* Even a failed sync knows what it changed before failing. */
		free(own.owned);
		own.owned = s->result;
		own.nowned = s->nresult;
		s->result = NULL;
	}
	refused_update(s);
	if (s->full && !j->err) {
		own.owned_from_state = 0;
		if (s->state_saved)
			own.adopt_wanted = 0;
	}
	if (s->sets || s->deletes)
		own.hooks.changed();
	if (j->err) {
		int64_t wait;

		own.failures++;
		own.st.sync_failures++;
		wait = backoff_ms();
		own.next_retry = mono_ms() + wait;
		own.full_next = 1;
		own.again = 1;
		if (nosa_applies(j->err) || own.failures == 1)
			log_warn("SA sync failed: %s; retrying in %" PRId64 " ms",
				 j->errmsg, wait);
		full_done(j, seq);
		if (own.terminating) {
			if (own.delete_sent)
				own.shutdown_err = j->err;
			shutdown_step();
		}
		return;
	}
	own.st.syncs++;
	if (s->adopted)
		log_info("adopted %u record(s) of this port already in the SA (%s)", s->adopted,
			 s->owned_from_state ? "listed in the state file" : "no state file: carrying wanted addresses");
	if (own.failures)
		log_info("SA sync succeeded after %u failure(s)", own.failures);
	own.failures = 0;
	own.hooks.port(&j->port);
	full_done(j, seq);
	if (own.terminating) {
		shutdown_step();
		return;
	}
	own.hooks.synced();
	own.next_verify = mono_ms() + (int64_t)own.conf->verify_interval * 1000;
	if (own.again || sources_changed(own.src)) {
		int full = own.full_next;

		own.again = 0;
		own.full_next = 0;
		own_records_request_sync(full);
	}
}


void own_records_start(void)
{
	own_records_request_sync(1);
	own.next_verify = mono_ms() + (int64_t)own.conf->verify_interval * 1000;
}

void own_records_shutdown(int keep)
{
	own.terminating = 1;
	own.keep = keep;
	own.deletes_before = own.st.deletes;
	/* A running sync finishes first (sync_done). */
	if (!own.running)
		shutdown_step();
}

uint64_t own_records_resync(void)
{
	size_t i;

	/* Refused addresses are due now: in this sync's want. */
	for (i = 0; i < own.nrefused; i++)
		own.refused[i].retry_at = 0;
	own_records_request_sync(1);
	/* Submitted now, or queued behind the running one (or a backoff). */
	return own.again ? own.full_seq + 1 : own.full_seq;
}

int own_records_timers(int64_t now)
{
	int verify = 0;
	size_t i;

	if (own.failures && now >= own.next_retry && !own.running) {
		submit_sync(1, 0);
		own.again = 0;
		own.full_next = 0;
	}
	if (!own.failures && now >= own.next_verify && !own.running) {
		own.next_verify = now + (int64_t)own.conf->verify_interval * 1000;
		own_records_request_sync(0);
		verify = 1;
	}
	for (i = 0; i < own.nrefused; i++)
		if (now >= own.refused[i].retry_at) {
			own_records_request_sync(0);
			break;
		}
	if (own.nunsaved && now >= own.unsaved_retry && !own.running)
		own_records_request_sync(0);
	return verify;
}

int64_t own_records_next_timer(void)
{
	int64_t t = own.failures ? own.next_retry : own.next_verify;
	size_t i;

	for (i = 0; i < own.nrefused; i++)
		if (own.refused[i].retry_at < t)
			t = own.refused[i].retry_at;
	if (own.nunsaved && own.unsaved_retry < t)
		t = own.unsaved_retry;
	return t;
}

const char *own_records_refused_why(const struct ats_ip *ip, uint16_t pkey)
{
	size_t k;

	for (k = 0; k < own.nrefused; k++)
		if (own.refused[k].pkey == pkey && ats_ip_equal(&own.refused[k].ip, ip))
			return own.refused[k].why[0] ? own.refused[k].why : NULL;
	return NULL;
}

enum own_records_addr own_records_addr_state(const struct ats_ip *ip, uint16_t pkey, uint64_t *sid,
					     uint16_t *sa_status)
{
	size_t k;

	*sa_status = 0;
	for (k = 0; k < own.nowned; k++)
		if (own.owned[k].pkey == pkey && ats_ip_equal(&own.owned[k].ip, ip)) {
			*sid = own.owned[k].sid;
			return OWN_RECORDS_REGISTERED;
		}
	for (k = 0; k < own.nrefused; k++)
		if (own.refused[k].pkey == pkey && ats_ip_equal(&own.refused[k].ip, ip)) {
			*sid = own.refused[k].sid;
			*sa_status = own.refused[k].sa_status;
			return OWN_RECORDS_REFUSED;
		}
	for (k = 0; k < own.nunsaved; k++)
		if (own.unsaved[k].pkey == pkey && ats_ip_equal(&own.unsaved[k].ip, ip)) {
			*sid = 0;
			return OWN_RECORDS_UNSAVED;
		}
	for (k = 0; k < own.nforeign; k++)
		if (own.foreign[k].pkey == pkey && ats_ip_equal(&own.foreign[k].ip, ip)) {
			*sid = own.foreign[k].sid;
			return OWN_RECORDS_OTHER;
		}
	*sid = 0;
	return OWN_RECORDS_PENDING;
}

const struct plan_held_rec *own_records_list(size_t *n)
{
	*n = own.nowned;
	return own.owned;
}

int own_records_primary(struct ats_ip *ip)
{
	size_t i;

	for (i = 0; i < own.nowned; i++)
		if (own.owned[i].sid == ATS_SID_PRIMARY && own.owned[i].pkey == ATS_PKEY_DEFAULT) {
			*ip = own.owned[i].ip;
			return 0;
		}
	return -ENOENT;
}

void own_records_stats(struct own_records_stats *st)
{
	*st = own.st;
}

int own_records_exit_result(size_t *deleted, size_t *left)
{
	*deleted = (size_t)(own.st.deletes - own.deletes_before);
	*left = own.nowned;
	return own.shutdown_err;
}

int own_records_state_error(void)
{
	return own.state_err;
}
