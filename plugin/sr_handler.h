/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's ServiceRecord handlers, in OpenSM's place on both SA
 * dispatchers, and the counts of what they did. */
#ifndef IBATS_SR_HANDLER_H
#define IBATS_SR_HANDLER_H

#include <stdint.h>

#include "core/state_file.h"

/* What the handlers tell the plugin thread: records or counters changed
 * (write the state file), and a query found the index behind (rebuild
 * it). They may be called with osm->lock held: they only queue work. */
struct sr_handler_events {
	void (*changed)(void);
	void (*behind)(void);
};

/* Install the handlers (from create(), before the SA is bound; the index
 * must be initialised). -EBUSY leaves OpenSM's own in place. */
int sr_handler_init(const struct sr_handler_events *ev);

/* The ATS decisions so far (flushed is not theirs: left 0). */
void sr_handler_counters(struct state_file_counters *out);
/* The Get/GetTable and Set/Delete figures of out (the rest untouched). */
void sr_handler_index_stats(struct state_file_index *out);
/* Sets and Deletes carried out, any lock. */
uint64_t sr_handler_sets(void);

#endif
