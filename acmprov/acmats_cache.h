/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The ats provider's answers, per port, for ats_cache_ttl: an IP's GID in
 * a partition (the ATS record's) and the path to a GID in a partition
 * (the SA's PathRecord, 64 bytes). Emptied on the port's events (a new
 * SM, a client reregister, a LID or P_Key change). Locked: ibacm's
 * server thread, its SA thread and the provider's worker all use it. */
#ifndef IBATS_ACMATS_CACHE_H
#define IBATS_ACMATS_CACHE_H

#include <stdint.h>

#include "core/ats.h"

/* Entries per port: the oldest gives way. */
#define ACMATS_CACHE_MAX 1024

struct acmats_cache;

int acmats_cache_init(struct acmats_cache **out, unsigned ttl_s);
void acmats_cache_fini(struct acmats_cache *c);
/* 0 and gid, or -ENOENT. */
int acmats_cache_gid(struct acmats_cache *c, const struct ats_ip *ip, uint16_t pkey,
		     uint8_t *gid);
/* The flushes so far: an answer asked for before a flush is not kept
 * (the put's gen, read before asking, is then stale). */
uint64_t acmats_cache_gen(struct acmats_cache *c);
void acmats_cache_put_gid(struct acmats_cache *c, uint64_t gen, const struct ats_ip *ip,
			  uint16_t pkey, const uint8_t *gid);
/* 0 and the path's 64 bytes, or -ENOENT. */
int acmats_cache_path(struct acmats_cache *c, const uint8_t *dgid, uint16_t pkey,
		      uint8_t *path);
void acmats_cache_put_path(struct acmats_cache *c, uint64_t gen, const uint8_t *dgid,
			   uint16_t pkey, const uint8_t *path);
void acmats_cache_flush(struct acmats_cache *c);

#endif
