/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The records atsd registered, kept in a small file across crashes and
 * restarts, so that a restarted atsd removes only its own stale records
 * and leaves alone what an admin registered by hand on the same GID. */
#ifndef IBATS_AGENT_STATE_H
#define IBATS_AGENT_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* Reads the file written for gid. 0 with *out (may be empty); -ENOENT
 * when there is no file; -EBADMSG when it is damaged, written for
 * another GID, a symlink, not a regular file or another user's (what
 * for in *why). */
int agent_state_load(const char *path, const uint8_t *gid, struct plan_held_rec **out,
		     size_t *n, const char **why);
/* Replaces the file atomically (temporary file, fsync, rename, fsync of
 * the directory). 0 or -errno. */
int agent_state_save(const char *path, const uint8_t *gid, const struct plan_held_rec *r,
		     size_t n);

/* Whether path may serve as the state file: its directory safe from other
 * users (safe_dir.h; one that does not exist yet atsd makes 0755) and the
 * file, when there, a regular file of root's or atsd's, no symlink (read
 * through it at start, atsd would take another file's lines for its
 * records). 0, or -errno with the reason in why. */
int agent_state_check(const char *path, char *why, size_t len);

/* A record the SA holds and no state file knows outlives a crash of atsd
 * for ever: when the file could not list the Sets of a plan, only Sets of
 * records it already lists (filed: as last written or read) may go out.
 * Moves the others to the end of plan, order kept otherwise; the number
 * of actions that may go out. */
size_t agent_state_gate(struct plan_action *plan, size_t n, const struct plan_held_rec *filed,
			size_t nfiled);

#endif
