/* The agent's CM endpoint: MAD-level IB CM (IBTA Vol 1 chapter 12) on the
 * SA thread's port. Passive side: REQs for listened service IDs are
 * checked against ATS (the requester's primary IP by reverse lookup of the
 * REQ's primary SGID vs the Annex A11 source IP) and answered REP or REJ.
 * Active side: connect by IP. Each connection's QPN is an RC QP's on the
 * port's verbs device (cm_qp.h), destroyed with the connection; see
 * doc/design.md for the rdma_cm mapping. */
#ifndef IBATS_CM_EP_H
#define IBATS_CM_EP_H

#include <stddef.h>
#include <stdint.h>

#include "ats.h"
#include "mport.h"
#include "sa_client.h"

#define CMEP_MAX_LISTEN 16
#define CMEP_MAX_ACCEPT 32
#define CMEP_MAX_CONNS 64

enum cmep_policy {
	CMEP_ACCEPT_ANY = 0,
	CMEP_ACCEPT_AGREE,      /* A11 source IP = requester's ATS primary */
	CMEP_ACCEPT_LIST,       /* A11 source IP is listed */
};

struct cmep_conf {
	uint64_t listen[CMEP_MAX_LISTEN];
	size_t nlisten;
	enum cmep_policy policy;
	struct ats_ip accept[CMEP_MAX_ACCEPT];
	size_t naccept;
};

enum cmep_state {
	CMEP_REQ_SENT,
	CMEP_REP_SENT,
	CMEP_ESTABLISHED,
	CMEP_DREQ_SENT,
};

struct cmep_conn {
	uint32_t id, remote_id;
	int active;
	enum cmep_state state;
	uint64_t service_id, tid;
	uint8_t local_gid[16], remote_gid[16];
	uint16_t local_lid, remote_lid, pkey;
	uint32_t local_qpn, remote_qpn, local_psn, remote_psn;
	struct ats_ip local_ip, remote_ip;
	uint16_t src_port;
	uint8_t mtu, sl;
};

struct cmep;

int cmep_init(struct cmep **out, struct mport *port, struct sa_client *sa,
	      const struct cmep_conf *conf);
void cmep_fini(struct cmep *e);
/* Passive side and teardown: answer a CM MAD (0 = no answer). */
size_t cmep_answer(struct cmep *e, const uint8_t *req, size_t len,
		   uint8_t *resp, size_t cap);
/* Active side. src: our address in the A11 private data. */
int cmep_connect(struct cmep *e, const struct ats_ip *dst, uint16_t port,
		 uint64_t sid, const struct ats_ip *src, unsigned timeout_ms,
		 struct cmep_conn *out, char *err, size_t errlen);
int cmep_disconnect(struct cmep *e, uint32_t id, unsigned timeout_ms,
		    char *err, size_t errlen);
size_t cmep_list(const struct cmep *e, struct cmep_conn *v, size_t max);

const char *cmep_state_name(enum cmep_state s);

/* The passive side's decision on a REQ with Annex A11 source IP src, given
 * the requester's ATS primary (NULL: none). 0 accept, else -EACCES with
 * the REJ text in why. */
int cmep_judge(const struct cmep_conf *conf, const struct ats_ip *src,
	       const struct ats_ip *primary, char *why, size_t len);

#endif
