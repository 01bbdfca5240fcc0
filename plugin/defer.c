/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Answers held for the standbys (see defer.h). */
#include "defer.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/sr.h"

struct defer_slot {
	struct defer_slot *next;
	uint64_t epoch, seq;
	uint16_t lid;             /* whose place: its port's count */
	uint8_t rec[SR_SIZE];
	max_align_t req[];        /* glue_req_size() bytes: the request kept */
};

static struct glue_req *req_of(struct defer_slot *s)
{
	return (struct glue_req *)s->req;
}

static struct {
	/* Taken first by a sender: batches leave in the order taken. */
	pthread_mutex_t send_mu;
	pthread_mutex_t mu;       /* the queue and the count of places */
	struct defer_slot *head, **tail;
	size_t n;                 /* held */
	size_t taken;             /* held and reserved */
	uint16_t per_port[DEFER_LIDS]; /* taken, by base LID */
} D = {
	.send_mu = PTHREAD_MUTEX_INITIALIZER,
	.mu = PTHREAD_MUTEX_INITIALIZER,
};

static void free_all(struct defer_slot *h)
{
	while (h) {
		struct defer_slot *next = h->next;

		free(h);
		h = next;
	}
}

void defer_init(void)
{
	pthread_mutex_lock(&D.mu);
	D.head = NULL;
	D.tail = &D.head;
	D.n = D.taken = 0;
	memset(D.per_port, 0, sizeof(D.per_port));
	pthread_mutex_unlock(&D.mu);
}

void defer_fini(void)
{
	struct defer_slot *h;

	pthread_mutex_lock(&D.mu);
	h = D.head;
	D.head = NULL;
	D.tail = &D.head;
	D.n = D.taken = 0;
	memset(D.per_port, 0, sizeof(D.per_port));
	pthread_mutex_unlock(&D.mu);
	free_all(h);
}

/* D.mu held: a place given back. */
static void give_back(uint16_t lid)
{
	D.taken--;
	if (lid < DEFER_LIDS && D.per_port[lid])
		D.per_port[lid]--;
}

int defer_reserve(uint16_t lid, struct defer_slot **out)
{
	struct defer_slot *s;
	size_t i = lid < DEFER_LIDS ? lid : 0;

	pthread_mutex_lock(&D.mu);
	if (D.per_port[i] >= DEFER_PER_PORT || D.taken >= DEFER_MAX) {
		int ret = D.per_port[i] >= DEFER_PER_PORT ? -EDQUOT : -ENOSPC;

		pthread_mutex_unlock(&D.mu);
		return ret;
	}
	D.taken++;
	D.per_port[i]++;
	pthread_mutex_unlock(&D.mu);
	s = malloc(sizeof(*s) + glue_req_size());
	if (!s) {
		pthread_mutex_lock(&D.mu);
		give_back((uint16_t)i);
		pthread_mutex_unlock(&D.mu);
		return -ENOMEM;
	}
	s->lid = (uint16_t)i;
	*out = s;
	return 0;
}

void defer_cancel(struct defer_slot *s)
{
	uint16_t lid;

	if (!s)
		return;
	lid = s->lid;
	free(s);
	pthread_mutex_lock(&D.mu);
	give_back(lid);
	pthread_mutex_unlock(&D.mu);
}

void defer_hold(struct defer_slot *s, uint64_t epoch, uint64_t seq,
		const struct glue_sa_req *req, const uint8_t *rec)
{
	s->next = NULL;
	s->epoch = epoch;
	s->seq = seq;
	glue_req_save(req, req_of(s));
	memcpy(s->rec, rec, SR_SIZE);
	pthread_mutex_lock(&D.mu);
	if (!D.tail)
		D.tail = &D.head;
	*D.tail = s;
	D.tail = &s->next;
	D.n++;
	pthread_mutex_unlock(&D.mu);
}

size_t defer_release(uint64_t epoch, uint64_t seq, int send)
{
	struct defer_slot *first = NULL, *h, **cut;
	size_t n = 0;

	pthread_mutex_lock(&D.send_mu);
	pthread_mutex_lock(&D.mu);
	/* Changes are held in the order they were made: those up to seq of
	 * this epoch, and any of an earlier one, lead. */
	for (cut = &D.head; *cut && ((*cut)->epoch != epoch || (*cut)->seq <= seq);
	     cut = &(*cut)->next)
		n++;
	if (n) {
		first = D.head;
		D.head = *cut;
		*cut = NULL;
		if (!D.head)
			D.tail = &D.head;
		D.n -= n;
		for (h = first; h; h = h->next)
			give_back(h->lid);
	}
	pthread_mutex_unlock(&D.mu);
	for (h = first; send && h; h = h->next)
		if (h->epoch == epoch)
			glue_req_respond_one(req_of(h), h->rec);
	pthread_mutex_unlock(&D.send_mu);
	free_all(first);
	return n;
}

void defer_send_now(struct glue_sa_req *req, const uint8_t *rec)
{
	pthread_mutex_lock(&D.send_mu);
	glue_sa_respond_one(req, rec);
	pthread_mutex_unlock(&D.send_mu);
}

size_t defer_count(uint64_t *oldest_seq)
{
	size_t n;

	pthread_mutex_lock(&D.mu);
	n = D.n;
	*oldest_seq = D.head ? D.head->seq : 0;
	pthread_mutex_unlock(&D.mu);
	return n;
}
