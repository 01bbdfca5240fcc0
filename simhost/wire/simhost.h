/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated host's wire between a process (libsimhost.so, preloaded)
 * and its node's simulated kernel (simhostd), over AF_UNIX
 * SOCK_SEQPACKET at $SIMHOST_DIR/<node>/kernel.sock. One packet is one
 * message; every integer is in host order (both ends are this machine).
 *
 * A connection starts with one simhost_hello from the process and one
 * simhost_welcome from the kernel, which refuses it with EACCES when the
 * process (its SO_PEERCRED) may not open the device node the kind stands
 * for (devnode.h; the console is root's); then, by kind:
 *
 *   SIMHOST_UMAD   one per open of /dev/infiniband/umadN: the fd the
 *                  process gets. Its messages, after the welcome, either
 *                  way, go framed (simhost_frame below). Process ->
 *                  kernel: each message is one umad write() as the
 *                  process made it (struct ib_user_mad then the MAD,
 *                  longer than 256 bytes for RMPP agents). Kernel ->
 *                  process: each message is what one read() of ib_umad
 *                  returns (struct ib_user_mad, then the whole MAD or
 *                  reassembled RMPP message; status ETIMEDOUT with the
 *                  sent MAD for a send that timed out).
 *   SIMHOST_AGENTS one per umad fd, opened with it: agent
 *                  registration, request/reply (simhost_reg_req and
 *                  simhost_reg_rep), for the UMAD connection whose welcome
 *                  token it names in its hello; and the writes whose
 *                  verdict the process waits for (SIMHOST_WRITE).
 *   SIMHOST_ISSM   one per open of /dev/infiniband/issmN: IsSM is set in
 *                  the port's CapabilityMask while any is open (ib_umad's
 *                  issm device); no packets after the welcome.
 *   SIMHOST_VERBS  one per ibv_open_device: kernel -> process packets are
 *                  simhost_event (the device's async events).
 *   SIMHOST_ADMIN  the bench's console (simhostd -C): one text command
 *                  packet, one text reply packet.
 *   SIMHOST_UCMA   one per open of /dev/infiniband/rdma_cm (RDMACM.md 6):
 *                  the fd the process gets, the ucma file, named by the
 *                  welcome's token. Kernel -> process only: a
 *                  simhost_doorbell each time the file's event list goes
 *                  from empty to non-empty, so poll() on the fd is the
 *                  event channel's readiness. Its hang-up is the file's
 *                  release (ucma_close).
 *   SIMHOST_UCMA_CMD  a command connection of the UCMA file whose token
 *                  its hello names (several per file, one per thread
 *                  with a write() under way: GET_EVENT may block): one
 *                  simhost_ucm_req packet, one simhost_ucm_rep packet.
 */
#ifndef IBATS_SIMHOST_H
#define IBATS_SIMHOST_H

#include <stdint.h>

#define SIMHOST_MAGIC 0x53484b31u /* "SHK1" */
#define SIMHOST_SOCK "kernel.sock"
/* The node's sysfs tree, kept current by the kernel: $SIMHOST_DIR/<node>/sys */
#define SIMHOST_SYS "sys"
/* The node's /run for ibacm's socket and port files: $SIMHOST_DIR/<node>/run */
#define SIMHOST_RUN "run"

enum simhost_kind {
	SIMHOST_UMAD = 1,
	SIMHOST_AGENTS = 2,
	SIMHOST_ISSM = 3,
	SIMHOST_VERBS = 4,
	SIMHOST_ADMIN = 5,
	SIMHOST_UCMA = 6,
	SIMHOST_UCMA_CMD = 7,
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
	/* A write() that needs ib_umad_write's verdict before it returns
	 * (is_duplicate may refuse it): the write's bytes (umad header and
	 * MAD) follow the simhost_reg_req in the packet; rep.err is 0 or
	 * -EINVAL. The kernel first takes in whatever the UMAD connection
	 * holds, so it comes after the process's earlier writes. */
	SIMHOST_WRITE = 5,
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

/* Every packet of a SIMHOST_UMAD connection after the welcome, both
 * ways, starts with a simhost_frame, then carries bytes of one message
 * (the umad header, then the MAD data). A message of up to SIMHOST_CHUNK
 * bytes is one packet, FIRST | LAST; a longer one is packets of exactly
 * SIMHOST_CHUNK bytes, the first FIRST (it holds the umad header and the
 * first MADs: what a short read() copies), the last LAST with the rest.
 * Every packet repeats the total. The packets of one message are never
 * interleaved with another's on a connection. A packet that breaks these
 * rules is dropped with the message under way (simframe.h).
 *
 * Why: AF_UNIX keeps a packet as one skb whose linear part is a kmalloc
 * of all but MAX_SKB_FRAGS (17) pages of it (net/unix/af_unix.c
 * unix_dgram_sendmsg, sock_alloc_send_pskb): sendmsg fails with ENOBUFS
 * above KMALLOC_MAX_SIZE (4 MiB) whatever SO_SNDBUF says, and any part
 * above 32 KiB is a costly order that fragmented memory may refuse. A GetTable
 * answer is megabytes (30,000 ServiceRecords: 5.3 MB; a million: 180
 * MB). 64 KiB packets have a linear part of order 2 or less and fit the
 * default SO_SNDBUF (net.core.wmem_default 212992); 180 MB is 2,900 of
 * them, a negligible cost next to copying the bytes. */
struct simhost_frame {
	uint32_t flags; /* SIMHOST_FRAME_FIRST, SIMHOST_FRAME_LAST */
	uint32_t total; /* the message's length in bytes (> 0) */
};

#define SIMHOST_FRAME_FIRST 1u
#define SIMHOST_FRAME_LAST 2u
#define SIMHOST_CHUNK (64u << 10)

/* One async event of a verbs device (enum ibv_event_type values). */
struct simhost_event {
	uint32_t type;
	uint32_t port;
};

/* SIMHOST_UCMA_CMD: one write() of the rdma_cm fd, the bytes as the
 * process gave them (struct rdma_ucm_cmd_hdr, then the command; the
 * response pointer inside is the process's and untouched), len of them
 * after this header. */
struct simhost_ucm_req {
	uint32_t flags; /* SIMHOST_UCM_NONBLOCK: the fd is O_NONBLOCK */
	uint32_t len;
};

#define SIMHOST_UCM_NONBLOCK 1u

/* The answer: resp_len bytes of response after it, for the process's
 * `response` pointer (only when ret >= 0). doorbell: when not 0, the
 * file's event list is empty now and the doorbells up to this one are
 * stale (the process drops them from the UCMA socket). */
struct simhost_ucm_rep {
	int32_t ret; /* what write() returns: len, or -errno */
	uint32_t resp_len;
	uint32_t doorbell;
};

/* SIMHOST_UCMA: the event list became non-empty (gen counts from 1). */
struct simhost_doorbell {
	uint32_t gen;
};

#endif
