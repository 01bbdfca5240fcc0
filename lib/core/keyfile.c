/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A secret key file (keyfile.h). */
#include "keyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
static int open_checked(const char *path, uid_t uid, char *err, size_t errlen)
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
	if (st.st_uid != 0 && st.st_uid != uid) {
		snprintf(err, errlen, "%s: owned by uid %u, neither root nor OpenSM's user (uid %u)",
			 path, (unsigned)st.st_uid, (unsigned)uid);
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
		if (i / 2 < KEYFILE_MAX)
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
	if (digits % 2 || digits < 2 * KEYFILE_MIN || digits > 2 * KEYFILE_MAX) {
		snprintf(err, errlen, "%s:1: %zu hex digits: the key is %d to %d bytes, an even "
			 "number of digits from %d to %d", path, digits, KEYFILE_MIN,
			 KEYFILE_MAX, 2 * KEYFILE_MIN, 2 * KEYFILE_MAX);
		return -EINVAL;
	}
	*len = digits / 2;
	return 0;
}

int keyfile_read(const char *path, uint8_t key[KEYFILE_MAX], size_t *len, char *err,
		 size_t errlen)
{
	return keyfile_read_as(path, geteuid(), key, len, err, errlen);
}

int keyfile_read_as(const char *path, uid_t uid, uint8_t key[KEYFILE_MAX], size_t *len,
		    char *err, size_t errlen)
{
	char buf[256];
	size_t n = 0;
	ssize_t r = 1;
	int fd, ret;

	memset(key, 0, KEYFILE_MAX);
	fd = open_checked(path, uid, err, errlen);
	if (fd < 0)
		return fd;
	while (n < sizeof(buf) && (r = read(fd, buf + n, sizeof(buf) - n)) > 0)
		n += (size_t)r;
	ret = r < 0 ? -errno : 0;
	close(fd);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	else
		ret = parse(path, buf, n, key, len, err, errlen);
	explicit_bzero(buf, sizeof(buf));
	if (ret)
		explicit_bzero(key, KEYFILE_MAX);
	return ret;
}
