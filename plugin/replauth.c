/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The replication credential (see replauth.h). Crypto is nettle's: no
 * global state, no init and no atexit handler inside OpenSM's process
 * (doc/design.md, "Credential"). */
#include "replauth.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/hmac.h>
#include <nettle/memops.h>

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

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The file itself: ssh and chrony refuse a key file others can read
 * or replace, and so does this. */
static int open_checked(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path,
			 e == ELOOP ? "a symbolic link (the key file must be the file itself)" :
			 strerror(e));
		return -e;
	}
	if (fstat(fd, &st)) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", path, strerror(e));
		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -EINVAL;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s: owned by uid %u, neither root nor OpenSM's user (uid %u)",
			 path, (unsigned)st.st_uid, (unsigned)geteuid());
		close(fd);
		return -EPERM;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "%s: mode %04o lets group or others at the key (chmod 600)",
			 path, (unsigned)(st.st_mode & 07777));
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* One line of hex digits, a newline at most after it. 256 bytes decide:
 * a longer file has too many digits or a second line in them. */
static int parse(const char *path, const char *buf, size_t n, uint8_t *key, size_t *len,
		 char *err, size_t errlen)
{
	size_t i, digits;

	for (i = 0; i < n && hexval(buf[i]) >= 0; i++)
		if (i / 2 < REPLAUTH_KEY_MAX)
			key[i / 2] = (uint8_t)(key[i / 2] << 4 | hexval(buf[i]));
	digits = i;
	if (i < n && buf[i] != '\n') {
		snprintf(err, errlen, "%s:1: character %zu is not a hex digit", path, i + 1);
		return -EINVAL;
	}
	if (i < n && i + 1 < n) {
		snprintf(err, errlen, "%s:2: more than one line (the key is one line of hex digits)",
			 path);
		return -EINVAL;
	}
	if (digits % 2 || digits < 2 * REPLAUTH_KEY_MIN || digits > 2 * REPLAUTH_KEY_MAX) {
		snprintf(err, errlen, "%s:1: %zu hex digits: the key is %d to %d bytes, an even "
			 "number of digits from %d to %d", path, digits, REPLAUTH_KEY_MIN,
			 REPLAUTH_KEY_MAX, 2 * REPLAUTH_KEY_MIN, 2 * REPLAUTH_KEY_MAX);
		return -EINVAL;
	}
	*len = digits / 2;
	return 0;
}

int replauth_init(const char *path, char *err, size_t errlen)
{
	char buf[256];
	uint8_t key[REPLAUTH_KEY_MAX] = { 0 };
	size_t n = 0, len = 0;
	ssize_t r = 1;
	int fd, ret;

	replauth_fini();
	fd = open_checked(path, err, errlen);
	if (fd < 0)
		return fd;
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	ret = r < 0 ? -errno : 0;
	close(fd);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	else
		ret = parse(path, buf, n, key, &len, err, errlen);
	if (!ret) {
		hmac_sha256_set_key(&A.keyed, len, key);
		A.on = 1;
	}
	explicit_bzero(buf, sizeof(buf));
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
