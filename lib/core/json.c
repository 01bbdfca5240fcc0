/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Length of the well-formed UTF-8 sequence at s (RFC 3629 section 4:
 * no overlong forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t utf8_len(const uint8_t *s, size_t n)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xBF;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

typedef void (*emit_fn)(void *ctx, const char *s, size_t n);

/* RFC 8259 section 7: quote, backslash and U+0000..U+001F must be
 * escaped; DEL is escaped too so that no control byte reaches a terminal. */
static void escape(const uint8_t *s, size_t n, emit_fn emit, void *ctx)
{
	char u[8];
	size_t i = 0, run;

	while (i < n) {
		for (run = 0; i + run < n; run += 1) {
			uint8_t c = s[i + run];

			if (c < 0x20 || c == '"' || c == '\\' || c >= 0x7F)
				break;
		}
		if (run) {
			emit(ctx, (const char *)s + i, run);
			i += run;
			continue;
		}
		switch (s[i]) {
		case '"':
			emit(ctx, "\\\"", 2);
			break;
		case '\\':
			emit(ctx, "\\\\", 2);
			break;
		case '\n':
			emit(ctx, "\\n", 2);
			break;
		case '\r':
			emit(ctx, "\\r", 2);
			break;
		case '\t':
			emit(ctx, "\\t", 2);
			break;
		default:
			if (s[i] < 0x20 || s[i] == 0x7F) {
				snprintf(u, sizeof(u), "\\u%04x", s[i]);
				emit(ctx, u, 6);
				break;
			}
			run = utf8_len(s + i, n - i);
			if (run) {
				emit(ctx, (const char *)s + i, run);
				i += run;
				continue;
			}
			emit(ctx, "\\ufffd", 6);
			break;
		}
		i++;
	}
}

struct buf_sink {
	char *buf;
	size_t len, used;
};

static void buf_emit(void *ctx, const char *s, size_t n)
{
	struct buf_sink *b = ctx;

	if (b->used < b->len) {
		size_t room = b->len - b->used - 1;

		memcpy(b->buf + b->used, s, n < room ? n : room);
	}
	b->used += n;
}

size_t json_escape(char *buf, size_t len, const void *s, size_t n)
{
	struct buf_sink b = { buf, len, 0 };

	escape(s, n, buf_emit, &b);
	if (len)
		buf[b.used < len ? b.used : len - 1] = '\0';
	return b.used;
}

static void file_emit(void *ctx, const char *s, size_t n)
{
	struct json *j = ctx;

	if (!j->err && fwrite(s, 1, n, j->f) != n)
		j->err = -EIO;
}

static void put(struct json *j, const char *s)
{
	file_emit(j, s, strlen(s));
}

static void quoted(struct json *j, const void *s, size_t n)
{
	put(j, "\"");
	escape(s, n, file_emit, j);
	put(j, "\"");
}

/* Whether the members of the container at depth d (1 = the document's)
 * go one a line: those of the first `pretty` levels, and the elements of
 * a list one level deeper, so that a list's entries stay one a line. */
static int breaks(const struct json *j, int d)
{
	return j->pretty && d >= 1 && d <= JSON_MAX_DEPTH &&
	       (d <= j->pretty || (d == j->pretty + 1 && j->arr[d - 1]));
}

/* Separator, indent and key of the next value. */
static void member(struct json *j, const char *key)
{
	int brk = breaks(j, j->depth), i;

	/* depth is 0..JSON_MAX_DEPTH (open_ refuses more); saying so keeps
	 * the compiler's bounds analysis quiet. A flag, not a count: a byte
	 * counting members wrapped at 256 and dropped that comma. */
	if (j->depth > 0 && j->depth <= JSON_MAX_DEPTH) {
		if (j->n[j->depth - 1])
			put(j, brk ? "," : ", ");
		j->n[j->depth - 1] = 1;
	}
	if (brk) {
		put(j, "\n");
		for (i = 0; i < j->depth; i++)
			put(j, "  ");
	}
	if (key) {
		quoted(j, key, strlen(key));
		put(j, ": ");
	}
}

void json_init(struct json *j, FILE *f, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = (unsigned char)(pretty < 0 ? 0 : pretty > JSON_MAX_DEPTH ? JSON_MAX_DEPTH : pretty);
}

int json_fini(struct json *j)
{
	if (j->depth && !j->err)
		j->err = -EINVAL;
	put(j, "\n");
	if (fflush(j->f) && !j->err)
		j->err = -errno;
	return j->err;
}

static void open_(struct json *j, const char *key, int arr)
{
	if (j->depth == JSON_MAX_DEPTH) {
		j->err = -E2BIG;
		return;
	}
	member(j, key);
	put(j, arr ? "[" : "{");
	j->arr[j->depth] = (unsigned char)arr;
	j->n[j->depth++] = 0;
}

void json_obj(struct json *j, const char *key)
{
	open_(j, key, 0);
}

void json_arr(struct json *j, const char *key)
{
	open_(j, key, 1);
}

void json_end(struct json *j)
{
	int brk, i;

	if (!j->depth) {
		j->err = -EINVAL;
		return;
	}
	brk = breaks(j, j->depth) && j->n[j->depth - 1];
	j->depth--;
	if (brk) {
		put(j, "\n");
		for (i = 0; i < j->depth; i++)
			put(j, "  ");
	}
	put(j, j->arr[j->depth] ? "]" : "}");
}

void json_strn(struct json *j, const char *key, const void *s, size_t n)
{
	member(j, key);
	quoted(j, s, n);
}

void json_str(struct json *j, const char *key, const char *s)
{
	json_strn(j, key, s, strlen(s));
}

void json_fmt(struct json *j, const char *key, const char *fmt, ...)
{
	char small[256], *big;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		j->err = -EINVAL;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		json_strn(j, key, small, (size_t)n);
		return;
	}
	big = malloc((size_t)n + 1);
	if (!big) {
		j->err = -ENOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	json_strn(j, key, big, (size_t)n);
	free(big);
}

static void raw(struct json *j, const char *key, const char *v)
{
	member(j, key);
	put(j, v);
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	raw(j, key, b);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRId64, v);
	raw(j, key, b);
}

void json_dbl(struct json *j, const char *key, double v)
{
	char b[32];

	/* JSON has no NaN or infinity (RFC 8259 section 6). */
	if (!isfinite(v)) {
		raw(j, key, "null");
		return;
	}
	snprintf(b, sizeof(b), "%.6g", v);
	raw(j, key, b);
}

void json_bool(struct json *j, const char *key, int v)
{
	raw(j, key, v ? "true" : "false");
}

void json_null(struct json *j, const char *key)
{
	raw(j, key, "null");
}

void json_hex64(struct json *j, const char *key, uint64_t v)
{
	json_fmt(j, key, "0x%016" PRIx64, v);
}

void json_hex16(struct json *j, const char *key, uint16_t v)
{
	json_fmt(j, key, "0x%04x", v);
}
