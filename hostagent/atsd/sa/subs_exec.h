/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Report subscriptions, the SA thread's half: the InformInfo Sets that
 * subscribe to (or drop) traps 64 and 65, and the answer to each Report
 * the SA sends (IBTA Vol 1 13.4.8.2: a ReportResp, from the subscriber).
 * What a report means for the cache is the main thread's (subs.h). */
#ifndef IBATS_SUBS_EXEC_H
#define IBATS_SUBS_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "core/mport.h"
#include "core/sa_client.h"
#include "saj.h"

/* Hands a Report to the main thread, on the SA thread. */
typedef void subs_exec_post_fn(const struct saj_report *r, void *ctx);

void subs_exec_init(struct mport *port, subs_exec_post_fn *post, void *ctx);
/* SAJ_INFORM. */
void subs_exec_run(struct sa_client *sa, struct saj *j);
/* The responder for SA class requests: a ReportResp for a Report from
 * the SA we subscribed with (its length), 0 for anything else. */
size_t subs_exec_answer(const uint8_t *req, size_t len, uint8_t *resp, size_t cap);

#endif
