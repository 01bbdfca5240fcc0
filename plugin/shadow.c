/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The standby's shadow (see shadow.h): the plugin's ServiceRecord index
 * (srindex.c) over records the shadow owns. */
#include "shadow.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "srindex.h"

struct shadow {
	struct srindex *idx;
};

struct srec {
	uint8_t rec[SR_SIZE];
	int64_t lease_end_ms;
};

int64_t shadow_lease_end(uint32_t lease_s, int64_t now_ms)
{
	return lease_s == SR_LEASE_INFINITE ? SHADOW_LEASE_INFINITE :
	       now_ms + (int64_t)lease_s * 1000;
}

uint32_t shadow_lease_left(int64_t end_ms, int64_t now_ms)
{
	if (end_ms == SHADOW_LEASE_INFINITE)
		return SR_LEASE_INFINITE;
	return end_ms > now_ms ? (uint32_t)((end_ms - now_ms + 999) / 1000) : 0;
}

int shadow_init(struct shadow **out)
{
	struct shadow *s = calloc(1, sizeof(*s));

	if (!s || srindex_init(&s->idx, offsetof(struct srec, rec))) {
		free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

static int free_one(const struct srindex_ent *e, void *arg)
{
	free(srindex_handle(arg, e));
	return 0;
}

static void free_all(struct shadow *s)
{
	static const uint8_t any[SR_SIZE];

	srindex_query(s->idx, any, 0, free_one, s->idx);
	srindex_clear(s->idx);
}

void shadow_fini(struct shadow *s)
{
	if (!s)
		return;
	free_all(s);
	srindex_fini(s->idx);
	free(s);
}

void shadow_clear(struct shadow *s)
{
	free_all(s);
}

size_t shadow_count(const struct shadow *s)
{
	return srindex_count(s->idx);
}

int shadow_set(struct shadow *s, const uint8_t *rec, int64_t lease_end_ms)
{
	struct srindex_ent *e = srindex_find_rid(s->idx, rec);
	struct srec *r;

	if (e) {
		r = srindex_handle(s->idx, e);
		if (srindex_unhook(s->idx, e))
			return -ENOMEM;
		memcpy(r->rec, rec, SR_SIZE);
		r->lease_end_ms = lease_end_ms;
		srindex_rehook(s->idx, e);
		return 0;
	}
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	memcpy(r->rec, rec, SR_SIZE);
	r->lease_end_ms = lease_end_ms;
	if (srindex_add(s->idx, r)) {
		free(r);
		return -ENOMEM;
	}
	return 0;
}

int shadow_delete(struct shadow *s, const uint8_t *rec)
{
	struct srindex_ent *e = srindex_find_rid(s->idx, rec);
	struct srec *r;

	if (!e)
		return -ENOENT;
	r = srindex_handle(s->idx, e);
	srindex_del(s->idx, e);
	free(r);
	return 0;
}

void shadow_move(struct shadow *to, struct shadow *from)
{
	struct srindex *t = to->idx;

	free_all(to);
	to->idx = from->idx;
	from->idx = t;
}

struct collect {
	const struct srindex *idx;
	const struct srec **v;
	size_t n;
};

static int collect_one(const struct srindex_ent *e, void *arg)
{
	struct collect *c = arg;

	c->v[c->n++] = srindex_handle(c->idx, e);
	return 0;
}

int shadow_each_oldest_first(const struct shadow *s, shadow_fn fn, void *arg)
{
	static const uint8_t any[SR_SIZE];
	struct collect c = { .idx = s->idx, .n = 0 };
	size_t n = srindex_count(s->idx), i;
	int ret = 0;

	if (!n)
		return 0;
	/* The index walks newest first. */
	c.v = malloc(n * sizeof(*c.v));
	if (!c.v)
		return -ENOMEM;
	srindex_query(s->idx, any, 0, collect_one, &c);
	for (i = c.n; i-- > 0 && !ret;)
		ret = fn(c.v[i]->rec, c.v[i]->lease_end_ms, arg);
	free(c.v);
	return ret;
}
