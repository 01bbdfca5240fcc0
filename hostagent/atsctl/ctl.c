/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's invocation: the port and SA client, opened once. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/ats.h"
#include "core/cfg.h"
#include "ctl.h"
#include "ibats/ibats.h"
#include "host/ibsys.h"
#include "core/wire.h"

int ctl_open(struct ctl *c)
{
	char why[160];
	int ret = ibsys_open_port(&c->port, c->ca, c->portnum, why, sizeof(why));

	if (ret) {
		fprintf(stderr, "atsctl: cannot open CA %s port %d: %s%s\n",
			c->ca ? c->ca : "(default)", c->portnum, why,
			ret == -EACCES ? ": run as root" : "");
		return CTL_EXIT_SA;
	}
	ret = sa_client_init(&c->sa, c->port, &c->sa_opts);
	if (ret) {
		fprintf(stderr, "atsctl: cannot register SA agent: %s\n",
			strerror(-ret));
		return CTL_EXIT_SA;
	}
	return 0;
}

void ctl_close(struct ctl *c)
{
	if (c->sa)
		sa_client_fini(c->sa);
	mport_close(c->port);
	ibats_close(c->ats);
	c->sa = NULL;
	c->port = NULL;
	c->ats = NULL;
}

int ctl_parse_gid(const struct ctl *c, const char *s, uint8_t *gid)
{
	uint64_t guid;

	if (!ats_gid_parse(s, gid))
		return 0;
	if (cfg_parse_hex64(s, &guid))
		return -EINVAL;
	memcpy(gid, sa_client_port(c->sa)->gid, 8);
	wire_put64(gid + 8, guid);
	return 0;
}
