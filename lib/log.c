#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static const char *log_ident = "ibats";
static enum log_level log_level = LOG_LVL_WARN;

void log_init(const char *ident, enum log_level level)
{
	log_ident = ident;
	log_level = level;
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

enum log_level log_get_level(void)
{
	return log_level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "error", "warning", "info", "debug" };
	va_list ap;

	if (level > log_level)
		return;
	fprintf(stderr, "%s: %s: ", log_ident, tag[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
