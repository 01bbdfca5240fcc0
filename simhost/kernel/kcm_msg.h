/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_cm's messages (Linux 6.1 cm.c cm_format_*) built from a kcm
 * connection into full 256-byte CM MADs (IBTA Vol 1 12.6, the cmwire.c
 * codec), and the PathRecord kcm keeps for a connection. Pure formatting:
 * kcm.c decides what is sent and when. */
#ifndef IBATS_SIMHOST_KCM_MSG_H
#define IBATS_SIMHOST_KCM_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "simhost/wire/cmwire.h"
#include "kcm.h"

/* PathRecord (IBTA Vol 1 15.2.5.16; OpenSM ib_path_rec_t) offsets. */
enum {
	KCM_MSG_PR_SID = 0,
	KCM_MSG_PR_DGID = 8,
	KCM_MSG_PR_SGID = 24,
	KCM_MSG_PR_DLID = 40,
	KCM_MSG_PR_SLID = 42,
	KCM_MSG_PR_HOP_FLOW = 44, /* RawTraffic 1, reserved 3, FlowLabel 20, HopLimit 8 */
	KCM_MSG_PR_TCLASS = 48,
	KCM_MSG_PR_NUMPATH = 49,
	KCM_MSG_PR_PKEY = 50,
	KCM_MSG_PR_SL = 53,       /* low 4 bits */
	KCM_MSG_PR_MTU = 54,      /* selector 2, MTU 6 */
	KCM_MSG_PR_RATE = 55,
	KCM_MSG_PR_PLT = 56,
};

#define KCM_MSG_METHOD_SEND 0x03 /* every CM MAD's method (IBTA 12.6) */

/* MRA's "message MRAed" and REJ's "message rejected" (Tables 107, 108) */
enum { KCM_MSG_REQ = 0, KCM_MSG_REP = 1, KCM_MSG_OTHER = 2 };

/* cm.c cm_ack_timeout: the QP's local ACK timeout, at most 31. */
uint8_t kcm_msg_ack_timeout(uint8_t ca_ack_delay, uint8_t packet_life_time);
/* REQ of an active connection (ids, QPN, PSN, path, timeouts set). */
void kcm_msg_req(uint8_t *mad, const struct kcm_conn *c, const struct kcm_port *port,
		 const struct kcm_param *p);
/* REP of a passive connection, after ib_send_cm_rep took p's values. */
void kcm_msg_rep(uint8_t *mad, const struct kcm_conn *c, const struct kcm_port *port,
		 const struct kcm_param *p);
void kcm_msg_rej(uint8_t *mad, const struct kcm_conn *c, uint16_t reason, const uint8_t *ari,
		 uint8_t ari_len, const uint8_t *pdata, size_t len);
/* cm_issue_rej's answer to a REQ: reason to its sender, its TID. */
void kcm_msg_rej_req(uint8_t *mad, uint32_t remote_id, uint64_t tid, uint16_t reason);
void kcm_msg_rtu(uint8_t *mad, const struct kcm_conn *c);
void kcm_msg_mra(uint8_t *mad, const struct kcm_conn *c, uint8_t service_timeout);
void kcm_msg_dreq(uint8_t *mad, const struct kcm_conn *c);
void kcm_msg_drep(uint8_t *mad, uint32_t local_id, uint32_t remote_id, uint64_t tid);
/* cm.c cm_format_path_from_req: r's primary path from the passive node's
 * side (SGID = the REQ's remote GID, DLID = the requester's LID). */
void kcm_msg_path_from_req(uint8_t path[KCM_PATH_LEN], const struct cmwire_req *r);

#endif
