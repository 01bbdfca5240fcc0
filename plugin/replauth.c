/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The replication credential (see replauth.h). Crypto is nettle's: no
 * global state, no init and no atexit handler inside OpenSM's process
 * (doc/design.md, "Credential"). */
#include "replauth.h"

#include <errno.h>
#include <string.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

#include "core/keyfile.h"
#include "core/mad.h"
#include "core/repl.h"

/* Domain separation: no other MAC made with this key can pass for one
 * of these, nor one of a later layout. */
static const char DOMAIN[] = "ibats-repl-v2";

static struct {
	int on;
	/* Keyed once: each MAC starts from a copy (nettle's contexts are
	 * plain structs), so threads share it read-only. */
	struct hmac_sha256_ctx keyed;
} A;

int replauth_init(const char *path, char *err, size_t errlen)
{
	uint8_t key[KEYFILE_MAX] = { 0 };
	size_t len = 0;
	int ret;

	replauth_fini();
	ret = keyfile_read(path, key, &len, err, errlen);
	if (!ret) {
		hmac_sha256_set_key(&A.keyed, len, key);
		A.on = 1;
	}
	explicit_bzero(key, sizeof(key));
	return ret;
}

void replauth_fini(void)
{
	/* nettle has no secure zero of its own. */
	explicit_bzero(&A.keyed, sizeof(A.keyed));
	A.on = 0;
}

/* The tag of mad: the domain, the method, the attribute modifier, the
 * low 32 bits of the TID (the kernel puts its agent's own in the high
 * ones of a request it sends: drivers/infiniband/core/user_mad.c), and
 * the class data but the tag. The epoch, sequence and TID are in it: a
 * standby takes an answer only to its outstanding pull's TID and only
 * the next sequence of its epoch (standby.c), so an answer recorded
 * earlier does not pass again. */
static void tag(const uint8_t *mad, uint8_t *out)
{
	struct hmac_sha256_ctx c = A.keyed;

	hmac_sha256_update(&c, sizeof(DOMAIN) - 1, (const uint8_t *)DOMAIN);
	hmac_sha256_update(&c, 1, mad + MAD_OFF_METHOD);
	hmac_sha256_update(&c, 4, mad + MAD_OFF_ATTR_MOD);
	hmac_sha256_update(&c, 4, mad + MAD_OFF_TID + 4);
	hmac_sha256_update(&c, REPL_OFF_TAG - REPL_OFF_EPOCH, mad + REPL_OFF_EPOCH);
	hmac_sha256_update(&c, MAD_SIZE - REPL_OFF_RECORD, mad + REPL_OFF_RECORD);
	/* RFC 2104 5: the leftmost bits. */
	hmac_sha256_digest(&c, REPL_TAG_SIZE, out);
	explicit_bzero(&c, sizeof(c));
}

void replauth_sign(uint8_t *mad)
{
	tag(mad, mad + REPL_OFF_TAG);
}

int replauth_verify(const uint8_t *mad, size_t len)
{
	uint8_t t[REPL_TAG_SIZE];
	int ok;

	if (len < MAD_SIZE)
		return -EMSGSIZE;
	if (!A.on)
		return -EBADMSG;
	tag(mad, t);
	ok = memeql_sec(t, mad + REPL_OFF_TAG, REPL_TAG_SIZE);
	return ok ? 0 : -EBADMSG;
}
