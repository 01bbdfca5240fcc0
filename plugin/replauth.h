/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The credential of SM-to-SM replication (doc/design.md, "Credential"):
 * a key every SM of the fabric reads from the same key file, and the
 * authentication tag it puts in every replication MAD (lib/core/repl.h,
 * REPL_OFF_TAG): HMAC-SHA-256 (RFC 2104) truncated to its first 128
 * bits, as RFC 4868 2.6 truncates it for IPsec. OpenSM's SM_Key is no
 * credential: any host reads it with SubnGet(SMInfo) unless M_Key
 * protection is on (osm_sminfo_rcv.c). The key stays in this module. */
#ifndef IBATS_REPLAUTH_H
#define IBATS_REPLAUTH_H

#include <stddef.h>
#include <stdint.h>

/* Load the key from path (lib/core/keyfile.h: one line of hex digits, a
 * file only root or this process's user can read). 0, or -errno with
 * err set to "path: why" or "path:line: why". */
int replauth_init(const char *path, char *err, size_t errlen);
/* Forget the key (zeroed). */
void replauth_fini(void);

/* Put the tag into a whole MAD (MAD_SIZE bytes) built by
 * repl_*_encode, TID included. Any thread, once the key is loaded. */
void replauth_sign(uint8_t *mad);
/* 0 when mad (len bytes) carries the tag of its contents under the key;
 * -EMSGSIZE short, -EBADMSG otherwise (no key loaded included). */
int replauth_verify(const uint8_t *mad, size_t len);

#endif
