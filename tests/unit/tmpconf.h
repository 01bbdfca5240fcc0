/* A config file with the given text, for the config parser tests: one
 * per process under /tmp, named by tag; the test's teardown unlinks it. */
#ifndef IBATS_TEST_TMPCONF_H
#define IBATS_TEST_TMPCONF_H

#include <stdio.h>
#include <unistd.h>

static inline void tmpconf_write(char *path, size_t len, const char *tag, const char *text)
{
	FILE *f;

	snprintf(path, len, "/tmp/%s.%d", tag, (int)getpid());
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#endif
