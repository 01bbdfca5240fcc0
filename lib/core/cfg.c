/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <ctype.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cfg.h"

int cfg_parse_bool(const char *v, int *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < 4; i++) {
		if (!strcasecmp(v, yes[i])) {
			*out = 1;
			return 0;
		}
		if (!strcasecmp(v, no[i])) {
			*out = 0;
			return 0;
		}
	}
	return -EINVAL;
}

int cfg_parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (!*v || *v == '-' || *v == '+' || isspace((unsigned char)*v))
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || *end || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

int cfg_parse_hex64(const char *v, uint64_t *out)
{
	const char *d = v;
	uint64_t x = 0;
	size_t n;

	if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X'))
		d += 2;
	n = strspn(d, "0123456789abcdefABCDEF");
	if (!n || n > 16 || d[n])
		return -EINVAL;
	for (; *d; d++)
		x = x << 4 | (uint64_t)(isdigit((unsigned char)*d) ? *d - '0' :
					(tolower((unsigned char)*d) - 'a' + 10));
	*out = x;
	return 0;
}

int cfg_set_bool(const char *key, const char *v, int *out, char *msg, size_t len)
{
	if (!cfg_parse_bool(v, out))
		return 0;
	snprintf(msg, len, "%s: '%s' is not yes or no", key, v);
	return -EINVAL;
}

int cfg_set_u32(const char *key, const char *v, uint32_t min, uint32_t max,
		uint32_t *out, char *msg, size_t len)
{
	uint64_t x;

	if (cfg_parse_u64(v, UINT32_MAX, &x) || x < min || x > max) {
		snprintf(msg, len, "%s: '%s' is not a number in %" PRIu32 "..%" PRIu32,
			 key, v, min, max);
		return -EINVAL;
	}
	*out = (uint32_t)x;
	return 0;
}

int cfg_set_choice(const char *key, const char *v, const char *const *names,
		   size_t n, int *out, char *msg, size_t len)
{
	size_t i, used;

	for (i = 0; i < n; i++)
		if (!strcmp(v, names[i])) {
			*out = (int)i;
			return 0;
		}
	/* "key: 'v' is not a, b or c" */
	used = (size_t)snprintf(msg, len, "%s: '%s' is not ", key, v);
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(msg + used, len - used, "%s%s",
					 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	return -EINVAL;
}

/* Strip leading and trailing blanks in place. */
static char *cfg_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* One line into buf (its newline dropped): 1, 0 at the end, or -EINVAL
 * with msg. Not fgets(3): a NUL would end its line early, unseen. */
static int get_line(FILE *f, char *buf, size_t len, char *msg, size_t msglen)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (!c) {
			snprintf(msg, msglen, "a NUL byte: not a text file");
			return -EINVAL;
		}
		if (n + 2 >= len) {
			snprintf(msg, msglen, "line longer than %zu bytes", len - 2);
			return -EINVAL;
		}
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	return c != EOF || n;
}

int cfg_next_line(FILE *f, char *buf, size_t len, unsigned *lineno,
		  char **line, char *msg, size_t msglen)
{
	int ret;

	while ((ret = get_line(f, buf, len, msg, msglen)) != 0) {
		char *s;

		(*lineno)++;
		if (ret < 0)
			return ret;
		s = strchr(buf, '#');
		if (s)
			*s = '\0';
		s = cfg_trim(buf);
		if (*s) {
			*line = s;
			return 1;
		}
	}
	return 0;
}

void cfg_split(char *line, char **key, char **val)
{
	char *v;

	*key = line;
	v = line + strcspn(line, " \t=");
	if (*v) {
		*v++ = '\0';
		v = cfg_trim(v);
		if (*v == '=')
			v = cfg_trim(v + 1);
	}
	*val = v;
}

FILE *cfg_fopen_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC), err;
	struct stat st;
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		err = errno;
	else
		err = S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	if (err) {
		close(fd);
		errno = err;
		return NULL;
	}
	/* Reads of a regular file ignore O_NONBLOCK (open(2)). */
	f = fdopen(fd, "r");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

int cfg_load(const char *path, size_t nkeys, cfg_key_fn key, cfg_set_fn set,
	     void *ctx, char *err, size_t errlen)
{
	return cfg_load_warn(path, nkeys, key, set, ctx, err, errlen, NULL, 0);
}

static void add_warning(char *warn, size_t warnlen, const char *path, unsigned lineno,
			const char *msg)
{
	size_t used = strlen(warn);

	if (used < warnlen)
		snprintf(warn + used, warnlen - used, "%s:%u: %s\n", path, lineno, msg);
}

int cfg_load_warn(const char *path, size_t nkeys, cfg_key_fn key, cfg_set_fn set,
		  void *ctx, char *err, size_t errlen, char *warn, size_t warnlen)
{
	char buf[1024], msg[384];
	unsigned lineno = 0, *seen;
	FILE *f = cfg_fopen_regular(path);
	int ret = 0;

	if (warn && warnlen)
		warn[0] = '\0';
	if (!f) {
		/* A directory opens and reads as an empty file: say what it is. */
		snprintf(err, errlen, "%s: %s", path,
			 errno == EISDIR ? "is a directory, not a config file" :
			 errno == EINVAL ? "not a regular file" : strerror(errno));
		return errno == ENOENT ? -ENOENT : -EINVAL;
	}
	seen = calloc(nkeys, sizeof(*seen));
	if (!seen) {
		fclose(f);
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	for (;;) {
		char *line, *k, *v;
		int more, repeat = 0;
		size_t i;

		more = cfg_next_line(f, buf, sizeof(buf), &lineno, &line, msg, sizeof(msg));
		if (more <= 0) {
			ret = more;
			break;
		}
		cfg_split(line, &k, &v);
		for (i = 0; i < nkeys; i++)
			if (!strcmp(k, key(i, &repeat)))
				break;
		ret = -EINVAL;
		if (i == nkeys)
			snprintf(msg, sizeof(msg), "unknown key '%s'", k);
		else if (seen[i] && !repeat)
			snprintf(msg, sizeof(msg), "'%s' already set on line %u", k, seen[i]);
		else if (!*v)
			snprintf(msg, sizeof(msg), "'%s' needs a value", k);
		else
			ret = set(ctx, i, v, msg, sizeof(msg));
		if (ret == CFG_WARN && warn) {
			add_warning(warn, warnlen, path, lineno, msg);
			ret = 0;
		}
		if (ret)
			break;
		seen[i] = lineno;
	}
	if (ret)
		snprintf(err, errlen, "%s:%u: %s", path, lineno, msg);
	free(seen);
	fclose(f);
	return ret ? -EINVAL : 0;
}

unsigned cfg_key_line(const char *path, const char *key)
{
	char buf[1024], msg[64];
	unsigned lineno = 0;
	FILE *f = cfg_fopen_regular(path);
	char *line, *k, *v;

	if (!f)
		return 0;
	while (cfg_next_line(f, buf, sizeof(buf), &lineno, &line, msg, sizeof(msg)) > 0) {
		cfg_split(line, &k, &v);
		if (!strcmp(k, key)) {
			fclose(f);
			return lineno;
		}
	}
	fclose(f);
	return 0;
}
