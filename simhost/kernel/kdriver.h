/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The HCA driver under ib_core, per node: which verbs async events the
 * port raises for a change of its PortInfo or P_Key table (a driver
 * profile: mlx5, the default; mlx4; qib), and the fields of a received
 * MAD's work completion that ib_umad copies into the umad header
 * (user_mad.c recv_handler) as far as ibsim's wire lets a node know them.
 *
 * Read from the drivers (Linux 6.1 and today): neither Mellanox driver
 * raises IB_EVENT_SM_CHANGE. mlx5 (hw/mlx5/main.c handle_port_change)
 * maps the firmware's port change subtypes ACTIVE, DOWN/INITIALIZED,
 * LID, PKEY, GUID and CLIENT_REREG to PORT_ACTIVE, PORT_ERR, LID_CHANGE,
 * PKEY_CHANGE, GID_CHANGE and CLIENT_REREGISTER; there is no SM subtype.
 * mlx4 (hw/mlx4/main.c mlx4_ib_event; hw/mlx4/mad.c
 * handle_port_mgmt_change_event) turns PORT_UP/DOWN into PORT_ACTIVE/
 * PORT_ERR, the PortInfo change EQE's LID, GID prefix and ClientReregister
 * bits into LID_CHANGE, GID_CHANGE, CLIENT_REREGISTER (in that order),
 * the P_Key table EQE into PKEY_CHANGE, and a master SM change
 * (MSTR_SM_CHANGE_MASK) only into update_sm_ah, no event. Only the
 * drivers with a software SMA raise SM_CHANGE: qib (hw/qib/qib_mad.c
 * subn_set_portinfo: LID_CHANGE for a new LID or LMC, SM_CHANGE for a
 * new SM LID or SM SL, CLIENT_REREGISTER last; set_pkeys: PKEY_CHANGE; no
 * event for the GID prefix). Events reach verbs users unchanged:
 * core/device.c ib_dispatch_event -> core/cache.c ib_cache_event_task
 * (the cache is updated first) -> uverbs_main.c ib_uverbs_event_handler. */
#ifndef IBATS_KDRIVER_H
#define IBATS_KDRIVER_H

#include <stdint.h>

enum kdriver {
	KDRIVER_MLX5,
	KDRIVER_MLX4,
	KDRIVER_QIB,
};

#define KDRIVER_MAX_EVENTS 8

/* "mlx5", "mlx4", "qib"; -EINVAL for another name. */
int kdriver_parse(const char *name);
const char *kdriver_name(enum kdriver d);

/* What changed between two reads of the port. rereg: the SM set
 * ClientReregister in its Set(PortInfo) (ksysfs.c infers it: ibsim
 * keeps no such bit). */
struct kdriver_change {
	unsigned down : 1, up : 1, lid : 1, lmc : 1, sm_lid : 1, sm_sl : 1, gid_prefix : 1,
		pkeys : 1, rereg : 1;
};

/* The events driver d raises for c (enum ibv_event_type values, in its
 * order) into ev, at most KDRIVER_MAX_EVENTS; how many. */
int kdriver_events(enum kdriver d, const struct kdriver_change *c, uint32_t *ev);

/* An event's name as libibverbs' ibv_event_type_str gives it, for logs. */
const char *kdriver_event_name(uint32_t ev);

/* wc->pkey_index of a received GMP: the index of the default P_Key in
 * the port's table pk (block 0, 32 entries, wire order), the full member
 * first, else the limited one (core/device.c ib_find_pkey's order); 0
 * when the table holds neither. See kdriver.c for why. */
uint16_t kdriver_recv_pkey_index(const uint8_t pk[64]);
/* wc->dlid_path_bits: the low LMC bits of the DLID the packet came to. */
uint8_t kdriver_recv_path_bits(uint16_t dlid, uint8_t lmc);

#endif
