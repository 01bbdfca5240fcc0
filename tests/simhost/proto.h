/* The simulated host's wire between a process (libsimhost.so, preloaded)
 * and its node's simulated kernel (simhostd), over AF_UNIX
 * SOCK_SEQPACKET at $SIMHOST_DIR/<node>/kernel.sock. One packet is one
 * message; every integer is in host order (both ends are this machine).
 *
 * A connection starts with one simhost_hello from the process and one
 * simhost_welcome from the kernel; then, by kind:
 *
 *   SIMHOST_UMAD   one per open of /dev/infiniband/umadN: the fd the
 *                  process gets. Process -> kernel: each packet is one
 *                  umad write() as the process made it (struct ib_user_mad
 *                  then the MAD, longer than 256 bytes for RMPP agents).
 *                  Kernel -> process: each packet is what one read() of
 *                  ib_umad returns (struct ib_user_mad, then the whole MAD
 *                  or reassembled RMPP message; status ETIMEDOUT with the
 *                  sent MAD for a send that timed out).
 *   SIMHOST_AGENTS one per umad fd, opened at its first ioctl: agent
 *                  registration, request/reply (simhost_reg_req and
 *                  simhost_reg_rep), for the UMAD connection whose welcome
 *                  token it names in its hello.
 *   SIMHOST_ISSM   one per open of /dev/infiniband/issmN: IsSM is set in
 *                  the port's CapabilityMask while any is open (ib_umad's
 *                  issm device); no packets after the welcome.
 *   SIMHOST_VERBS  one per ibv_open_device: kernel -> process packets are
 *                  simhost_event (the device's async events).
 *   SIMHOST_ADMIN  the bench's console (simhostd -C): one text command
 *                  packet, one text reply packet.
 */
#ifndef IBATS_SIMHOST_PROTO_H
#define IBATS_SIMHOST_PROTO_H

#include <stdint.h>

#define SIMHOST_MAGIC 0x53484b31u /* "SHK1" */
#define SIMHOST_SOCK "kernel.sock"
/* The node's sysfs tree, kept current by the kernel: $SIMHOST_DIR/<node>/sys */
#define SIMHOST_SYS "sys"

enum simhost_kind {
	SIMHOST_UMAD = 1,
	SIMHOST_AGENTS = 2,
	SIMHOST_ISSM = 3,
	SIMHOST_VERBS = 4,
	SIMHOST_ADMIN = 5,
};

struct simhost_hello {
	uint32_t magic;
	uint32_t kind;  /* enum simhost_kind */
	uint32_t pid;   /* the process, for the kernel's log */
	uint32_t token; /* SIMHOST_AGENTS: the UMAD connection's token */
	uint32_t port;  /* umadN / issmN: the port's number on the CA (1) */
};

struct simhost_welcome {
	uint32_t magic;
	int32_t err;    /* 0, or -errno: the open() fails with it */
	uint32_t token; /* SIMHOST_UMAD: names this connection */
	uint32_t qpn_base; /* SIMHOST_VERBS: QPNs this device hands out
			    * (qpn_base .. qpn_base + SIMHOST_QPN_BLOCK - 1) */
};

#define SIMHOST_QPN_BLOCK 4096

enum simhost_reg_op {
	SIMHOST_REG_AGENT = 1,  /* IB_USER_MAD_REGISTER_AGENT: req.v1 */
	SIMHOST_REG_AGENT2 = 2, /* IB_USER_MAD_REGISTER_AGENT2: req.v2 */
	SIMHOST_UNREG_AGENT = 3, /* IB_USER_MAD_UNREGISTER_AGENT: req.id */
	SIMHOST_ENABLE_PKEY = 4, /* IB_USER_MAD_ENABLE_PKEY */
};

/* The ioctl arguments as <rdma/ib_user_mad.h> lays them out (uapi). */
struct simhost_reg_v1 {
	uint32_t id;
	uint32_t method_mask[4];
	uint8_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t oui[3];
	uint8_t rmpp_version;
};

struct simhost_reg_v2 {
	uint32_t id;
	uint32_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint16_t res;
	uint32_t flags;
	uint64_t method_mask[2] __attribute__((aligned(8)));
	uint32_t oui;
	uint8_t rmpp_version;
	uint8_t reserved[3];
};

struct simhost_reg_req {
	uint32_t op; /* enum simhost_reg_op */
	uint32_t id; /* SIMHOST_UNREG_AGENT */
	union {
		struct simhost_reg_v1 v1;
		struct simhost_reg_v2 v2;
	} u;
};

struct simhost_reg_rep {
	int32_t err; /* 0 or -errno, as the ioctl would fail */
	uint32_t id; /* the agent id (REG_AGENT, REG_AGENT2) */
	struct simhost_reg_v2 v2; /* REG_AGENT2: the request as the kernel
				   * returns it (flags it does not know) */
};

/* One async event of a verbs device (enum ibv_event_type values). */
struct simhost_event {
	uint32_t type;
	uint32_t port;
};

#endif
