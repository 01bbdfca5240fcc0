/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* This host's own records: what atsd registered (kept in the state file
 * across crashes, atsd(8) "Own records"), what others registered on our
 * GID, the addresses the SA refused, and the syncs that keep the SA equal
 * to the wanted addresses: when to run one, backoff after failures, the
 * periodic verify, and the deleting sync at shutdown. */
#ifndef IBATS_OWN_RECORDS_H
#define IBATS_OWN_RECORDS_H

#include <stddef.h>
#include <stdint.h>

#include "host/agent_conf.h"
#include "sa/sa_thread.h"
#include "main/sources.h"

/* What a full sync did (own_records_hooks.full_done). The pointers live as long
 * as the call. */
struct own_records_resync {
	size_t checked;                     /* addresses it compared with the SA */
	unsigned sets, deletes;
	const struct plan_refused *refused; /* refused by the SA in this sync */
	size_t nrefused;
	int err;                            /* 0, or the sync failed: errmsg */
	const char *errmsg;
};

/* What own_records tells the rest of atsd. */
struct own_records_hooks {
	void (*changed)(void);                       /* records were set or deleted */
	void (*port)(const struct mport_info *port); /* a sync read the port */
	void (*synced)(void);                        /* a sync succeeded (not at shutdown) */
	void (*stopped)(void);                       /* shutdown: the deleting sync is done */
	/* Full sync number seq ended (own_records_resync's ticket); may be NULL. */
	void (*full_done)(uint64_t seq, const struct own_records_resync *r);
};

/* conf and src stay the caller's. */
void own_records_init(struct sa_thread *saj, const struct agent_conf *conf,
		      struct sources *src, const struct own_records_hooks *hooks);
void own_records_fini(void);
/* Before own_records_init: read the state file written for gid (or note that
 * there is none). */
void own_records_state_start(const struct agent_conf *conf, const uint8_t *gid);

/* The first sync (full) and the verify period's start. */
void own_records_start(void);
/* Ask for a sync now (full: read the SA, not just verify ours). */
void own_records_request_sync(int full);
/* The port's SM changed or asked for reregistration: no backoff for the
 * next sync. */
void own_records_sm_changed(void);
/* atsctl resync: every refused address due at once and a full sync
 * (after the running one, if any). The number of the full sync whose
 * full_done answers it. */
uint64_t own_records_resync(void);
/* Retries, the periodic verify (1 when one went out) and refusals due. */
int own_records_timers(int64_t now);
/* The next deadline of own_records_timers. */
int64_t own_records_next_timer(void);
/* Shutdown: the deleting sync (after a running one); hooks->stopped when
 * it is done. KEEP (a restart, atsd(8) SIGNALS): no deleting sync; the
 * records stay in the SA and in the state file for the next atsd, and
 * hooks->stopped comes once a running sync is done. */
void own_records_shutdown(int keep);
/* After hooks->stopped: the records the shutdown deleted and those still
 * ours (kept, or not deleted); 0, or the deleting sync's error (the SA
 * did not answer: what is left stays listed in the state file). */
int own_records_exit_result(size_t *deleted, size_t *left);

/* Status of a wanted address. */
enum own_records_addr {
	OWN_RECORDS_REGISTERED,
	OWN_RECORDS_REFUSED,   /* *reason: the SA's status */
	OWN_RECORDS_OTHER,     /* carried by a record atsd did not make */
	OWN_RECORDS_UNSAVED,   /* not registered: the state file cannot list it
			* (own_records_state_error) */
	OWN_RECORDS_PENDING,
};
enum own_records_addr own_records_addr_state(const struct ats_ip *ip, uint16_t pkey, uint64_t *sid,
					     uint16_t *sa_status);
/* The SM's reason for a refused address, or NULL when it gave none. */
const char *own_records_refused_why(const struct ats_ip *ip, uint16_t pkey);
/* The records atsd owns. */
const struct plan_held_rec *own_records_list(size_t *n);
/* The primary address of the default partition: 0 or -ENOENT. */
int own_records_primary(struct ats_ip *ip);

struct own_records_stats {
	uint64_t sa_queries, syncs, sync_failures, sets, deletes;
};
void own_records_stats(struct own_records_stats *st);
/* The last write of the state file: 0 or -errno. */
int own_records_state_error(void);

#endif
