/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Prometheus text exposition, format 0.0.4. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "afile.h"
#include "prom.h"

static void fail(struct prom *p, int err)
{
	if (!p->err)
		p->err = err;
}

static void put(struct prom *p, const char *s, size_t n)
{
	if (n && fwrite(s, 1, n, p->f) != n)
		fail(p, -EIO);
}

static int name_ok(const char *s, int colon)
{
	const char *c;

	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '_' || (colon && *c == ':')))
			return 0;
	return 1;
}

/* The one escape: label values take \\ \" \n; help text \\ and \n only
 * (a quote there is literal). */
static size_t escape(char *buf, size_t len, const char *s, int quote)
{
	size_t out = 0;

	for (; *s; s++) {
		char e[2] = { (char)*s, 0 };
		size_t k = 1, i;
		unsigned char c = (unsigned char)*s;

		if (c == '\\' || (quote && c == '"')) {
			e[0] = '\\';
			e[1] = (char)c;
			k = 2;
		} else if (c == '\n') {
			e[0] = '\\';
			e[1] = 'n';
			k = 2;
		} else if (c < 0x20 || c >= 0x7f) {
			e[0] = '?';
		}
		for (i = 0; i < k; i++, out++)
			if (out + 1 < len)
				buf[out] = e[i];
	}
	if (len)
		buf[out < len ? out : len - 1] = '\0';
	return out;
}

size_t prom_escape(char *buf, size_t len, const char *s)
{
	return escape(buf, len, s, 1);
}

static void put_escaped(struct prom *p, const char *s, int quote)
{
	char small[256];
	size_t n = escape(small, sizeof(small), s, quote);

	if (n < sizeof(small)) {
		put(p, small, n);
		return;
	}
	/* Longer than the stack buffer: escape it in pieces of source
	 * bytes, each expanding to at most twice its length. */
	while (*s) {
		char piece[128];
		size_t m = strnlen(s, sizeof(piece) - 1);

		memcpy(piece, s, m);
		piece[m] = '\0';
		put(p, small, escape(small, sizeof(small), piece, quote));
		s += m;
	}
}

void prom_init(struct prom *p, FILE *f)
{
	p->f = f;
	p->err = 0;
	p->family[0] = '\0';
}

int prom_fini(struct prom *p)
{
	if (!p->err && fflush(p->f))
		fail(p, -errno);
	/* Writes whose result was not looked at (fputs, fputc) show here. */
	if (!p->err && ferror(p->f))
		fail(p, -EIO);
	return p->err;
}

void prom_family(struct prom *p, const char *name, enum prom_type type,
		 const char *help)
{
	size_t n = name ? strlen(name) : 0;

	p->family[0] = '\0';
	if (!name_ok(name, 1) || !help || n >= sizeof(p->family) ||
	    (type == PROM_COUNTER && (n < 6 || strcmp(name + n - 6, "_total")))) {
		fail(p, -EINVAL);
		return;
	}
	memcpy(p->family, name, n + 1);
	fprintf(p->f, "# HELP %s ", name);
	put_escaped(p, help, 0);
	fprintf(p->f, "\n# TYPE %s %s\n", name,
		type == PROM_COUNTER ? "counter" : "gauge");
	if (ferror(p->f))
		fail(p, -EIO);
}

static int sample_head(struct prom *p, const char *name, const char *const *labels)
{
	const char *const *l;

	if (!p->family[0] || !name || strcmp(name, p->family)) {
		fail(p, -EINVAL);
		return -EINVAL;
	}
	for (l = labels; l && *l; l += 2)
		if (!name_ok(l[0], 0) || !l[1] || !strncmp(l[0], "__", 2)) {
			fail(p, -EINVAL);
			return -EINVAL;
		}
	fputs(name, p->f);
	for (l = labels; l && *l; l += 2) {
		fprintf(p->f, "%s%s=\"", l == labels ? "{" : ",", l[0]);
		put_escaped(p, l[1], 1);
		fputc('"', p->f);
	}
	if (labels && *labels)
		fputc('}', p->f);
	return 0;
}

void prom_u64(struct prom *p, const char *name, const char *const *labels,
	      uint64_t v)
{
	if (sample_head(p, name, labels))
		return;
	if (fprintf(p->f, " %llu\n", (unsigned long long)v) < 0)
		fail(p, -EIO);
}

void prom_dbl(struct prom *p, const char *name, const char *const *labels,
	      double v)
{
	const char *s = NULL;

	if (sample_head(p, name, labels))
		return;
	if (isnan(v))
		s = "NaN";
	else if (isinf(v))
		s = v > 0 ? "+Inf" : "-Inf";
	if ((s ? fprintf(p->f, " %s\n", s) : fprintf(p->f, " %.17g\n", v)) < 0)
		fail(p, -EIO);
}

int prom_write_file(const char *path, void (*fill)(struct prom *, const void *),
		    const void *arg)
{
	char tmp[600];
	struct prom p;
	FILE *f;
	int ret;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = afile_tmp(tmp);
	if (!f)
		return -errno;
	prom_init(&p, f);
	fill(&p, arg);
	ret = prom_fini(&p);
	/* The collector reads whole files: rename, never a half-written one.
	 * No fsync: atsd writes from its event loop, where a journal commit's
	 * wait would hold up lookups, and the figures are rewritten within
	 * seconds; a crash loses at most one version. */
	return afile_commit(f, tmp, path, ret, 0);
}
