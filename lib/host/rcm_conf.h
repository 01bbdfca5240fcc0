/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* What atsd.conf says about atsd's connections by IP (cm_listen,
 * cm_policy, cm_accept): the part of atsd's CM (hostagent/atsd/sa/rcm.h)
 * its config parser fills, here so the parser (agent_conf.c) builds
 * without atsd's sources. */
#ifndef IBATS_RCM_CONF_H
#define IBATS_RCM_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "core/ats.h"

#define RCM_CONF_MAX_LISTEN 16
#define RCM_CONF_MAX_ACCEPT 32

enum rcm_conf_policy {
	RCM_CONF_ACCEPT_ANY = 0,
	RCM_CONF_ACCEPT_AGREE,       /* A11 source IP = requester's ATS primary */
	RCM_CONF_ACCEPT_LIST,        /* A11 source IP is listed */
};

struct rcm_conf {
	uint64_t listen[RCM_CONF_MAX_LISTEN];
	size_t nlisten;
	enum rcm_conf_policy policy;
	struct ats_ip accept[RCM_CONF_MAX_ACCEPT];
	size_t naccept;
	uint32_t idle_timeout;  /* s: a passive connection closes this long
				 * after it is established (cm_idle_timeout) */
};

#endif
