/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The verdict of a configuration check as atsctl check-config and atsd
 * --check-config print it: one word for a valid file ("PATH: valid
 * KIND"), the same warnings and the same --json document, whichever
 * program checked. */
#ifndef IBATS_CONF_CHECK_H
#define IBATS_CONF_CHECK_H

#include <stddef.h>

struct conf_check {
	const char *path;       /* the file checked */
	const char *kind;       /* "atsd.conf", "osmats.conf" */
	int defaults;           /* no file: the built-in defaults were checked */
	char err[1024];         /* "" valid, else the first error */
	char warn[1024];        /* "" none, else one warning a line */
};

void conf_check_init(struct conf_check *c, const char *path, const char *kind);
/* One more warning line (cut when warn is full). */
void conf_check_warn(struct conf_check *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Standard output: "PATH: valid KIND" (with ", the defaults: no such
 * file" for c->defaults), or with json {"file", "config", "valid",
 * "defaults", "error", "warnings"}; standard error: "PROG: warning: W"
 * per warning and "PROG: ERR". 0 when valid, else 1. */
int conf_check_report(const struct conf_check *c, const char *prog, int json);

#endif
