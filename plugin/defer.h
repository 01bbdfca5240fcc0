/* Answers to clients' ServiceRecord Sets and Deletes held until every
 * in-sync standby SM has the change (doc/design.md, "Commit"). OpenSM
 * runs every SA Set — ServiceRecords, but also MCMemberRecord joins and
 * InformInfo — on one thread: that thread only queues the answer here
 * and goes on; whichever thread learns that the standbys have the
 * change (an ack on the responder thread, the tick that drops a standby
 * that acks nothing) sends it. Answers leave in the order of their
 * changes. Its own mutexes; never held while taking osm->lock. */
#ifndef IBATS_DEFER_H
#define IBATS_DEFER_H

#include "glue.h"

#include <stddef.h>
#include <stdint.h>

/* Held answers at most: beyond it the standbys that hold them back are
 * dropped (they cannot keep up) rather than OpenSM's memory grown. */
#define DEFER_MAX 8192
#define DEFER_MAX_WORDS "8192"

void defer_init(void);
/* Every held answer forgotten, none sent. */
void defer_fini(void);

/* Hold the answer rec to madw's request until change seq is committed.
 * -ENOSPC when DEFER_MAX are held (nothing kept), -ENOMEM. */
int defer_add(uint64_t seq, const osm_madw_t *madw, const ib_service_record_t *rec);
/* Send the held answers of changes up to seq, oldest first; with send 0
 * (this SM is no master any more: the new one may lack the change, the
 * client asks it again) forget them unanswered. Returns how many. */
size_t defer_release(uint64_t seq, int send);
/* Answer madw's request with rec now, after the held answers another
 * thread is sending: answers leave in the order of their changes. */
void defer_send_now(osm_madw_t *madw, const ib_service_record_t *rec);
/* Held now, and the oldest one's change (0 when none). */
size_t defer_count(uint64_t *oldest_seq);

#endif
