/* The records atsd registered, kept in a small file across crashes and
 * restarts, so that a restarted atsd removes only its own stale records
 * and leaves alone what an admin registered by hand on the same GID. */
#ifndef IBATS_AGENT_STATE_H
#define IBATS_AGENT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define AGENT_STATE_DEFAULT "/var/lib/ibats/atsd.state"

/* Reads the file written for gid. 0 with *out (may be empty); -ENOENT
 * when there is no file; -EBADMSG when it is damaged or written for
 * another GID (what for in *why). */
int astate_load(const char *path, const uint8_t *gid, struct held_rec **out,
		size_t *n, const char **why);
/* Replaces the file atomically (temporary file, fsync, rename, fsync of
 * the directory). 0 or -errno. */
int astate_save(const char *path, const uint8_t *gid, const struct held_rec *r,
		size_t n);

#endif
