/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The plugin's one door into OpenSM's internals: the osm_opensm_t it was
 * created with, osm->lock, the subnet's ports and SM state, the SA's
 * ServiceRecord list (osm_svcr_t), its dispatcher and lease timer, and
 * OpenSM's log. Every other module reaches them through these functions,
 * in plain C types and opaque handles: no OpenSM header is included
 * here, so only glue.c and osmats.c (the entry points) see OpenSM's
 * types. */
#ifndef IBATS_GLUE_H
#define IBATS_GLUE_H

#include <stddef.h>
#include <stdint.h>

/* OpenSM's osm_opensm_t, as create() gets it. */
struct osm_opensm;

/* From create(): refuses (-EPROTO, ERR 7A4A logged) an OpenSM whose
 * osm_opensm_t is not laid out as the headers say, or whose
 * event_plugin_name does not name the plugin (name). */
int glue_init(struct osm_opensm *osm, const char *name);
/* The OpenSM version the plugin was built against (OSM_VERSION). */
const char *glue_osm_version(void);

/* OpenSM's options, in host order. */
const char *glue_plugin_options(void);
const char *glue_dump_dir(void);
/* The SA database file loaded at a first master sweep, or NULL. */
const char *glue_sa_db_file(void);
uint64_t glue_sa_key(void);
uint64_t glue_subnet_prefix(void);
/* OpenSM's lmc: each end port holds 2^lmc LIDs from an aligned base. */
uint8_t glue_lmc(void);
uint64_t glue_sm_port_guid(void);
/* Whether any host reads this SM's SM_Key with SubnGet(SMInfo): M_Key
 * protection is off. */
int glue_sm_key_readable(void);
/* How this SM polls a master: every timeout_ms, taking over after
 * retries silent polls. */
void glue_polling(unsigned *timeout_ms, unsigned *retries);

/* The SM: its state (SMInfo:SMState), whether it is master or standby,
 * and whether it is master past its first master sweep ("steady": the
 * SA database is neither loaded nor cleaned any more). */
uint8_t glue_sm_state(void);
int glue_is_master(void);
int glue_is_standby(void);
int glue_steady(void);
uint16_t glue_sm_lid(void);
/* In a sweep that makes a STANDBY SM master (failover or handover). */
int glue_leaving_standby(void);
/* A standby's master (the SM it polls): its port's LID and GUID; -ENOENT
 * when it knows none. Takes the shared lock. */
int glue_master_sm(uint16_t *lid, uint64_t *guid);
/* The GUID of the port at lid, or 0 when there is none. Takes the
 * shared lock. */
uint64_t glue_port_of_lid(uint16_t lid);

/* osm->lock: shared for readers, exclusive for whoever changes the
 * ServiceRecord list. */
void glue_lock_shared(void);
void glue_lock_excl(void);
void glue_unlock(void);

/* Ports, under either lock. A GID belongs to the port whose GUID or
 * alias GUID is its interface ID, whatever the subnet prefix. */
int glue_gid_on_fabric(const uint8_t *gid);
/* That port's GUID, or 0 when none (the per-port cap's account). */
uint64_t glue_port_of_gid(const uint8_t *gid);
/* The SystemImageGUID of its node, or 0. */
uint64_t glue_sys_guid_of(const uint8_t *gid);
/* Whether its port holds pkey (base P_Key compared, as OpenSM does). */
int glue_gid_has_pkey(const uint8_t *gid, uint16_t pkey);
/* A ServiceRecord request as the SA's dispatcher hands it (OpenSM's
 * osm_madw_t, opaque to the handlers), and its requester's port
 * (osm_physp_t, opaque). */
struct glue_sa_req;
struct glue_port;
/* The requester's port (NULL when its LID is unknown), its GUID, and
 * whether it holds pkey (base P_Key compared, as OpenSM does). */
const struct glue_port *glue_requester(struct glue_sa_req *req);
uint64_t glue_port_guid(const struct glue_port *port);
int glue_port_has_pkey(const struct glue_port *port, uint16_t pkey);
/* The requester's LID, and the request's SA MAD: its bytes (written in
 * place by a Set's lease clamp) and their number. */
uint16_t glue_req_lid(const struct glue_sa_req *req);
uint8_t *glue_req_mad(struct glue_sa_req *req, size_t *size);
/* OpenSM's name of an SA method ("SubnAdmSet", ...), for log lines. */
const char *glue_method_str(uint8_t method);

/* OpenSM's log: level as OSM_LOG's (OSM_LOG_ERROR, _INFO, _VERBOSE),
 * the line prefixed with func as OSM_LOG() does. */
enum glue_log_level { GLUE_LOG_ERROR, GLUE_LOG_INFO, GLUE_LOG_VERBOSE };
void glue_logf(enum glue_log_level level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define GLUE_LOG(level, ...) glue_logf(level, __func__, __VA_ARGS__)

/* The SA's ServiceRecord list (osm->subn.sa_sr_list). A record is an
 * opaque handle whose SR_SIZE wire bytes glue_sr_rec() gives; they stay
 * where they are until the record is removed. */
size_t glue_sr_count(void);
/* Visit every record, newest first or oldest first, until fn returns
 * nonzero. fn may remove the record it is given (exclusive lock). */
typedef int (*glue_sr_fn)(void *rec, const uint8_t *bytes, void *arg);
void glue_sr_walk(int oldest_first, glue_sr_fn fn, void *arg);
const uint8_t *glue_sr_rec(const void *rec);
/* Where those bytes are in every record: glue_sr_rec(rec) - rec. */
size_t glue_sr_rec_offset(void);
/* Exclusive lock: a new record at the head (NULL when out of memory),
 * one replaced in place by bytes of the same RID, one removed and
 * freed. */
void *glue_sr_insert(const uint8_t *bytes);
void glue_sr_replace(void *rec, const uint8_t *bytes);
void glue_sr_remove(void *rec);
/* After a Set with a finite lease: OpenSM's lease timer within a second. */
void glue_sr_lease_started(void *rec);
/* Seconds of a record's lease left (SR_LEASE_INFINITE when it has none);
 * and setting them, as the lease timer counts them (either lock). */
uint32_t glue_sr_lease_left(const void *rec);
void glue_sr_set_lease_left(void *rec, uint32_t left);
/* The list changed outside a Set: have sa_db_dump write it. */
void glue_sr_dirty(void);

/* Replace OpenSM's ServiceRecord handlers on both SA dispatchers with
 * set (the Set dispatcher) and get (the query one), and OpenSM's lease
 * timer with the same walk that tells expired() of each record it removes
 * (exclusive lock held) and runs after_lease when done. From create(),
 * before the SA is bound. -EBUSY leaves OpenSM's handlers in place. */
typedef void (*glue_sa_fn)(struct glue_sa_req *req);
int glue_sa_hook(glue_sa_fn set, glue_sa_fn get,
		 void (*expired)(const uint8_t *bytes), void (*after_lease)(void));
/* Hand a request to OpenSM's own ServiceRecord handler. */
void glue_sa_fallback(struct glue_sa_req *req);
/* Answer with n records of SR_SIZE wire bytes each, in their order, as
 * osm_sa_respond() does; -ENOMEM when their list cannot be made (then
 * nothing was sent). */
int glue_sa_respond(struct glue_sa_req *req, const uint8_t *recs, size_t n);
/* Answer with an SA status (SA_STATUS_*, sa.h: unshifted). */
void glue_sa_status(struct glue_sa_req *req, uint16_t sa_status);
/* Answer with the one record rec (SR_SIZE wire bytes); -ENOMEM (then
 * NO_RESOURCES was sent). */
int glue_sa_respond_one(struct glue_sa_req *req, const uint8_t *rec);

/* A request kept past its handler (OpenSM puts the madw back in its pool
 * when the handler returns): its address and MAD, enough to answer it
 * later from any thread. Opaque: the keeper provides glue_req_size()
 * bytes, aligned as max_align_t. */
struct glue_req;
size_t glue_req_size(void);
void glue_req_save(const struct glue_sa_req *req, struct glue_req *out);
/* Answer a kept request with rec (SR_SIZE wire bytes); nothing once
 * OpenSM is shutting down (the SA's port may be unbound). */
void glue_req_respond_one(const struct glue_req *req, const uint8_t *rec);

#endif
