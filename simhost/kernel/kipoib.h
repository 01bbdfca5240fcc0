/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated ib_ipoib's multicast joins (Linux
 * drivers/infiniband/ulp/ipoib/ipoib_multicast.c): each interface is a
 * full member of its P_Key's IPv4 broadcast group (MGID
 * ff12:401b:PKEY::ffff:ffff, RFC 4391 4), joined once the port is ACTIVE
 * with an SM and again after a ClientReregister, an SM change or an LID
 * change (ipoib_event -> ipoib_flush_paths/mcast restart); a failed join
 * is retried with a doubling backoff up to 16 s. It leaves the group
 * only when the last interface of the P_Key goes (ib_sa's multicast.c
 * counts a port's members of a group and sends the leave for the
 * last). Pure: the caller sends the SA MADs it builds and
 * hands back the answers and timeouts. */
#ifndef IBATS_KIPOIB_H
#define IBATS_KIPOIB_H

#include <stddef.h>
#include <stdint.h>

#define KIPOIB_MAX 8

struct kipoib_if {
	uint16_t pkey;
	int joined;
	int pending;    /* a join on its way */
	int64_t due;    /* next join, INT64_MAX: none */
	unsigned backoff_s;
	uint32_t tid_lo;
};

struct kipoib {
	struct kipoib_if ifs[KIPOIB_MAX];
	size_t n;
	uint32_t next_tid;
	int up; /* the port is ACTIVE with an SM */
	uint64_t joins, failures, leaves;
};

void kipoib_init(struct kipoib *p);
/* An interface of pkey: joins at once when the port is up. */
int kipoib_add(struct kipoib *p, uint16_t pkey, int64_t now);
/* The port now: active (ACTIVE with an SM LID); rejoin: an event that
 * makes ipoib join again (CLIENT_REREGISTER, SM_CHANGE, LID_CHANGE). */
void kipoib_port(struct kipoib *p, int active, int rejoin, int64_t now);
int64_t kipoib_deadline(const struct kipoib *p);
/* The joins due now: each built (SA MCMemberRecord Set, TID low bits
 * only) into mad and given to send. */
typedef void (*kipoib_send_fn)(void *ctx, const uint8_t mad[256]);
void kipoib_due(struct kipoib *p, int64_t now, const uint8_t port_gid[16], kipoib_send_fn send,
		void *ctx);
/* An SA answer (GetResp) or the ETIMEDOUT of a join (timed_out), matched
 * by the low 32 bits of its TID. 1 when it was a join's. */
int kipoib_answer(struct kipoib *p, const uint8_t *mad, size_t len, int timed_out, int64_t now);

/* An interface of pkey gone: when it was the last of its P_Key and the
 * node is a member (or joining), the leave is built and given to send:
 * 1; 0 when none is sent; -ENOENT when no interface has pkey. */
int kipoib_del(struct kipoib *p, uint16_t pkey, const uint8_t port_gid[16], kipoib_send_fn send,
	       void *ctx);

#endif
