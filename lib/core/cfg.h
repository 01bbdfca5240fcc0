/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Shared pieces of the strict config parsers (osmats.conf, atsd.conf). */
#ifndef IBATS_CFG_H
#define IBATS_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* yes/no, true/false, on/off, 1/0 (any case). -EINVAL otherwise. */
int cfg_parse_bool(const char *v, int *out);
/* Decimal or 0x-hex, no sign, at most max. */
int cfg_parse_u64(const char *v, uint64_t max, uint64_t *out);
/* A GUID or ServiceID: hex, 1..16 digits, "0x" optional (as ibstat and
 * saquery print them); never decimal or octal. */
int cfg_parse_hex64(const char *v, uint64_t *out);

/* Typed setters for key tables: on a bad value they write
 * "key: 'value' is not ..." into msg and return -EINVAL, so both config
 * files word their errors alike. */
int cfg_set_bool(const char *key, const char *v, int *out, char *msg, size_t len);
int cfg_set_u32(const char *key, const char *v, uint32_t min, uint32_t max,
		uint32_t *out, char *msg, size_t len);
/* v must be one of names[0..n-1]; *out becomes its index. */
int cfg_set_choice(const char *key, const char *v, const char *const *names,
		   size_t n, int *out, char *msg, size_t len);

/* Reads the next meaningful line: comments (#) and blank lines skipped,
 * blanks trimmed. Returns 1 with *line set, 0 at the end, -EINVAL for an
 * overlong line or a NUL byte (msg says so). *lineno counts every line
 * read. */
int cfg_next_line(FILE *f, char *buf, size_t len, unsigned *lineno,
		  char **line, char *msg, size_t msglen);

/* Split "key value" or "key = value": *key and *val point into line. */
void cfg_split(char *line, char **key, char **val);

/* path opened for reading if it is a regular file, else NULL with errno
 * set (EISDIR a directory, EINVAL a FIFO, socket or device): a FIFO no one
 * writes to must not hang the open, so it is opened O_NONBLOCK. */
FILE *cfg_fopen_regular(const char *path);

/* A whole file of "key value" lines against a key table: unknown keys,
 * keys given twice (unless repeatable), keys without a value are errors.
 * key(i, &repeat) names table entry i; set() stores a value or writes
 * why not into msg. Returns 0, -ENOENT (no file), or -EINVAL with err =
 * "path:line: what". */
typedef const char *(*cfg_key_fn)(size_t i, int *repeat);
typedef int (*cfg_set_fn)(void *ctx, size_t i, char *val, char *msg, size_t len);
int cfg_load(const char *path, size_t nkeys, cfg_key_fn key, cfg_set_fn set,
	     void *ctx, char *err, size_t errlen);

/* set() returns CFG_WARN, msg set, for a value that is well formed but
 * names what this machine lacks (a group): the daemon refuses it at
 * start, a check elsewhere (a configuration server) only warns. */
#define CFG_WARN 1
/* cfg_load that takes a CFG_WARN value and puts "path:line: msg\n" in
 * warn (one line each, "" none, cut at warnlen) instead of failing;
 * cfg_load fails on it. */
int cfg_load_warn(const char *path, size_t nkeys, cfg_key_fn key, cfg_set_fn set,
		  void *ctx, char *err, size_t errlen, char *warn, size_t warnlen);

/* The line of path that sets key (its first), 0 when none does or the
 * file cannot be read: for a message about a value checked after the
 * load (osmats.conf's replication_key_file). */
unsigned cfg_key_line(const char *path, const char *key);

#endif
