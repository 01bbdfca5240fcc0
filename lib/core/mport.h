/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* One CA port opened through libibumad: port attributes, agent
 * registration and request/response exchanges with TID matching,
 * timeouts and retries. Not thread-safe: one caller at a time. */
#ifndef IBATS_MPORT_H
#define IBATS_MPORT_H

#include <stddef.h>
#include <stdint.h>

struct mport;

struct mport_info {
	char ca[64];
	int portnum;
	uint16_t lid;
	uint8_t lmc;
	uint16_t sm_lid;
	uint8_t sm_sl;
	int state; /* 4 = Active */
	uint8_t gid[16]; /* subnet prefix + port GUID */
	uint64_t port_guid;
};

struct mport_dest {
	uint16_t lid;
	uint32_t qpn;
	uint32_t qkey;
	uint8_t sl;
};

struct mport_rpc_opts {
	unsigned timeout_ms; /* per attempt */
	unsigned retries;    /* extra attempts after the first */
	/* Each attempt waits twice as long as the last, up to 16 times the
	 * first: for an answer of unknown length (a GetTable's whole RMPP
	 * transfer must arrive within one attempt). */
	int grow;
	/* dst is the port's SM (the SA): a retry goes to the SM LID the port
	 * names then, so a request outlives a failover by one attempt, not
	 * all of them against a dead SM. */
	int follow_sm;
};

/* ca NULL and portnum 0 pick the first active port, like umad tools. */
int mport_open(struct mport **out, const char *ca, int portnum);
/* The CA port whose port GUID is guid. */
int mport_open_guid(struct mport **out, uint64_t guid);
/* close(2) of the fd and nothing else (no unregistration, no MAD): a
 * child of fork() drops its copy of a parent's port with it, and the
 * parent's agents stay registered. */
void mport_close(struct mport *p);
/* The index our requests go out at: that of the default P_Key in the
 * port's table (n entries, host order), the full member first, else the
 * limited one, else 0, as the kernel's own SA client picks it (sa_query.c
 * update_sm_ah, device.c ib_find_pkey). OpenSM keeps the default P_Key
 * at index 0 (osm_pkey_mgr.c), where a limited member's 0x7FFF reaches
 * the SA's full 0xFFFF; a partition configured indx0 takes index 0, and
 * the default moves. Set at open and at each mport_query. */
uint16_t mport_default_pkey_index(const uint16_t *pkeys, unsigned n);
/* The port as its sysfs files show it now: the kernel rewrites them as
 * the port's PortInfo changes (LID, SM LID and SL, LMC, state). */
int mport_query(struct mport *p, struct mport_info *info);

/* Each returns the agent id or -errno; -EIO when the port refused the
 * agent (libibumad's umad_register reports any refused registration as
 * -1: another agent, the kernel's CM for one, already serves the class's
 * methods). mport_register_oui goes through umad_register2, which passes
 * the kernel's errno on: -EINVAL for methods another agent serves
 * (mad.c method_in_use). */
int mport_register(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
		   uint8_t rmpp_version);

/* Agent for a class that receives requests of one method (CM: Send). */
int mport_register_serve(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
			 uint8_t method);

/* Agent for a vendor range-2 class of an OUI, at one class version: the
 * kernel routes a request by (class version, class, OUI, method)
 * (mad.c find_mad_agent), so a version-2 request never reaches a
 * version-1 agent. serve: also receive requests (Get) for it, answered by
 * the responder. */
int mport_register_oui(struct mport *p, uint8_t mgmt_class, uint8_t class_version,
		       uint8_t rmpp_version,
		       uint32_t oui, int serve);

/* Answers requests that arrive for classes this port serves: fills
 * resp[0..cap) (cap >= the request's length and MAD_SIZE) and returns its
 * length, or 0 to drop the request. */
typedef size_t (*mport_answer_fn)(const uint8_t *req, size_t len, uint8_t *resp,
				  size_t cap, void *ctx);
void mport_set_responder(struct mport *p, mport_answer_fn fn, void *ctx);

/* A request to be answered later, from any thread: inside the answer
 * function, mport_requester() keeps where the request came from (its
 * source LID too, which the fabric sets, not the sender) and the answer
 * function returns 0; mport_answer_held() sends the answer (whose TID
 * must be the request's). */
struct mport_held {
	uint8_t umad[128]; /* libibumad's header: address and TID route */
	int agent;
	uint16_t slid;
};
int mport_requester(const struct mport *p, struct mport_held *h);
int mport_answer_held(struct mport *p, const struct mport_held *h,
		      const uint8_t *mad, size_t len);

/* The port's file (the umad device), for poll(2) beside other files:
 * readable when a MAD waits. */
int mport_fd(const struct mport *p);
/* Wait up to timeout_ms for one MAD; answer it if it is a request.
 * 0 (something handled or nothing came), or -errno. */
int mport_serve(struct mport *p, int timeout_ms);

/* Send one MAD that expects no MAD-level response (CM messages are Sends). */
int mport_send(struct mport *p, int agent, const struct mport_dest *dst,
	       const uint8_t *mad, size_t len);
/* Send one request whose response is collected with mport_wait. The
 * kernel (ib_mad) passes a response up only while the request it answers
 * is outstanding, i.e. sent with a timeout: mport_send's responses are
 * dropped as unsolicited. One
 * that gets no response comes back as a status-only MAD, which
 * mport_wait skips. */
int mport_send_req(struct mport *p, int agent, const struct mport_dest *dst,
		   const uint8_t *mad, size_t len, unsigned timeout_ms);

/* Wait up to timeout_ms (0: only what has arrived) for a MAD match()
 * accepts, a kept stray first, and return it (malloc'ed); requests go to
 * the responder meanwhile, other responses are dropped. */
typedef int (*mport_match_fn)(const uint8_t *mad, size_t len, void *ctx);
int mport_wait(struct mport *p, int timeout_ms, mport_match_fn match, void *ctx,
	       uint8_t **mad, size_t *mad_len);

/* Keep up to n responses that mport_rpc receives for other requests
 * (a window of requests in flight beside it, host/ats_window.h), for
 * mport_wait to find: without, they are dropped. Bounded in bytes too. */
int mport_keep_strays(struct mport *p, unsigned n);

/* Sends req (at least 24 bytes, a full MAD) after stamping a fresh TID,
 * waits for the response with the same TID and class, and returns it in
 * *resp (malloc'ed, *resp_len bytes). Retries on timeout with a fresh
 * TID each time (the kernel refuses a request whose TID another still
 * waiting has), still taking a late answer to an earlier attempt.
 * Requests that arrive meanwhile go to the responder. -ETIMEDOUT when
 * every attempt timed out, -EIO when the port refused a send. */
int mport_rpc(struct mport *p, int agent, const struct mport_dest *dst,
	      uint8_t *req, size_t req_len, const struct mport_rpc_opts *o,
	      uint8_t **resp, size_t *resp_len);
/* Called by mport_rpc each time an attempt's time passes without its
 * answer (req: the request), before the next attempt or the -ETIMEDOUT:
 * a caller learns of a silent peer after one timeout, not after all the
 * retries (atsd's SA thread: sa_thread.c). */
typedef void mport_expired_fn(void *ctx, const uint8_t *req, size_t len);
void mport_on_expired(struct mport *p, mport_expired_fn *fn, void *ctx);
/* mport_rpc with the TID req holds (one of mport_new_tids'), every
 * attempt: for a request signed over its TID. A retry waits for the
 * kernel to hand the last attempt back (its ETIMEDOUT, a little after
 * the attempt's own time: the kernel's timer starts when the send
 * completes), so an attempt may last up to a second longer. */
int mport_rpc_tid(struct mport *p, int agent, const struct mport_dest *dst,
		  const uint8_t *req, size_t req_len, const struct mport_rpc_opts *o,
		  uint8_t **resp, size_t *resp_len);
/* n consecutive TIDs (low 32 bits; the fabric may rewrite the high ones)
 * that mport_rpc will not use, for requests sent with mport_send_req and
 * collected with mport_wait or with mport_rpc_tid. */
uint32_t mport_new_tids(struct mport *p, unsigned n);
/* The source LID of the last MAD received (mport_rpc's answer, say) or
 * handed back by mport_wait (a kept stray's too): the fabric sets it, not
 * the sender. mport_rpc takes an answer only from the LID it asked. */
uint16_t mport_last_slid(const struct mport *p);

#endif
