/* The CM endpoint's queue pairs: a connection's QPN is a real RC QP's on
 * the port's verbs device (IBTA Vol 1 12.6: REQ and REP carry the QPN the
 * peer sends to), so no other process on the port can be handed the same
 * number. The QP stays in RESET: atsd moves no data over it. One PD and
 * one CQ serve every QP of the endpoint. */
#ifndef IBATS_CM_QP_H
#define IBATS_CM_QP_H

#include <stdint.h>

struct cmqp;
struct ibv_qp;

/* Opens verbs device ca (the CM endpoint's port's CA). -ENODEV when it
 * has none. */
int cmqp_init(struct cmqp **out, const char *ca);
/* Every QP must have been destroyed first. */
void cmqp_fini(struct cmqp *q);
/* A new RC QP: its handle in *qp, its number in *qpn. 0 or -errno. */
int cmqp_create(struct cmqp *q, struct ibv_qp **qp, uint32_t *qpn);
/* NULL is a no-op. */
void cmqp_destroy(struct ibv_qp *qp);

#endif
