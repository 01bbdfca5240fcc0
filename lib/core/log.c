#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "log.h"

static const char *log_ident = "ibats";
static enum log_level log_level = LOG_LVL_WARN;
static int log_syslog;

void log_init(const char *ident, enum log_level level)
{
	log_ident = ident;
	log_level = level;
}

void log_to_syslog(int on)
{
	if (on && !log_syslog)
		openlog(log_ident, LOG_PID, LOG_DAEMON);
	else if (!on && log_syslog)
		closelog();
	log_syslog = on;
}

void log_set_level(enum log_level level)
{
	log_level = level;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "error", "warning", "info", "debug" };
	va_list ap;

	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

	if (level > log_level)
		return;
	if (log_syslog) {
		va_start(ap, fmt);
		vsyslog(prio[level], fmt, ap);
		va_end(ap);
		return;
	}
	fprintf(stderr, "%s: %s: ", log_ident, tag[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
