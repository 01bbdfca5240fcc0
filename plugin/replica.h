/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SM-to-SM replication of the SA's ServiceRecords (doc/design.md,
 * "Standby SMs"). On the master: every change of the list is logged
 * (rlog.c) and a client's Set or Delete is answered only once every
 * in-sync standby has it. On a standby: the responder thread pulls the
 * master's log into a shadow (shadow.c), and the first sweep after this
 * SM leaves STANDBY installs the shadow into OpenSM's list, when the
 * standby can prove it holds everything the master committed. */
#ifndef IBATS_REPLICA_H
#define IBATS_REPLICA_H

#include "glue.h"

#include <stdint.h>

#include "core/osmats_conf.h"
#include "defer.h"
#include "responder.h"
#include "core/state_file.h"

/* From create(): on when the configuration asks for it and names a
 * usable replication_key_file (WRN 7A40, ERR 7A48 otherwise). changed() is
 * told whenever the figures of replica_state() moved (any thread, never
 * with a lock of ours held). -ENOMEM. */
int replica_init(const struct osmats_conf *c, void (*changed)(void));
void replica_fini(void);
/* The responder's extra class (served, answered only while on). */
const struct responder_ext *replica_ext(void);

/* Exclusive lock held, the list just changed: the change's sequence
 * number, 0 while not replicating; its epoch in *epoch (unless NULL). */
uint64_t replica_log_set(const uint8_t *rec, uint64_t *epoch);
uint64_t replica_log_delete(const uint8_t *rec, uint64_t *epoch);
/* Exclusive lock held, before a client's Set or Delete is made: a place
 * for its answer to the port at base LID lid (NULL while not
 * replicating). -EDQUOT when that port's share of the held answers is
 * taken (DEFER_PER_PORT), -ENOSPC when DEFER_MAX answers wait for the
 * standbys, -ENOMEM: refuse the request unmade. */
int replica_reserve(uint16_t lid, struct defer_slot **slot);
/* Lock released: hand change seq to the standbys' held pulls (lease
 * expiry, flushes: nobody waits for an answer). */
void replica_publish(uint64_t seq);
/* Lock released, a client's Set or Delete made change seq of epoch in
 * the place slot reserved: publish it and answer req with rec (SR_SIZE
 * wire bytes) once every in-sync standby has it — now when
 * none is waited for, else from the thread that sees their acks; never
 * waits (the Set thread serves IPoIB joins too). Unanswered when this
 * SM is no master by then: the client asks the new master. */
void replica_answer(struct defer_slot *slot, uint64_t epoch, uint64_t seq,
		    struct glue_sa_req *req, const uint8_t *rec);

/* At HEAVY_SWEEP_START, no lock held: a sweep that may make this SM
 * master installs the shadow (when it is a standby's, and whole) and
 * starts a new epoch. */
void replica_sweep_start(void);

void replica_state(struct state_file_repl *out);

#endif
