/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The port as atsd last saw it (port_poll.h). */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "core/log.h"
#include "port_poll.h"

static struct {
	struct sa_thread *saj;
	const struct agent_conf *conf;
	void (*changed)(int sm_change);
	struct mport_info port;
	int known;
	int running;
	int first_done;
	int64_t next;
	unsigned sm_changes;
} pp;

void port_poll_init(struct sa_thread *saj, const struct agent_conf *conf,
		    void (*changed)(int sm_change))
{
	pp.saj = saj;
	pp.conf = conf;
	pp.changed = changed;
}

static void first_done(struct saj *j, void *ctx)
{
	(void)ctx;
	/* The GID is what we need; the port may still be down. */
	pp.port = j->port;
	pp.known = !j->err;
	pp.first_done = 1;
}

int port_poll_first(void)
{
	struct saj *j = saj_new(SAJ_PORT, first_done, NULL);
	struct pollfd p;

	if (!j)
		return -ENOMEM;
	sa_thread_submit(pp.saj, j);
	p.fd = sa_thread_fd(pp.saj);
	p.events = POLLIN;
	while (!pp.first_done) {
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -errno;
		sa_thread_complete(pp.saj);
	}
	return 0;
}

void port_poll_set(const struct mport_info *port)
{
	/* A sync started by a port event (verbs SM_CHANGE, LID_CHANGE) reads
	 * the new SM LID before the next poll would: the change counts here. */
	if (pp.known && (port->sm_lid != pp.port.sm_lid || port->lid != pp.port.lid)) {
		log_info("SM LID %u -> %u, LID %u -> %u", pp.port.sm_lid, port->sm_lid,
			 pp.port.lid, port->lid);
		pp.sm_changes++;
	}
	pp.port = *port;
	pp.known = 1;
}

const struct mport_info *port_poll_info(int *known)
{
	*known = pp.known;
	return &pp.port;
}

unsigned port_poll_sm_changes(void)
{
	return pp.sm_changes;
}

static void poll_done(struct saj *j, void *ctx)
{
	(void)ctx;
	pp.running = 0;
	if (j->err) {
		if (pp.known)
			log_warn("port: %s", j->errmsg);
		pp.known = 0;
		return;
	}
	if (pp.known && (j->port.sm_lid != pp.port.sm_lid || j->port.lid != pp.port.lid)) {
		log_info("SM LID %u -> %u, LID %u -> %u: checking our records",
			 pp.port.sm_lid, j->port.sm_lid, pp.port.lid, j->port.lid);
		pp.sm_changes++;
		pp.port = j->port;
		pp.changed(1);
	} else if (!pp.known) {
		/* The port came (back) up: the SA may have lost our records. */
		pp.port = j->port;
		pp.known = 1;
		pp.changed(0);
	}
}

int64_t port_poll_timers(int64_t now)
{
	if (!pp.next)
		pp.next = now + (int64_t)pp.conf->sm_poll_interval * 1000;
	if (now >= pp.next && !pp.running) {
		struct saj *j = saj_new(SAJ_PORT, poll_done, NULL);

		pp.next = now + (int64_t)pp.conf->sm_poll_interval * 1000;
		if (j) {
			pp.running = 1;
			sa_thread_submit(pp.saj, j);
		}
	}
	return pp.next;
}
