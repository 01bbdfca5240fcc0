/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A test double of lib/core/mport.h for the SA client's callers: one port
 * whose SA is an in-memory table of ServiceRecords answering SubnAdmGet
 * and SubnAdmGetTable of ServiceRecords as OpenSM does (a Get of none is
 * NO_RECORDS, of several TOO_MANY_RECORDS, IBTA Vol 1 15.2.5.4; a table
 * comes reassembled as the kernel hands it, mad_rmpp.c), and that can be
 * told to misbehave. Requests sent with mport_send_req are numbered in
 * the order their TIDs are first seen (0, 1, ...); faults name them by
 * that number. One fake port per process. */
#ifndef IBATS_TEST_FAKE_MPORT_H
#define IBATS_TEST_FAKE_MPORT_H

#include <stddef.h>
#include <stdint.h>

#include "core/mport.h"
#include "core/sr.h"

enum fake_mport_knob {
	FAKE_PORT_STATE,       /* mport_query's state (4 = Active, the default) */
	FAKE_DELAY_MS,         /* an answer comes this long after its request */
	FAKE_LIFO,             /* the newest answer that has come goes first */
	FAKE_NO_RMPP,          /* a GetTable answer is its first MAD alone, cut */
	FAKE_TWICE,            /* every answer comes twice */
	FAKE_DROP_FIRST,       /* request n: its first send gets no answer */
	FAKE_NEVER,            /* request n: never answered */
	FAKE_WRONG_METHOD,     /* request n: answered with a GetResp of the other method */
	FAKE_WRONG_ATTR,       /* request n: answered as a NodeRecord */
	FAKE_KNOBS
};

/* Empty table, knobs at their defaults (the numbered faults off: -1). */
void fake_mport_reset(void);
void fake_mport_set(enum fake_mport_knob k, int value);
int fake_mport_add(const struct sr_record *r);
struct mport *fake_mport_port(void);

/* An answer that arrives at once, as if the SA had sent it. */
void fake_mport_inject(const uint8_t *mad, size_t len);

/* Requests sent and not answered (nor expired as the kernel's send
 * timeout expires them), at most at once so far. */
unsigned fake_mport_max_outstanding(void);
/* Sends of request n (mport_send_req), its TID. */
unsigned fake_mport_sends(unsigned n);
uint32_t fake_mport_tid(unsigned n);
/* Requests mport_send_req numbered so far; exchanges mport_rpc ran. */
unsigned fake_mport_requests(void);
unsigned fake_mport_rpcs(void);

#endif
