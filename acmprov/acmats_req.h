/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* One resolve request of ibacm's on its way through the ats provider,
 * answered exactly once (librdmacm waits without a timeout: acm.c
 * ucma_ib_resolve): from the cache at once; else ATS through atsd's
 * socket (a worker thread: ibacm's server thread never blocks), or
 * straight from the SA when atsd does not run (a one-MAD SubnAdmGet of
 * the primary record: the core reads 256 bytes of an answer), then a
 * PathRecord through the core's SA queue (acm_send_sa_mad: its credits,
 * timeout and retries). */
#ifndef IBATS_ACMATS_REQ_H
#define IBATS_ACMATS_REQ_H

#include <stdint.h>

#include "acmats.h"
#include "acmats_msg.h"

/* Starts the worker; -errno. */
int acmats_req_init(void);
void acmats_req_fini(void);

/* Answers msg (client id, ACM_OP_RESOLVE) for ep, now or later. */
int acmats_req_resolve(struct acmats_ep *ep, const struct acm_msg *msg, uint64_t id);
/* A PathRecord query (ib_acme -v, ACM_FLAGS_QUERY_SA) passed to the SA as
 * asked, answered through acm_query_response. */
int acmats_req_query(struct acmats_ep *ep, const struct acm_msg *msg, uint64_t id);

#endif
