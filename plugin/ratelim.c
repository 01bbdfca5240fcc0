/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <string.h>

#include "ratelim.h"

void ratelim_init(struct ratelim *r, unsigned burst, uint64_t interval_ns)
{
	memset(r, 0, sizeof(*r));
	r->burst = burst;
	r->interval_ns = interval_ns;
	r->others.who = RATELIM_OTHERS;
}

static int ended(const struct ratelim *r, const struct ratelim_slot *s, uint64_t now)
{
	return now - s->start >= r->interval_ns;
}

/* Close s's interval: its summary when lines were left out. */
static int close_slot(struct ratelim_slot *s, uint64_t now, struct ratelim_summary *sum)
{
	int have = s->sum.suppressed != 0;

	if (have) {
		*sum = s->sum;
		sum->who = s->who;
		sum->span_ns = now - s->start;
	}
	memset(&s->sum, 0, sizeof(s->sum));
	s->logged = 0;
	s->start = now;
	return have;
}

static struct ratelim_slot *find(struct ratelim *r, uint64_t who, uint64_t now,
			    struct ratelim_summary *sum, int *have_sum)
{
	struct ratelim_slot *free_slot = NULL, *done = NULL;
	size_t i;

	for (i = 0; i < RATELIM_SLOTS; i++) {
		struct ratelim_slot *s = &r->slot[i];

		if (s->used && s->who == who)
			return s;
		if (!s->used && !free_slot)
			free_slot = s;
		else if (s->used && !done && ended(r, s, now))
			done = s;
	}
	if (!free_slot && done) {
		/* Reuse a slot whose interval is over, summarising it. */
		*have_sum = close_slot(done, now, sum);
		free_slot = done;
	}
	if (!free_slot) {
		/* Every slot busy: a flood from many ports shares one. */
		return &r->others;
	}
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->used = 1;
	free_slot->who = who;
	free_slot->start = now;
	return free_slot;
}

int ratelim_event(struct ratelim *r, uint64_t who, unsigned kind, uint64_t now,
	     struct ratelim_summary *sum, int *have_sum)
{
	struct ratelim_slot *s;

	*have_sum = 0;
	s = find(r, who, now, sum, have_sum);
	if (!*have_sum && ended(r, s, now))
		*have_sum = close_slot(s, now, sum);
	if (s == &r->others && !s->used) {
		s->used = 1;
		s->start = now;
	}
	if (s->logged < r->burst) {
		s->logged++;
		return 1;
	}
	s->sum.suppressed++;
	s->sum.by_kind[kind < RATELIM_KINDS ? kind : RATELIM_KINDS - 1]++;
	return 0;
}

void ratelim_expire(struct ratelim *r, uint64_t now,
	       void (*fn)(const struct ratelim_summary *s, void *arg), void *arg)
{
	struct ratelim_summary sum;
	size_t i;

	for (i = 0; i <= RATELIM_SLOTS; i++) {
		struct ratelim_slot *s = i < RATELIM_SLOTS ? &r->slot[i] : &r->others;

		if (!s->used || !ended(r, s, now))
			continue;
		if (close_slot(s, now, &sum))
			fn(&sum, arg);
		s->used = 0;
	}
}

uint64_t ratelim_next_due(const struct ratelim *r)
{
	uint64_t due = 0;
	size_t i;

	for (i = 0; i <= RATELIM_SLOTS; i++) {
		const struct ratelim_slot *s = i < RATELIM_SLOTS ? &r->slot[i] : &r->others;
		uint64_t t = s->start + r->interval_ns;

		if (s->used && s->sum.suppressed && (!due || t < due))
			due = t;
	}
	return due;
}
