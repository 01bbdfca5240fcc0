/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's side of ibsim's client protocol (ibsim 0.10: include/ibsim.h,
 * umad2sim/sim_client.c, ibsim/ibsim.c): a control socket for requests
 * answered one by one (SIM_CTL_*), and a data socket carrying one struct
 * sim_request per MAD. The node's simulated kernel is ONE client,
 * connected with issm = 1 so that ibsim hands it every unsolicited QP0/QP1
 * request for its node (ibsim.c find_client) without touching IsSM in
 * the port's CapabilityMask (only SIM_CTL_SET_ISSM does, set_issm()). */
#ifndef IBATS_SIMCLIENT_H
#define IBATS_SIMCLIENT_H

#include <stddef.h>
#include <stdint.h>

/* ibsim.h's struct sim_request, as ibsim reads and writes it: dlid and
 * slid hold a big-endian 16-bit LID, dqp and sqp a big-endian QPN,
 * status a big-endian errno (110 when ibsim bounces a MAD it could not
 * deliver), length a big-endian byte count. Both ends are this machine. */
struct simclient_req {
	uint32_t dlid;
	uint32_t slid;
	uint32_t dqp;
	uint32_t sqp;
	uint32_t status;
	uint64_t length;
	uint8_t mad[256];
};

/* SIM_CTL_MAX_DATA: PortInfo, NodeInfo and the P_Key table come in 64
 * bytes (wire order). */
#define SIMCLIENT_DATA 64

struct simclient {
	int fd_ctl, fd_data;
	uint32_t id;      /* the client id ibsim gave us */
	uint32_t conn_id; /* the name of our sockets: <sock>:ctl<N>, :in<N> */
	char base[64];    /* IBSIM_SOCKNAME */
	char node[32];
	int issm; /* IsSM set by us */
	/* MADs read off the data socket while a control request waited
	 * (ctl): ibsim's writes to a full data socket block it, so a client
	 * that stops reading data while it waits on ibsim deadlocks with it
	 * (the kernel's max_dgram_qlen is 10). Served first by
	 * simclient_recv. */
	struct simclient_req *back;
	size_t back_first, back_n, back_cap;
};

/* Connects as node's client with issm = 1 (IBSIM_SOCKNAME names ibsim's
 * sockets, "sim" when unset). -errno on failure. */
int simclient_init(struct simclient *c, const char *node);
/* Clears IsSM if we set it, SIM_CTL_DISCONNECT, closes the sockets. */
void simclient_fini(struct simclient *c);

int simclient_nodeinfo(struct simclient *c, uint8_t out[SIMCLIENT_DATA]);
int simclient_portinfo(struct simclient *c, uint8_t out[SIMCLIENT_DATA]);
int simclient_pkeys(struct simclient *c, uint8_t out[SIMCLIENT_DATA]);
/* SIM_CTL_SET_ISSM: sets or clears IsSM in the port's CapabilityMask.
 * Clearing it also clears the client's issm flag (ibsim.c
 * sim_ctl_set_issm), which would end the delivery of unsolicited MADs:
 * so after a clear the client connects again with issm = 1 and drops
 * its old id (SIM_CTL_CONNECT leaves the CapabilityMask alone). */
int simclient_set_issm(struct simclient *c, int on);

/* One MAD out; -errno when ibsim's socket refuses it. */
int simclient_send(struct simclient *c, const struct simclient_req *r);
/* A MAD (len bytes, at most 256, sent as 256) to the address a umad
 * header holds (dlid, dqp big-endian) from our QP sqp, as umad2sim_write
 * builds it: SLID 0 lets ibsim fill in ours; a directed-route SMP's
 * permissive DLID keeps a permissive SLID. */
int simclient_send_mad(struct simclient *c, uint16_t dlid_be, uint32_t dqp_be, uint32_t sqp,
		       const uint8_t *mad, size_t len);
/* mad (256 bytes) back to the sender of in: a directed-route SMP
 * (class 0x81) back along its path. */
int simclient_reply(struct simclient *c, const struct simclient_req *in, const uint8_t *mad);
/* One MAD in, without waiting: 1, 0 when none, -errno. */
int simclient_recv(struct simclient *c, struct simclient_req *r);
/* MADs simclient_recv has in hand without reading the socket. */
size_t simclient_backlog(const struct simclient *c);

#endif
