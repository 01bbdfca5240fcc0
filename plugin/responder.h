/* Liveness (vendor class 0x34) and ibping (0x32) answers on the SM's own
 * port. OpenSM's vendor layer cannot bind OUI classes, so the plugin opens
 * a umad port of its own and serves it on a thread. */
#ifndef IBATS_RESPONDER_H
#define IBATS_RESPONDER_H

#include <stddef.h>
#include <stdint.h>

struct responder;

/* is_master() gates the answers (a standby SM stays quiet) and gives the
 * SM port's current LID. */
int responder_start(struct responder **out, uint64_t port_guid,
		    int (*is_master)(void *, uint16_t *), void *ctx, char *err,
		    size_t errlen);
void responder_stop(struct responder *r);
uint64_t responder_answered(const struct responder *r);

#endif
