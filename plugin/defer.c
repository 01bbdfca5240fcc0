/* Answers held for the standbys (see defer.h). */
#include "defer.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct held {
	struct held *next;
	uint64_t seq;
	struct glue_req req;
	ib_service_record_t rec;
};

static struct {
	/* Taken first by a releaser: batches leave in the order taken. */
	pthread_mutex_t send_mu;
	pthread_mutex_t mu;       /* the queue */
	struct held *head, **tail;
	size_t n;
} D = {
	.send_mu = PTHREAD_MUTEX_INITIALIZER,
	.mu = PTHREAD_MUTEX_INITIALIZER,
};

void defer_init(void)
{
	pthread_mutex_lock(&D.mu);
	D.head = NULL;
	D.tail = &D.head;
	D.n = 0;
	pthread_mutex_unlock(&D.mu);
}

static void free_all(struct held *h)
{
	while (h) {
		struct held *next = h->next;

		free(h);
		h = next;
	}
}

void defer_fini(void)
{
	struct held *h;

	pthread_mutex_lock(&D.mu);
	h = D.head;
	D.head = NULL;
	D.tail = &D.head;
	D.n = 0;
	pthread_mutex_unlock(&D.mu);
	free_all(h);
}

int defer_add(uint64_t seq, const osm_madw_t *madw, const ib_service_record_t *rec)
{
	struct held *h;

	pthread_mutex_lock(&D.mu);
	if (D.n >= DEFER_MAX) {
		pthread_mutex_unlock(&D.mu);
		return -ENOSPC;
	}
	pthread_mutex_unlock(&D.mu);
	h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->next = NULL;
	h->seq = seq;
	glue_req_save(madw, &h->req);
	h->rec = *rec;
	/* One adder (the Set thread), so the count checked above holds. */
	pthread_mutex_lock(&D.mu);
	if (!D.tail)
		D.tail = &D.head;
	*D.tail = h;
	D.tail = &h->next;
	D.n++;
	pthread_mutex_unlock(&D.mu);
	return 0;
}

size_t defer_release(uint64_t seq, int send)
{
	struct held *first, *h, **cut;
	size_t n = 0;

	pthread_mutex_lock(&D.send_mu);
	pthread_mutex_lock(&D.mu);
	/* Changes are added in sequence order: the ones up to seq lead. */
	for (cut = &D.head; *cut && (*cut)->seq <= seq; cut = &(*cut)->next)
		n++;
	first = NULL;
	if (n) {
		first = D.head;
		D.head = *cut;
		*cut = NULL;
		if (!D.head)
			D.tail = &D.head;
		D.n -= n;
	}
	pthread_mutex_unlock(&D.mu);
	for (h = first; send && h; h = h->next)
		glue_req_respond_one(&h->req, &h->rec);
	pthread_mutex_unlock(&D.send_mu);
	free_all(first);
	return n;
}

void defer_send_now(osm_madw_t *madw, const ib_service_record_t *rec)
{
	pthread_mutex_lock(&D.send_mu);
	glue_sa_respond_one(madw, rec);
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
