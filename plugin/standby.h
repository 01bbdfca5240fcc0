/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The standby SM's side of replication (replica.h): on the responder
 * thread, pulls of the master's records into a copy (shadow.c); at a
 * takeover, the copy installed in OpenSM's list when it provably holds
 * every change the master committed. */
#ifndef IBATS_STANDBY_H
#define IBATS_STANDBY_H

#include <stdint.h>

#include "core/mport.h"
#include "core/state_file.h"

/* How long a master holds an up-to-date standby's pull. */
#define STANDBY_HOLD_MS 200

/* changed(): the figures of standby_state() moved. -ENOMEM. */
int standby_init(void (*changed)(void));
void standby_fini(void);
/* The responder's port and replication agent, before its thread runs. */
void standby_attach(struct mport *port, int agent);

/* The responder thread, while this SM is STANDBY: one pull (or one
 * window of snapshot records); nonzero when it was answered. */
int standby_pull(void);
/* The responder thread as it ends: tell the master this standby stops. */
void standby_leaving(void);

/* At a sweep that may make this SM master (no lock held): install the
 * copy if this SM was a standby until now. */
void standby_takeover(void);

/* The standby's figures (applied, in_sync, lag, snapshots, installed,
 * takeovers, epoch) into out; the rest untouched. */
void standby_state(struct state_file_repl *out);

#endif
