/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* SA client: SubnAdm Get/Set/Delete/GetTable of ServiceRecords, the
 * records needed to enumerate ports and paths, and multicast joins, over
 * one mport. */
#ifndef IBATS_SA_CLIENT_H
#define IBATS_SA_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "mcm.h"
#include "mport.h"
#include "nr.h"
#include "sa.h"
#include "sr.h"

struct sa_client;

enum sa_client_rmpp_mode {
	SA_CLIENT_RMPP_AUTO = 0, /* try GetTable, fall back to Get walks when cut */
	SA_CLIENT_RMPP_ON,
	SA_CLIENT_RMPP_OFF,      /* never trust GetTable beyond one record */
};

struct sa_client_opts {
	unsigned timeout_ms;
	unsigned retries;
	uint64_t sm_key;
	enum sa_client_rmpp_mode rmpp;
};

#define SA_CLIENT_TIMEOUT_MS_DEFAULT 500
#define SA_CLIENT_RETRIES_DEFAULT 3

int sa_client_init(struct sa_client **out, struct mport *port,
		   const struct sa_client_opts *o);
void sa_client_fini(struct sa_client *sa);

/* MAD status of the last answer (0 when none or success). */
uint16_t sa_client_last_status(const struct sa_client *sa);
/* Whether GetTable answers carry several records: 1 seen, 0 seen cut
 * (or disabled), -1 not known yet. */
int sa_client_rmpp_state(const struct sa_client *sa);
const struct mport_info *sa_client_port(const struct sa_client *sa);
/* SA requests sent so far (a retry of one is the same request). */
uint64_t sa_client_requests(const struct sa_client *sa);
/* The SA agent of the port, for requests a caller pipelines itself
 * (mport_send_req + mport_wait: the capacity bench). */
int sa_client_agent(const struct sa_client *sa);
/* Whether requests carry an SM_Key (the SA then shows ServiceKeys and
 * answers PKeyTableRecord queries). */
int sa_client_keyed(const struct sa_client *sa);

/* Raw request: returns the decoded header and the payload (malloc'ed).
 * SA errors come back as -errno (sa_status_to_errno) with the payload
 * freed. */
struct sa_client_answer {
	struct sa_hdr hdr;
	uint8_t *mad;      /* whole answer */
	size_t mad_len;
	const uint8_t *data; /* points into mad */
	size_t data_len;
};
int sa_client_request(struct sa_client *sa, uint8_t method, uint16_t attr_id,
	       uint64_t comp_mask, const uint8_t *rec, size_t rec_len,
	       struct sa_client_answer *ans);
void sa_client_answer_free(struct sa_client_answer *ans);

/* sa_client_request in steps, for a caller that keeps several requests
 * in flight (host/ats_window.h). refresh reads the port (the SM may have
 * moved): -ENETDOWN when it is not active or has no SM. encode builds
 * the request (MAD_SIZE bytes at req, TID 0 for the caller to stamp)
 * for the SM refresh last saw, and counts it. rpc_opts gives the
 * timeouts sa_client_request would use. decode judges the answer mad
 * (malloc'ed, owned by ans afterwards, freed on error) as
 * sa_client_request does. */
int sa_client_refresh(struct sa_client *sa);
int sa_client_encode(struct sa_client *sa, uint8_t method, uint16_t attr_id, uint64_t comp_mask,
		     const uint8_t *rec, size_t rec_len, uint8_t *req, struct mport_dest *dst);
void sa_client_rpc_opts(const struct sa_client *sa, uint8_t method, struct mport_rpc_opts *ro);
int sa_client_decode(struct sa_client *sa, uint8_t method, uint16_t attr_id, uint8_t *mad,
		     size_t mad_len, struct sa_client_answer *ans);
struct mport *sa_client_mport(const struct sa_client *sa);
/* The shape of a GetTable answer; -EMSGSIZE when it was cut (no RMPP on
 * the path: said once, and GetTable is not tried again). */
int sa_client_table(struct sa_client *sa, const struct sa_client_answer *ans, size_t rec_size,
		    struct sa_table_shape *shape);

/* ServiceRecord operations. out may be NULL. */
int sa_client_sr_set(struct sa_client *sa, const struct sr_record *r, uint64_t mask,
	      struct sr_record *out);
int sa_client_sr_delete(struct sa_client *sa, const struct sr_record *r,
		 uint64_t mask, struct sr_record *out);
/* -ENOENT no record, -E2BIG more than one. */
int sa_client_sr_get(struct sa_client *sa, const struct sr_record *q, uint64_t mask,
	      struct sr_record *out);
/* All matches. -EMSGSIZE when the answer was cut (no RMPP); *recs then
 * holds nothing. */
int sa_client_sr_get_table(struct sa_client *sa, const struct sr_record *q,
		    uint64_t mask, struct sr_record **recs, size_t *n);
/* The records of a ServiceRecord GetTable answer to the query encoded
 * at qbuf (SR_SIZE bytes) with mask; -EMSGSIZE when it was cut. */
int sa_client_sr_table(struct sa_client *sa, const struct sa_client_answer *ans, const uint8_t *qbuf,
		       uint64_t mask, struct sr_record **recs, size_t *n);

/* A path from this port to a GID (PathRecord, IBTA Vol 1 15.2.5.16). */
struct sa_client_path_info {
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid, pkey;
	uint32_t flow_label;
	uint8_t hop_limit, tclass, sl, mtu, rate, pkt_life;
};
int sa_client_path(struct sa_client *sa, const uint8_t *dgid, struct sa_client_path_info *p);
/* The first PathRecord (Table 205) of a GetTable answer's data for dgid:
 * -ENOENT when there is none, -EPROTO when it leads elsewhere. */
int sa_client_path_decode(const uint8_t *d, size_t len, const uint8_t *dgid, struct sa_client_path_info *p);

/* A CA port as NodeRecord shows it. */
struct sa_client_ca_port {
	uint8_t gid[16];       /* local subnet prefix + port GUID */
	uint16_t lid;
	uint8_t port_num;
	uint64_t sys_guid;
};

/* All CA ports, in LID order: one NodeRecord SubnAdmGetTable while RMPP
 * works, else a SubnAdmGet per LID (one MAD each) that stops after gap
 * consecutive empty LIDs. SA_CLIENT_PORTS_GAP is the gap all callers use, so
 * that they all see the same ports. */
#define SA_CLIENT_PORTS_GAP 64
int sa_client_ports(struct sa_client *sa, unsigned gap, struct sa_client_ca_port **ports, size_t *n);
/* The CA ports of nrec NodeRecords at stride rec_size in data (a GetTable
 * answer's, sa_table_shape), GIDs under prefix, in LID order; -EPROTO when
 * the stride is short of a NodeRecord. */
int sa_client_ports_decode(const uint8_t *prefix, const uint8_t *data, size_t nrec, size_t rec_size,
		    struct sa_client_ca_port **ports, size_t *n);

/* The port GUID of the node at lid (NodeRecord SubnAdmGet; a switch's is
 * its port 0's): -ENOENT when no node holds lid. */
int sa_client_port_guid(struct sa_client *sa, uint16_t lid, uint64_t *guid);
/* The NodeRecord of the port that holds lid (SubnAdmGet by LID): OpenSM
 * matches any LID of the port's range, base to base + 2^LMC - 1
 * (osm_sa_node_record.c), and answers with the base LID; -ENOENT when no
 * port holds it. */
int sa_client_node_at_lid(struct sa_client *sa, uint16_t lid, struct nr_record *out);

/* The NodeRecord of the port with port_guid (SubnAdmGet, PortGUID in the
 * mask: its LID, NodeGUID and NodeDescription as saquery -N shows them);
 * -ENOENT when no port has it, -EPROTO when the answer is another port's. */
int sa_client_node_of_port(struct sa_client *sa, uint64_t port_guid, struct nr_record *out);

/* The first 32 PKeys of a port (PKeyTableRecord block 0, IBTA Vol 1
 * 15.2.5.11). Returns how many non-zero entries it put in pkeys. */
int sa_client_port_pkeys(struct sa_client *sa, uint16_t lid, uint8_t port_num,
		  uint16_t *pkeys, size_t max);

/* Join (SubnAdmSet) or leave (SubnAdmDelete) group mgid as a full member;
 * the group's record comes back in *out. */
int sa_client_mcm_join(struct sa_client *sa, const uint8_t *mgid,
		struct mcm_record *out);
int sa_client_mcm_leave(struct sa_client *sa, const uint8_t *mgid);
/* Our port's membership of mgid: 0 (and the record), -ENOENT if the port
 * is no member, or another -errno. */
int sa_client_mcm_member(struct sa_client *sa, const uint8_t *mgid,
		  struct mcm_record *out);

#endif
