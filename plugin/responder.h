/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's own umad port on the SM's port, served on a thread:
 * liveness (vendor class 0x34) and ibping (0x32) answers, and more
 * vendor classes for whoever asks (SM-to-SM replication, repl.c; the SM
 * query, smq.c). OpenSM's vendor layer cannot bind OUI classes, hence a
 * port of its own. */
#ifndef IBATS_RESPONDER_H
#define IBATS_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/mport.h"

struct responder;

/* Another class on the port: attach() before the thread starts,
 * answer() for its requests (the thread's mport answer function; it may
 * hold one with mport_requester), tick() once per turn of the thread
 * (nonzero: it did MAD exchanges, turn again at once; 0: serve a slice),
 * and stop() as the thread ends, with the port still open. tick and stop
 * may be NULL. */
struct responder_ext {
	uint8_t mgmt_class, class_version;
	void (*attach)(void *ctx, struct mport *port, int agent);
	size_t (*answer)(void *ctx, const uint8_t *req, size_t len, uint8_t *resp,
			 size_t cap);
	int (*tick)(void *ctx);
	void (*stop)(void *ctx);
	void *ctx;
};

#define RESPONDER_MAX_EXT 4

/* is_master() gates the liveness answers (a standby SM stays quiet) and
 * gives the SM port's current LID. liveness 0 serves ext[0..next) alone. */
int responder_start(struct responder **out, uint64_t port_guid, int liveness,
		    int (*is_master)(void *, uint16_t *), void *ctx,
		    const struct responder_ext *const *ext, size_t next,
		    char *err, size_t errlen);
void responder_stop(struct responder *r);
uint64_t responder_answered(const struct responder *r);

#endif
