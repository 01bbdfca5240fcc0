/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibats internals: the handle, conversions between the project's
 * record model (lib/core/sr.h, ats.h) and the public records, and the pure
 * decisions the exported functions are built from (unit-tested alone). */
#ifndef IBATS_LIBIBATS_PRIV_H
#define IBATS_LIBIBATS_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/ats.h"
#include "host/ats_window.h"
#include "host/atsd_client.h"
#include "core/sa_client.h"
#include "ibats/ibats.h"

/* Exported: the library is built with -fvisibility=hidden and a version
 * script; only functions marked so form the ABI. */
#define IBATS_EXPORT __attribute__((visibility("default")))

struct ibats {
	struct ibats_opts o;
	uint64_t id;         /* unique in the process: a thread's last lookup
			      * names its handle by it, not by an address a
			      * later handle may get */
	char socket_path[108];
	char ca[64];
	/* The atsd connection: one request at a time (the protocol answers
	 * each line before reading the next). */
	pthread_mutex_t agent_lock;
	struct atsd_client_conn *agent;
	pid_t agent_pid;     /* the process that connected agent: after
			      * fork() a child does not read the parent's
			      * answers off the shared stream */
	int64_t agent_skip_until; /* CLOCK_MONOTONIC ms: a hung atsd is not
				   * asked again before then */
	/* The SA path, opened at its first use. Lookups of the threads
	 * sharing the handle fly together in win; one thread at a time
	 * reads the port (sa_reader), without sa_lock, while the others
	 * send theirs and wait on sa_cv for it to hand them the answer. */
	pthread_mutex_t sa_lock;
	pthread_cond_t sa_cv;
	struct mport *port;
	struct sa_client *sa;
	struct ats_window *win;
	int sa_reader;
	pid_t sa_pid;        /* the process that opened port, as agent_pid */
};

/* sockaddr (AF_INET, AF_INET6; IPv4-mapped IPv6 is IPv4) <-> ats_ip. */
int ibl_ip_from_sockaddr(const struct sockaddr *sa, struct ats_ip *ip);
void ibl_ip_to_sockaddr(const struct ats_ip *ip, uint16_t port,
			struct sockaddr_storage *ss);
void ibl_record_from_sr(const struct sr_record *r, struct ibats_record *out);
/* An array of n public records from n ServiceRecords (n may be 0). */
int ibl_records_from_sr(const struct sr_record *r, size_t n,
			struct ibats_record **out);
/* An atsd "ERR CODE" name as -errno. */
int ibl_agent_errno(const char *code);
/* 1 when an OK answer's records are atsd's local ones (ATSD_PROTO_REC_LOCAL). */
int ibl_reply_local(const struct atsd_client_reply *rep);
/* The atsd reply's record lines as public records; -ENOENT for none.
 * why gets atsd's ERR text, or the record line it could not parse. */
int ibl_records_from_reply(const struct atsd_client_reply *rep,
			   struct ibats_record **out, size_t *n,
			   char *why, size_t why_len);

/* atsd's answer to "lid LID": 0 with the port GUID and base LID; the ERR
 * code as -errno; -EPROTO for an answer that is not one such line. why
 * gets atsd's ERR text or the line it could not parse. */
int ibl_lid_from_reply(const struct atsd_client_reply *rep, uint64_t *guid, uint16_t *base,
		       char *why, size_t why_len);
/* The port that holds a unicast lid, its GUID and base LID: atsd's "lid"
 * when atsd runs, else the SA's NodeRecord (as lookup(): ibats_lookup_info
 * tells how it went). -ENOENT when no port holds it. */
int ibl_lid_owner(struct ibats *h, uint16_t lid, uint64_t *guid, uint16_t *base);

/* The checks of ibats_check_peer_lid before the LID's owner is asked:
 * the claimed GID under the local port's subnet prefix, a unicast LID.
 * 0 to go on, -EACCES with why filled. */
int ibl_peer_claim_check(const uint8_t local_gid[16], const uint8_t req_gid[16],
			 uint16_t req_lid, char *why, size_t why_len);
/* Whether the port that holds req_lid is the claimed GID's: lookup is
 * what ibl_lid_owner returned (0 with guid and base). 0 when it is;
 * -EACCES when another port or none holds the LID; the lookup's -errno
 * when it failed. why says which. */
int ibl_peer_lid_decide(const uint8_t req_gid[16], uint16_t req_lid, int lookup,
			uint64_t guid, uint16_t base, char *why, size_t why_len);

/* The anti-spoof decision of ibats_check_peer: lookup is what the primary
 * lookup of the requester's GID returned (0 with *primary filled). */
int ibl_peer_decide(int lookup, const struct ibats_record *primary,
		    const struct sockaddr *a11_src, char *why, size_t why_len);

#endif
