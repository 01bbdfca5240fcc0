/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A secret key in a file of its own, as ssh and chrony keep theirs: one
 * line of hex digits (a newline may end it) in a regular file, not a
 * symbolic link, owned by root or by this process's effective user,
 * that neither group nor others may read or write. The plugin's
 * replication key (plugin/replauth.h) is read with it, and atsctl
 * check-config reads it the same way, so a key file that passes the
 * check loads in OpenSM. */
#ifndef IBATS_KEYFILE_H
#define IBATS_KEYFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define KEYFILE_MIN 32 /* bytes: SHA-256's output (RFC 2104 3) */
#define KEYFILE_MAX 64 /* its block: a longer key would be hashed to 32 */

/* The key into key (*len bytes, KEYFILE_MIN..KEYFILE_MAX). 0, or -errno
 * with err set to "path: why" or "path:line: why"; key zeroed then. */
int keyfile_read(const char *path, uint8_t key[KEYFILE_MAX], size_t *len, char *err,
		 size_t errlen);
/* The same checks for a reader running as uid (root always passes the
 * owner's check): keyfile_read is keyfile_read_as(geteuid()). atsctl
 * check-config asks for OpenSM's root, whoever runs it. */
int keyfile_read_as(const char *path, uid_t uid, uint8_t key[KEYFILE_MAX], size_t *len,
		    char *err, size_t errlen);

#endif
