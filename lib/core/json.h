/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The one JSON writer (RFC 8259) behind every --json output and the
 * plugin's state file. It places the commas and escapes every string:
 * quote, backslash and control bytes become escapes, and bytes that are
 * not UTF-8 become U+FFFD, so a ServiceName or an owner name off the wire
 * can never break the document. */
#ifndef IBATS_JSON_H
#define IBATS_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	int err;                        /* -errno: write failed or misuse */
	unsigned char n[JSON_MAX_DEPTH]; /* a member written at each level */
	unsigned char arr[JSON_MAX_DEPTH]; /* that level is an array */
	unsigned char pretty;           /* levels with one member a line */
};

/* pretty: how many levels put each member on a line of its own, indented
 * (for people and grep); deeper values stay on their parent's line.
 * 0: one line; JSON_PRETTY_ALL: every level. */
#define JSON_PRETTY_ALL JSON_MAX_DEPTH
void json_init(struct json *j, FILE *f, int pretty);
/* 0 when the document is complete and every write succeeded, else
 * -errno. Ends the line. */
int json_fini(struct json *j);

/* key is the member name inside an object, NULL inside an array or at
 * the top. */
void json_obj(struct json *j, const char *key);
void json_arr(struct json *j, const char *key);
void json_end(struct json *j);

void json_str(struct json *j, const char *key, const char *s);
/* n bytes that may hold anything, NUL included. */
void json_strn(struct json *j, const char *key, const void *s, size_t n);
void json_fmt(struct json *j, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_dbl(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, int v);
void json_null(struct json *j, const char *key);
/* 64-bit identifiers as strings, "0x%016" PRIx64: JSON numbers lose
 * precision above 2^53 in most parsers. */
void json_hex64(struct json *j, const char *key, uint64_t v);
void json_hex16(struct json *j, const char *key, uint16_t v);

/* Escape n bytes of s into buf (without quotes), NUL-terminated; returns
 * the length the whole escape needs, as snprintf does. */
size_t json_escape(char *buf, size_t len, const void *s, size_t n);

#endif
