/* atsctl ping: liveness requests (vendor class 0x34) to one port. */
#ifndef IBATS_CMD_PING_H
#define IBATS_CMD_PING_H

#include <stddef.h>
#include <stdint.h>

#include "mport.h"
#include "vmad.h"

struct ping_opts {
	unsigned count;
	unsigned interval_ms;
	unsigned timeout_ms;
	enum liv_type type;     /* LIV_ECHO_REQ, LIV_TS_REQ or LIV_INFO_REQ */
	size_t size;            /* echo payload */
	int json;
};

struct ping_target {
	uint16_t lid;
	char label[128];        /* how the user named it */
};

/* Runs the pings and prints per-reply lines and a summary. Returns 0 when
 * at least one answer came, 1 on 100% loss, 3 on local errors. */
int ping_run(struct mport *port, const struct ping_target *t,
	     const struct ping_opts *o);

#endif
