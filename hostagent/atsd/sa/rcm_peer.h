/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The listener's judgement of a connection request (rcm.h): who is
 * calling, then whether ATS agrees with the Annex A11 source it names.
 *
 * Who is calling: the REQ's primary path names the requester's GID and
 * LID, both written by the requester. The LID is where our REP and every
 * data packet go (the kernel's passive path: cm.c
 * cm_format_paths_from_req), so the claimed GID is believed only when the
 * SA says its port owns that LID (NodeRecord by LID, which OpenSM matches
 * over the port's LMC range: osm_sa_node_record.c). A host can still
 * name its own port truthfully, or name another's LID blindly: the REP
 * then goes to that port, whose CM knows no such connection, and no RTU
 * can follow. A routed request carries the router's LID (cm.c
 * cm_process_routed_req) and the GRH's source GID is not given to
 * processes: a claim from off this subnet cannot be verified. */
#ifndef IBATS_RCM_PEER_H
#define IBATS_RCM_PEER_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"
#include "host/rcm_conf.h"

struct sa_client;

/* Passive connections, below rcm.h's table (RCM_MAX_CONNS) so that
 * atsd's own connects keep slots: at most RCM_PEER_MAX_ESTABLISHED with the
 * RTU, RCM_PEER_MAX_PER_PEER of them from one requester port, and
 * RCM_PEER_MAX_HALF_OPEN awaiting it. Only the RTU shows that the REP reached
 * the port the REQ named: a host may name another port's GID and LID
 * truthfully, the REP then goes there and is dropped (cm.c
 * cm_rep_handler), so half-open requests count against nobody's share
 * and, when their pool is full, the oldest makes room (a SYN cache):
 * resending REQs in someone's name cannot lock that port out. */
#define RCM_PEER_MAX_ESTABLISHED 40
#define RCM_PEER_MAX_HALF_OPEN 8
#define RCM_PEER_MAX_PASSIVE (RCM_PEER_MAX_ESTABLISHED + RCM_PEER_MAX_HALF_OPEN)
#define RCM_PEER_MAX_PER_PEER 8
/* A half-open request younger than this is not dropped for a newer one
 * (its RTU may already wait behind the requests read first): the newer
 * one is refused instead. A few CM round trips: longer would let a
 * requester that resends fast enough keep every newcomer out. */
#define RCM_PEER_HALF_OPEN_MIN_MS 20

/* The verified requester: the port that owns the REQ's LID. */
struct rcm_peer {
	uint64_t port_guid;
	int off_subnet;         /* the claimed GID's prefix is not ours */
};

/* Whether a claim holds, given what the SA said of lid: owner_ret 0 with
 * owner (its port GUID), -ENOENT (no port has lid) or another -errno (no
 * answer). our_gid is this port's GID. Same subnet: the claimed GID's
 * interface ID must be the owner's. Off the subnet: refused under
 * cm_policy agree (nothing to verify the GID by), else the owner (the
 * router) is who calls. 0 with *peer, or -EACCES (or the SA's -errno)
 * with the REJ text in why. */
int rcm_peer_decide(const struct rcm_conf *conf, const uint8_t *our_gid, const uint8_t *gid,
		    uint16_t lid, int owner_ret, uint64_t owner, struct rcm_peer *peer,
		    char *why, size_t len);

/* rcm_peer_decide with the SA's answer for lid (sa's port is ours). */
int rcm_peer_verify(struct sa_client *sa, const struct rcm_conf *conf, const uint8_t *gid,
		    uint16_t lid, struct rcm_peer *peer, char *why, size_t len);

/* The decision on a verified request with Annex A11 source IP src, given
 * the requester's ATS primary (NULL: none). 0 accept, else -EACCES with
 * the REJ text in why. */
int rcm_peer_judge(const struct rcm_conf *conf, const struct ats_ip *src,
		   const struct ats_ip *primary, char *why, size_t len);

/* rcm_peer_judge with the requester GID's primary read from the SA in
 * pkey's partition (cm_policy agree: DAT Collaborative ATS v1 sections
 * 2.2 and 5); a failed lookup refuses. */
int rcm_peer_check(struct sa_client *sa, const struct rcm_conf *conf, const uint8_t *gid,
		   uint16_t pkey, const struct ats_ip *src, char *why, size_t len);

/* Whether the listener takes one more established connection:
 * established passive ones held now (RCM_PEER_MAX_ESTABLISHED at most) and
 * those of this requester port (RCM_PEER_MAX_PER_PEER). 0, or -ENOSPC /
 * -EDQUOT with the REJ text in why. */
int rcm_peer_admit(size_t established, unsigned of_peer, char *why, size_t len);

#endif
