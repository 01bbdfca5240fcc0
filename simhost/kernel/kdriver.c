/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The HCA driver's port events and receive fields: see kdriver.h. */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "core/wire.h"
#include "kdriver.h"

static const char *const names[] = {
	[KDRIVER_MLX5] = "mlx5",
	[KDRIVER_MLX4] = "mlx4",
	[KDRIVER_QIB] = "qib",
};

int kdriver_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return (int)i;
	return -EINVAL;
}

const char *kdriver_name(enum kdriver d)
{
	return (unsigned)d < sizeof(names) / sizeof(names[0]) ? names[d] : "?";
}

/* mlx5 and mlx4: one firmware event per change, none for the SM. The
 * firmware's order between separate events is its own; within mlx4's
 * PortInfo change EQE it is LID, GID, ClientReregister
 * (handle_port_mgmt_change_event). A new LMC alone raises nothing that
 * either driver's code names (the firmware decides what LID subtype
 * means; we raise LID_CHANGE for a new LID only). */
static int mellanox(const struct kdriver_change *c, uint32_t *ev)
{
	int n = 0;

	if (c->down)
		ev[n++] = IBV_EVENT_PORT_ERR;
	if (c->lid)
		ev[n++] = IBV_EVENT_LID_CHANGE;
	if (c->pkeys)
		ev[n++] = IBV_EVENT_PKEY_CHANGE;
	if (c->gid_prefix)
		ev[n++] = IBV_EVENT_GID_CHANGE;
	if (c->up)
		ev[n++] = IBV_EVENT_PORT_ACTIVE;
	if (c->rereg)
		ev[n++] = IBV_EVENT_CLIENT_REREGISTER;
	return n;
}

/* qib: its own SMA's subn_set_portinfo raises LID_CHANGE, SM_CHANGE and
 * CLIENT_REREGISTER in that order as it applies the SM's Set; set_pkeys
 * PKEY_CHANGE; the link state interrupt (qib_intr.c
 * qib_handle_e_ibstatuschanged) PORT_ERR and PORT_ACTIVE. */
static int qib(const struct kdriver_change *c, uint32_t *ev)
{
	int n = 0;

	if (c->down)
		ev[n++] = IBV_EVENT_PORT_ERR;
	if (c->lid || c->lmc)
		ev[n++] = IBV_EVENT_LID_CHANGE;
	if (c->sm_lid || c->sm_sl)
		ev[n++] = IBV_EVENT_SM_CHANGE;
	if (c->rereg)
		ev[n++] = IBV_EVENT_CLIENT_REREGISTER;
	if (c->pkeys)
		ev[n++] = IBV_EVENT_PKEY_CHANGE;
	if (c->up)
		ev[n++] = IBV_EVENT_PORT_ACTIVE;
	return n;
}

int kdriver_events(enum kdriver d, const struct kdriver_change *c, uint32_t *ev)
{
	return d == KDRIVER_QIB ? qib(c, ev) : mellanox(c, ev);
}

const char *kdriver_event_name(uint32_t ev)
{
	switch (ev) {
	case IBV_EVENT_PORT_ACTIVE: return "port active";
	case IBV_EVENT_PORT_ERR: return "port error";
	case IBV_EVENT_LID_CHANGE: return "LID change";
	case IBV_EVENT_PKEY_CHANGE: return "P_Key change";
	case IBV_EVENT_SM_CHANGE: return "SM change";
	case IBV_EVENT_CLIENT_REREGISTER: return "client reregistration";
	case IBV_EVENT_GID_CHANGE: return "GID table change";
	default: return "unknown";
	}
}

/* A GMP's BTH carries the sender's P_Key and the HCA reports the index
 * of the entry it matched (user_mad.c recv_handler copies
 * wc->pkey_index). ibsim's sim_request (include/ibsim.h: dlid, slid, dqp,
 * sqp, status, length, mad[256]) carries no P_Key and ibsim checks none,
 * so the node cannot see it. Every GMP sender a node meets on the bench
 * sends on the default partition: the SA answers on the P_Key of the
 * request (OpenSM's vendor layer echoes the received pkey_ix) and reports
 * on the subscription's, ib_sa and the product send at the default
 * P_Key's index, and ib_cm's MADs stay inside simhost (kcm). So the
 * index a host's HCA would report is that of the default P_Key. */
uint16_t kdriver_recv_pkey_index(const uint8_t pk[64])
{
	int i, limited = -1;

	for (i = 0; i < 32; i++) {
		uint16_t p = wire_get16(pk + 2 * i);

		if ((p & 0x7fff) != 0x7fff)
			continue;
		if (p & 0x8000)
			return (uint16_t)i;
		if (limited < 0)
			limited = i;
	}
	return limited >= 0 ? (uint16_t)limited : 0;
}

uint8_t kdriver_recv_path_bits(uint16_t dlid, uint8_t lmc)
{
	return (uint8_t)(dlid & ((1u << (lmc & 7)) - 1));
}
