/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include "node_map.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cfg.h"

/* The names a NodeDescription can hold (IBTA Vol 1 14.2.5.4: 64 bytes);
 * infiniband-diags reads lines of up to 256 bytes, so do we. */
#define NAME_MAX_LEN 64
#define LINE_MAX_LEN 256

struct node_map_ent {
	uint64_t guid;
	unsigned line;
	char name[NAME_MAX_LEN + 1];
};

struct node_map {
	struct node_map_ent *v; /* sorted by GUID once loaded */
	size_t n, cap;
};

static int by_guid(const void *a, const void *b)
{
	const struct node_map_ent *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* One line into e; NULL when it holds an entry (or nothing: e->line 0),
 * else why not. The syntax is infiniband-diags' (rdma-core
 * util/node_name_map.c, parse_node_map_wrap and map_name): a GUID as
 * strtoull base 0 reads it, blanks, then the name: in double quotes, or
 * bare up to a '#' or the line's end (its trailing blanks dropped). */
static const char *parse_line(const char *line, struct node_map_ent *e)
{
	const char *p = skip_blank(line), *end;
	char guid[24], *stop;
	size_t len;

	e->line = 0;
	if (!*p || *p == '\n' || *p == '#')
		return NULL;
	len = strcspn(p, " \t\r\n#");
	if (len >= sizeof(guid))
		return "not a GUID (0x and up to 16 hex digits, or decimal)";
	memcpy(guid, p, len);
	guid[len] = '\0';
	errno = 0;
	if (!strncmp(guid, "0x", 2) || !strncmp(guid, "0X", 2)) {
		if (cfg_parse_hex64(guid, &e->guid))
			return "not a GUID (0x and up to 16 hex digits, or decimal)";
	} else {
		if (guid[0] < '0' || guid[0] > '9')
			return "not a GUID (0x and up to 16 hex digits, or decimal)";
		e->guid = strtoull(guid, &stop, 0);
		if (*stop || errno)
			return "not a GUID (0x and up to 16 hex digits, or decimal)";
	}
	p = skip_blank(p + len);
	if (*p == '"') {
		end = strchr(p + 1, '"');
		if (!end)
			return "the name's closing quote is missing";
		p++;
	} else {
		end = p + strcspn(p, "#\n");
		while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
			end--;
	}
	len = (size_t)(end - p);
	if (!len || len > NAME_MAX_LEN)
		return "the name must be 1..64 bytes";
	memcpy(e->name, p, len);
	e->name[len] = '\0';
	e->line = 1;
	return NULL;
}

static int add(struct node_map *m, const struct node_map_ent *e)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct node_map_ent *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	m->v[m->n++] = *e;
	return 0;
}

int node_map_load(const char *path, struct node_map **out, char *err, size_t errlen)
{
	char line[LINE_MAX_LEN + 2];
	struct node_map *m;
	unsigned lineno = 0;
	const char *why = NULL;
	size_t i;
	FILE *f;
	int ret = 0;

	*out = NULL;
	/* Not a FIFO (infiniband-diags' fopen would wait for a writer). */
	f = cfg_fopen_regular(path);
	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EINVAL ? "not a regular file" : strerror(-ret));
		return ret;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		fclose(f);
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	for (;;) {
		/* What fgets() read, NUL bytes included (a regular file). */
		long at = ftell(f);
		struct node_map_ent e;

		if (ret || !fgets(line, sizeof(line), f))
			break;
		lineno++;
		if (at < 0 || ftell(f) - at != (long)strlen(line))
			why = "a NUL byte";
		else if (!strchr(line, '\n') && !feof(f))
			why = "line longer than 256 bytes";
		else
			why = parse_line(line, &e);
		if (why) {
			ret = -EINVAL;
			break;
		}
		if (!e.line)
			continue;
		e.line = lineno;
		ret = add(m, &e);
	}
	if (!ret && ferror(f))
		ret = -EIO;
	fclose(f);
	if (!ret && m->n > 1) {
		qsort(m->v, m->n, sizeof(*m->v), by_guid);
		for (i = 1; i < m->n && m->v[i].guid != m->v[i - 1].guid; i++)
			;
		if (i < m->n) {
			const struct node_map_ent *a = &m->v[i - 1], *b = &m->v[i];

			lineno = a->line > b->line ? a->line : b->line;
			snprintf(err, errlen, "%s:%u: GUID 0x%016" PRIx64 " is named on line %u already",
				 path, lineno, b->guid, a->line < b->line ? a->line : b->line);
			node_map_free(m);
			return -EINVAL;
		}
	}
	if (ret) {
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		node_map_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

const char *node_map_name(const struct node_map *m, uint64_t node_guid)
{
	struct node_map_ent key = { .guid = node_guid };
	const struct node_map_ent *e;

	if (!m || !m->n)
		return NULL;
	e = bsearch(&key, m->v, m->n, sizeof(*m->v), by_guid);
	return e ? e->name : NULL;
}

size_t node_map_count(const struct node_map *m)
{
	return m ? m->n : 0;
}

void node_map_free(struct node_map *m)
{
	if (!m)
		return;
	free(m->v);
	free(m);
}
