/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Answers to clients' ServiceRecord Sets and Deletes held until every
 * in-sync standby SM has the change (doc/design.md, "Commit"). OpenSM
 * runs every SA Set — ServiceRecords, but also MCMemberRecord joins and
 * InformInfo — on one thread: that thread only queues the answer here
 * and goes on; whichever thread learns that the standbys have the
 * change (an ack on the responder thread, the tick that drops a standby
 * that acks nothing) sends it. Answers leave in the order of their
 * changes. A place in the queue is taken before the change is made, so
 * a change is never made that could not be held. Its own mutexes; never
 * held while taking osm->lock. */
#ifndef IBATS_DEFER_H
#define IBATS_DEFER_H

#include "glue.h"

#include <stddef.h>
#include <stdint.h>

/* Held answers at most: beyond it Sets are refused before they are made
 * (the client asks again) rather than OpenSM's memory grown. */
#define DEFER_MAX 8192
/* Held answers of one requesting port (its base LID) at most: a port
 * that floods is refused alone, and it takes sixteen of them to fill
 * the queue for everyone (issue 35: one host's flood held all 8192). */
#define DEFER_PER_PORT (DEFER_MAX / 16)
/* Base LIDs counted one by one: the unicast range. */
#define DEFER_LIDS 0xC000u

struct defer_slot;

void defer_init(void);
/* Every held answer forgotten, none sent. */
void defer_fini(void);

/* A place for one answer to the port at base LID lid: -EDQUOT when
 * DEFER_PER_PORT of its answers are held or taken, -ENOSPC when
 * DEFER_MAX are, -ENOMEM. */
int defer_reserve(uint16_t lid, struct defer_slot **out);
/* Give a place back unused (NULL: nothing). */
void defer_cancel(struct defer_slot *s);
/* Hold in place s the answer rec (SR_SIZE wire bytes) to req until
 * change seq of epoch is committed. */
void defer_hold(struct defer_slot *s, uint64_t epoch, uint64_t seq,
		const struct glue_sa_req *req, const uint8_t *rec);
/* Send the held answers of epoch's changes up to seq, oldest first, and
 * forget those of other epochs unsent (their clients asked a master
 * since); with send 0 (this SM is no master any more: the new one may
 * lack the change, the client asks it again) forget them all unsent.
 * Returns how many left the queue. */
size_t defer_release(uint64_t epoch, uint64_t seq, int send);
/* Answer req with rec now, after the held answers another thread is
 * sending: answers leave in the order of their changes. */
void defer_send_now(struct glue_sa_req *req, const uint8_t *rec);
/* Held now, and the oldest one's change (0 when none). */
size_t defer_count(uint64_t *oldest_seq);

#endif
