/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The one writer of Prometheus text exposition (format 0.0.4, what the
 * node_exporter textfile collector reads), behind the plugin's
 * osmats.prom and atsd's metrics_file. It writes # HELP and # TYPE once
 * per family, checks metric and label names, and escapes label values
 * and help text, so a ServiceName or rule name off the wire can never
 * break the file. */
#ifndef IBATS_PROM_H
#define IBATS_PROM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum prom_type { PROM_COUNTER, PROM_GAUGE };

struct prom {
	FILE *f;
	int err;                /* -errno: write failed or misuse */
	char family[128];       /* the family begun, "" before the first */
};

void prom_init(struct prom *p, FILE *f);
/* 0 when every write succeeded, else the first -errno. */
int prom_fini(struct prom *p);

/* Begins a family: its # HELP and # TYPE lines. Samples that follow
 * belong to it and have its name. name must match [a-zA-Z_:][a-zA-Z0-9_:]*
 * (at most 127 bytes); a counter's name ends in _total, as Prometheus'
 * naming rules ask. Otherwise -EINVAL, and the family's samples too. */
void prom_family(struct prom *p, const char *name, enum prom_type type,
		 const char *help);
/* One sample of the family, named as it is; labels NULL or pairs of label name, value ended by a NULL name. */
void prom_u64(struct prom *p, const char *name, const char *const *labels,
	      uint64_t v);
void prom_dbl(struct prom *p, const char *name, const char *const *labels,
	      double v);

/* Escape a label value into buf (without quotes), NUL-terminated:
 * backslash, quote and newline become \\ \" \n as the format asks; bytes
 * outside printable ASCII become '?', since the format must be UTF-8 and
 * parsers disagree on anything else. Returns the length the whole
 * escape needs, as snprintf does. */
size_t prom_escape(char *buf, size_t len, const char *s);

/* Write the text that fill() produces to path atomically: a temporary
 * next to it, then rename (no fsync: see prom.c). 0 or -errno. */
int prom_write_file(const char *path, void (*fill)(struct prom *, const void *),
		    const void *arg);

#endif
