/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The port's asynchronous events from the verbs device:
 * CLIENT_REREGISTER, SM_CHANGE, LID_CHANGE and PORT_ACTIVE all mean the
 * SA may have lost or moved our records. Not every driver raises each:
 * mlx4 and mlx5 never raise SM_CHANGE (hw/mlx4/mad.c
 * handle_port_mgmt_change_event only moves the driver's SM address;
 * hw/mlx5/main.c handle_port_change has no SM subtype), so a failover
 * reaches us as CLIENT_REREGISTER when the new master sets
 * ClientReregister, and otherwise only through port_poll.h. Without a
 * verbs device (no ib_uverbs, say) the agent still follows the port by
 * polling it. */
#ifndef IBATS_PORT_EVENTS_H
#define IBATS_PORT_EVENTS_H

struct port_events;

/* -ENODEV when the CA has no verbs device. */
int port_events_open(struct port_events **out, const char *ca, int port);
void port_events_close(struct port_events *p);
int port_events_fd(const struct port_events *p);
/* Drain pending events; 1 when one asks for a full reconciliation. */
int port_events_read(struct port_events *p, const char **what);

#endif
