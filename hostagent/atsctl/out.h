/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's output shared by its commands: argument errors, SA errors in
 * words, and ATS records as a table or one JSON document. */
#ifndef IBATS_OUT_H
#define IBATS_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "ctl.h"
#include "core/json.h"
#include "core/sr.h"

/* "atsctl: WHAT 'ARG': WHY" on stderr; returns CTL_EXIT_USAGE. */
int out_usage_err(const char *what, const char *arg, const char *why);
/* "atsctl: ARG: not found: DETAIL" on stderr, ARG as the user typed
 * it, for every command that finds nothing (atsctl.8, EXIT STATUS);
 * detail may be NULL. Returns CTL_EXIT_NOTFOUND. */
int out_not_found(const char *arg, const char *detail);
/* What the SA said, or why it said nothing; CTL_EXIT_NOTFOUND for -ENOENT,
 * else CTL_EXIT_SA. */
int out_sa_fail(const struct ctl *c, const char *what, int err);
/* The same from what a lookup through libibats saw: the SA's last MAD
 * status and the SM LID asked (ibats_lookup_info(3)). */
int out_sa_err(const struct ctl *c, const char *what, int err, uint16_t st, uint16_t sm_lid);
/* partial: records of GIDs not on the fabric may be missing (JSON only);
 * local: atsd's own records while the SA does not answer (ATS 5.1). */
void out_records(int json, int partial, int local, const struct sr_record *r, size_t n);
/* One record on one line for a terminal, as purge and audit list them:
 * SID GID PKEY LEASE IP, the lease "infinite" as dump prints it. */
int out_record_text(char *buf, size_t len, const struct sr_record *r);
/* One record's members (sid, gid, pkey, lease, ip, primary) in the JSON
 * object open in j: what every --json record holds; ip null when
 * ServiceData8 holds no address. */
void out_record_members(struct json *j, const struct sr_record *r);
/* The records document every lookup prints with --json: {"ip" (when
 * given), "records": [ ... ], "partial", "local"}; the caller writes the
 * records between the two. */
void out_records_open(struct json *j, const char *ip);
void out_records_close(struct json *j, int partial, int local);

/* Text of atsd's for a terminal: control bytes (an escape sequence from
 * whatever listens on the socket) as \xNN, as JSON escapes them; cut to
 * len. Returns buf. */
const char *out_clean(const char *s, char *buf, size_t len);

#endif
