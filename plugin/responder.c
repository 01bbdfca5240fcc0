/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mad.h"
#include "responder.h"
#include "core/vmad.h"

/* Short, so that a tick (held replication pulls, a standby's next pull)
 * comes round quickly. */
#define SLICE_MS 50

struct responder {
	struct mport *port;
	pthread_t thread;
	atomic_int stop;    /* lock-free: set by responder_stop() */
	int liveness;
	int (*is_master)(void *, uint16_t *);
	void *ctx;
	struct responder_ext ext[RESPONDER_MAX_EXT];
	size_t next;
	struct vmad_identity id;
	_Atomic uint64_t answered; /* lock-free: read by responder_answered() */
};

static size_t answer(const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		     void *ctx)
{
	struct responder *r = ctx;
	size_t n, i;

	if (len < MAD_HDR_SIZE)
		return 0;
	for (i = 0; i < r->next; i++)
		if (req[MAD_OFF_MGMT_CLASS] == r->ext[i].mgmt_class)
			return r->ext[i].answer(r->ext[i].ctx, req, len, resp, cap);
	if (!r->liveness || !r->is_master(r->ctx, &r->id.lid))
		return 0;
	n = vmad_answer(req, len, &r->id, vmad_liv_timestamp(), resp, cap);
	if (n)
		atomic_fetch_add_explicit(&r->answered, 1, memory_order_relaxed);
	return n;
}

/* Every class's tick; nonzero when one did MAD exchanges. */
static int tick(struct responder *r)
{
	int busy = 0;
	size_t i;

	for (i = 0; i < r->next; i++)
		if (r->ext[i].tick && r->ext[i].tick(r->ext[i].ctx))
			busy = 1;
	return busy;
}

static void *serve(void *arg)
{
	struct responder *r = arg;
	size_t i;

	/* Relaxed: the flag carries no data; pthread_join() orders the rest. */
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed))
		if (!tick(r))
			mport_serve(r->port, SLICE_MS);
	for (i = 0; i < r->next; i++)
		if (r->ext[i].stop)
			r->ext[i].stop(r->ext[i].ctx);
	return NULL;
}

int responder_start(struct responder **out, uint64_t port_guid, int liveness,
		    int (*is_master)(void *, uint16_t *), void *ctx,
		    const struct responder_ext *const *ext, size_t next,
		    char *err, size_t errlen)
{
	struct responder *r = calloc(1, sizeof(*r));
	int ret, agent = 0;
	size_t i;

	if (!r)
		return -ENOMEM;
	if (next > RESPONDER_MAX_EXT) {
		free(r);
		return -EINVAL;
	}
	r->liveness = liveness;
	r->is_master = is_master;
	r->ctx = ctx;
	r->id.liveness = 1;
	r->id.ibping = 1;
	r->id.port_guid = port_guid;
	vmad_host_name(r->id.host, sizeof(r->id.host));
	ret = mport_open_guid(&r->port, port_guid);
	if (ret) {
		snprintf(err, errlen, "no umad port with GUID 0x%016llx: %s",
			 (unsigned long long)port_guid, strerror(-ret));
		goto fail;
	}
	mport_set_responder(r->port, answer, r);
	if (liveness) {
		ret = mport_register_oui(r->port, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, 1,
					 VMAD_OUI_OPENIB, 1);
		if (ret >= 0)
			ret = mport_register_oui(r->port, VMAD_CLASS_IBPING, 1, 0, VMAD_OUI_OPENIB, 1);
		if (ret < 0) {
			snprintf(err, errlen, "cannot serve vendor classes 0x34/0x32: %s",
				 strerror(-ret));
			goto fail;
		}
	}
	for (i = 0; i < next; i++) {
		agent = mport_register_oui(r->port, ext[i]->mgmt_class, ext[i]->class_version, 0,
					   VMAD_OUI_OPENIB, 1);
		if (agent < 0) {
			ret = agent;
			snprintf(err, errlen, "cannot serve vendor class 0x%02x: %s",
				 ext[i]->mgmt_class, strerror(-ret));
			goto fail;
		}
		r->ext[r->next++] = *ext[i];
		ext[i]->attach(ext[i]->ctx, r->port, agent);
	}
	ret = -pthread_create(&r->thread, NULL, serve, r);
	if (ret) {
		snprintf(err, errlen, "cannot start the responder thread: %s", strerror(-ret));
		goto fail;
	}
	*out = r;
	return 0;
fail:
	mport_close(r->port);
	free(r);
	return ret;
}

void responder_stop(struct responder *r)
{
	if (!r)
		return;
	atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
	pthread_join(r->thread, NULL);
	mport_close(r->port);
	free(r);
}

uint64_t responder_answered(const struct responder *r)
{
	return r ? atomic_load_explicit(&r->answered, memory_order_relaxed) : 0;
}
