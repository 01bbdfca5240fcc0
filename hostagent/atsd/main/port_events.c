/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "port_events.h"

struct port_events {
	struct ibv_context *ctx;
	int port;
};

int port_events_open(struct port_events **out, const char *ca, int port)
{
	struct ibv_device **list;
	struct port_events *p;
	int i, n, fl, ret = -ENODEV;

	list = ibv_get_device_list(&n);
	if (!list)
		return -ENODEV;
	p = calloc(1, sizeof(*p));
	if (!p) {
		ibv_free_device_list(list);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), ca))
			continue;
		p->ctx = ibv_open_device(list[i]);
		ret = p->ctx ? 0 : errno ? -errno : -ENODEV;
		break;
	}
	ibv_free_device_list(list);
	if (ret) {
		free(p);
		return ret;
	}
	p->port = port;
	fl = fcntl(p->ctx->async_fd, F_GETFL);
	fcntl(p->ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	*out = p;
	return 0;
}

void port_events_close(struct port_events *p)
{
	if (!p)
		return;
	ibv_close_device(p->ctx);
	free(p);
}

int port_events_fd(const struct port_events *p)
{
	return p->ctx->async_fd;
}

int port_events_read(struct port_events *p, const char **what)
{
	struct ibv_async_event ev;
	int resync = 0;

	*what = NULL;
	while (!ibv_get_async_event(p->ctx, &ev)) {
		if (ev.element.port_num == p->port) {
			switch (ev.event_type) {
			case IBV_EVENT_CLIENT_REREGISTER:
			case IBV_EVENT_SM_CHANGE:
			case IBV_EVENT_LID_CHANGE:
			case IBV_EVENT_PORT_ACTIVE:
				resync = 1;
				*what = ibv_event_type_str(ev.event_type);
				break;
			default:
				break;
			}
		}
		ibv_ack_async_event(&ev);
	}
	return resync;
}
