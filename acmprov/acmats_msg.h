/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ibacm's resolve messages as the ats provider reads and answers them
 * (infiniband/acm.h, ibacm_prov(7)): what a request asks, and the answer
 * librdmacm takes (acm.c ucma_ib_save_resp, ucma_resolve_af_ib). The
 * core hands the provider a struct acm_msg it has checked
 * (acm_svr_verify_resolve: src_index, dst_index, src_out set); nothing
 * here trusts more than that. */
#ifndef IBATS_ACMATS_MSG_H
#define IBATS_ACMATS_MSG_H

#include <stdint.h>

#include <infiniband/acm.h>

#include "core/ats.h"

enum acmats_msg_ask {
	ACMATS_MSG_ASK_IP,      /* an IPv4 or IPv6 destination: ATS, then a path */
	ACMATS_MSG_ASK_PATH,    /* a path to a GID (librdmacm's route requests) */
};

struct acmats_msg_query {
	enum acmats_msg_ask ask;
	struct ats_ip ip;   /* ACMATS_MSG_ASK_IP */
	uint8_t dgid[16];   /* ACMATS_MSG_ASK_PATH */
	int nodelay;        /* ACM_FLAGS_NODELAY: the cache's answer or none */
};

/* What msg asks: 0, or an ACM_STATUS_* to answer with at once. */
uint8_t acmats_msg_question(const struct acm_msg *msg, struct acmats_msg_query *q);

/* The answer to req with status; with ACM_STATUS_SUCCESS the path (its
 * 64 bytes as the SA gave them) as ibacm's own provider answers: one
 * PATH entry, GMP | PRIMARY | BIDIRECTIONAL, then the source entry when
 * the core chose it (src_out: librdmacm reads the source from it). */
void acmats_msg_answer(const struct acm_msg *req, uint8_t status, const uint8_t *path,
		       struct acm_msg *out);

#endif
