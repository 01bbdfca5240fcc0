/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Files of a given text for the unit tests: config files for the
 * parsers (one per process under /tmp, named by tag; the test's teardown
 * unlinks it), and the victims of planted links, whose text must survive
 * a root writer (afile.c). */
#ifndef IBATS_TEST_TMPCONF_H
#define IBATS_TEST_TMPCONF_H

#include <stdio.h>
#include <unistd.h>

/* path holds text, and nothing else. */
static inline void tmpconf_put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static inline void tmpconf_write(char *path, size_t len, const char *tag, const char *text)
{
	snprintf(path, len, "/tmp/%s.%d", tag, (int)getpid());
	tmpconf_put(path, text);
}

/* path holds exactly want (up to 127 bytes are compared). */
static inline void tmpconf_assert(const char *path, const char *want)
{
	char buf[128];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_string_equal(buf, want);
}

#endif
