/* The port's asynchronous events from the verbs device:
 * CLIENT_REREGISTER, SM_CHANGE, LID_CHANGE and PORT_ACTIVE all mean the
 * SA may have lost or moved our records. Without a verbs device (no
 * ib_uverbs, say) the agent still follows the port by polling it. */
#ifndef IBATS_PORT_EVENTS_H
#define IBATS_PORT_EVENTS_H

struct pev;

/* -ENODEV when the CA has no verbs device. */
int pev_open(struct pev **out, const char *ca, int port);
void pev_close(struct pev *p);
int pev_fd(const struct pev *p);
/* Drain pending events; 1 when one asks for a full reconciliation. */
int pev_read(struct pev *p, const char **what);

#endif
