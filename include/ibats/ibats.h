/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibats: IP <-> GID translation through the DAT Collaborative ATS
 * (ServiceRecords in the subnet administrator), and the ATS side of
 * connecting with librdmacm over AF_IB.
 *
 * Lookups go to the local atsd (its Unix socket, one persistent
 * connection per handle) when it runs, straight to the SA otherwise.
 * Every function returns 0 (or a length) on success and a negative errno
 * on failure; see ibats_exit_code(3) for the mapping to atsctl's exit
 * status. A handle may be shared by threads. */
#ifndef IBATS_IBATS_H
#define IBATS_IBATS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* struct sockaddr_ib (AF_IB) comes with rdma-core's <infiniband/ib.h>;
 * without it the functions taking one are still declared. */
#if defined(__has_include)
#if __has_include(<infiniband/ib.h>)
#include <infiniband/ib.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct sockaddr_ib;
struct ibats;

#define IBATS_SOCKET_DEFAULT "/run/ibats/atsd.sock"
#define IBATS_PKEY_DEFAULT 0xFFFF
/* The ATS primary ServiceID (DAT Collaborative ATS v1 section 3.1). */
#define IBATS_SID_PRIMARY 0x10000CE100415453ULL
#define IBATS_LEASE_INFINITE 0xFFFFFFFFu

/* ibats_opts.flags */
#define IBATS_NO_AGENT 0x1 /* never ask atsd: the SA only */
#define IBATS_NO_SA    0x2 /* never ask the SA: atsd only */
/* How the SA path reads a SID held by several GIDs (ibats_open(3)):
 * neither flag tries SubnAdmGetTable and walks with SubnAdmGet when an
 * answer comes cut (no RMPP on the path). */
#define IBATS_RMPP_ON  0x4 /* always trust SubnAdmGetTable */
#define IBATS_RMPP_OFF 0x8 /* never send SubnAdmGetTable */

struct ibats_opts {
	const char *socket_path; /* NULL: IBATS_SOCKET_DEFAULT */
	const char *ca;          /* NULL: the first CA with an active port */
	int port;                /* 0: the first active port */
	uint16_t pkey;           /* 0: IBATS_PKEY_DEFAULT */
	unsigned sa_timeout_ms;  /* per SA attempt; 0: 500 */
	int sa_retries;          /* extra SA attempts; 0: 3, negative: none */
	unsigned agent_timeout_ms; /* per atsd request; 0: 10000 */
	unsigned flags;          /* IBATS_NO_AGENT, IBATS_NO_SA, IBATS_RMPP_* */
	uint64_t sm_key;         /* SM_Key of SA requests (IBTA Vol 1 15.2.1.1); 0 */
	unsigned sa_depth;       /* SA lookups in flight at once for the threads
				  * sharing the handle; 0: 16, at most 256 */
	unsigned reserved0;      /* zero */
	uint64_t reserved[2];    /* zero */
};

/* One ATS ServiceRecord. */
struct ibats_record {
	uint64_t sid;           /* ServiceID, inside the ATS block */
	uint8_t gid[16];        /* ServiceGID, network order */
	uint16_t pkey;          /* ServiceP_Key */
	uint32_t lease;         /* seconds; IBATS_LEASE_INFINITE */
	struct sockaddr_storage addr; /* AF_INET or AF_INET6, port 0 */
	int primary;            /* sid is the primary SID */
};

int ibats_open(struct ibats **h, const struct ibats_opts *opts);
void ibats_close(struct ibats *h);

/* pkey 0 means the handle's P_Key. The records array is malloc'ed: free
 * it with ibats_records_free. -ENOENT when there is no record. */
int ibats_resolve(struct ibats *h, const char *ip, uint16_t pkey,
		  struct ibats_record **recs, size_t *n);
int ibats_resolve_addr(struct ibats *h, const struct sockaddr *ip, uint16_t pkey,
		       struct ibats_record **recs, size_t *n);
int ibats_reverse(struct ibats *h, const uint8_t gid[16], uint16_t pkey,
		  struct ibats_record **recs, size_t *n);
int ibats_primary(struct ibats *h, const uint8_t gid[16], uint16_t pkey,
		  struct ibats_record *rec);
void ibats_records_free(struct ibats_record *recs);

/* How the calling thread's last lookup on a handle went
 * (ibats_lookup_info(3)): who answered, and what a tool needs to explain
 * a failure in words. */
#define IBATS_BY_AGENT 1
#define IBATS_BY_SA    2
/* ibats_info.sa_failed */
#define IBATS_SA_PORT  1 /* the umad port could not be opened */
#define IBATS_SA_AGENT 2 /* the SA agent could not be registered */
struct ibats_info {
	int source;          /* IBATS_BY_AGENT, IBATS_BY_SA; 0: none answered */
	int agent_err;       /* -errno: why atsd, asked first, did not answer */
	char agent_msg[128]; /* atsd's ERR text, or a record line it garbled */
	int sa_failed;       /* IBATS_SA_PORT, IBATS_SA_AGENT, 0 */
	uint16_t sa_status;  /* MAD status of the SA's last answer, 0 */
	uint16_t sm_lid;     /* whom the SA requests went to */
	unsigned sa_queries; /* SA requests the lookup took */
	int sa_walked;       /* read by a SubnAdmGet walk (no RMPP) */
	int partial;         /* read port by port: records of GIDs not on
			      * the fabric can be missing */
	uint64_t flags;      /* IBATS_INFO_LOCAL (since libibats 1.2; 0 before) */
	uint64_t reserved[3];
};
/* ibats_info.flags: atsd answered from the host's own knowledge because
 * the SA did not answer (DAT ATS 5.1, point to point), not the SA's word. */
#define IBATS_INFO_LOCAL 0x1
/* -ENOENT when this thread made no lookup on h yet. */
int ibats_lookup_info(const struct ibats *h, struct ibats_info *info);
/* The GID of the handle's local port, for port GUIDs under its subnet
 * prefix: read from sysfs, so any user may call it (no umad device). */
int ibats_port_gid(struct ibats *h, uint8_t gid[16]);

/* The library's own diagnostics (SA retries, RMPP walks) on stderr as
 * "IDENT: LEVEL: text", for every handle; by default errors only, as
 * "ibats". ident must stay valid while the library is used. */
#define IBATS_LOG_ERR   0
#define IBATS_LOG_WARN  1
#define IBATS_LOG_INFO  2
#define IBATS_LOG_DEBUG 3
int ibats_set_log(const char *ident, int level);

/* atsctl's exit status for a return value: 0 found, 1 not found,
 * 2 usage error, 3 SA, agent or transport error. */
int ibats_exit_code(int ret);

/* RDMA IP CM Service (IBTA Vol 1 Annex A11). */
#define IBATS_PS_TCP 0x0106
#define IBATS_PS_UDP 0x0111
#define IBATS_PS_IB  0x013F
#define IBATS_A11_LEN 36

/* The service ID of port in a port space: 0x0000000001PPpppp. */
uint64_t ibats_ip_cm_sid(uint16_t port_space, uint16_t port);
/* AF_IB address of rec's GID and P_Key with service ID sid (mask all
 * ones), host order. */
int ibats_sockaddr_ib_fill(const struct ibats_record *rec, uint64_t sid,
			   struct sockaddr_ib *out);
/* Forward lookup of ip, the first holder (primary holders first), and its
 * AF_IB address with the TCP port space service ID of port. */
int ibats_sockaddr_ib(struct ibats *h, const struct sockaddr *ip, uint16_t port,
		      uint16_t pkey, struct sockaddr_ib *out);

/* Annex A11 private data header: src with its port, dst (port ignored),
 * both of one family. Encode returns IBATS_A11_LEN; decode fills src
 * (with the source port) and dst, from the A11 header or from atsd's
 * AF_IB form of it (sent where the listener's kernel refuses A11: the
 * destination is not on its IPoIB interface at the path's P_Key). */
int ibats_a11_encode(const struct sockaddr *src, const struct sockaddr *dst,
		     void *buf, size_t len);
int ibats_a11_decode(const void *buf, size_t len, struct sockaddr_storage *src,
		     struct sockaddr_storage *dst);

/* Passive side anti-spoof check: the ATS primary address of the
 * requester's GID must be the A11 source address. 0 accepted, -EACCES
 * not that address, -ENOENT the GID has no primary; why (if not NULL)
 * says why in words. It takes the GID as claimed: it does not check that
 * the GID sent the REQ (ibats_check_peer_lid does). */
int ibats_check_peer(struct ibats *h, const uint8_t req_gid[16],
		     const struct sockaddr *a11_src, char *why, size_t why_len);
/* ibats_check_peer with the check that ibats_check_peer does not make:
 * the claimed GID is the port the REQ came from. req_lid is the REQ's
 * primary local LID (the requester's, where the REP and the data go); on
 * a passive rdma_cm_id: be16toh(id->route.path_rec->dlid). The GID must
 * be under this port's subnet prefix and the port that holds req_lid (the
 * SA's NodeRecord, through atsd when it runs) must have the GID's
 * interface ID as its GUID, else -EACCES; a failed LID lookup is its
 * -errno (refuse then too). Then ibats_check_peer's judgement. Since
 * libibats 1.3 (IBATS_1.3). */
int ibats_check_peer_lid(struct ibats *h, const uint8_t req_gid[16], uint16_t req_lid,
			 const struct sockaddr *a11_src, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif

#endif
