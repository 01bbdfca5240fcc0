#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"

static const char *log_ident = "ibats";
static enum log_level log_level = LOG_LVL_WARN;
static int log_syslog;
static int log_journal; /* stderr is journald's stream: "<N>" prefixes */

/* sd_journal_stream_fd(3): $JOURNAL_STREAM is "DEV:INODE" of the stream
 * systemd connected; only when stderr is still that stream (not
 * redirected by a shell in between) does journald read the prefixes. */
static int stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	int end = 0;

	if (!e || sscanf(e, "%llu:%llu%n", &dev, &ino, &end) != 2 || e[end])
		return 0;
	if (fstat(STDERR_FILENO, &st))
		return 0;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_init(const char *ident, enum log_level level)
{
	log_ident = ident;
	log_level = level;
	log_journal = stderr_is_journal();
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
	/* syslog(3)'s priorities, which sd-daemon(3)'s SD_ERR... are. */
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char line[1024];
	va_list ap;
	int n;

	if (level > log_level)
		return;
	if (log_syslog) {
		va_start(ap, fmt);
		vsyslog(prio[level], fmt, ap);
		va_end(ap);
		return;
	}
	if (log_journal)
		n = snprintf(line, sizeof(line), "<%d>%s: %s: ", prio[level], log_ident, tag[level]);
	else
		n = snprintf(line, sizeof(line), "%s: %s: ", log_ident, tag[level]);
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	/* One write per line: the SA thread's lines do not split ours, and
	 * journald sees each prefix at the start of a line. */
	fprintf(stderr, "%s\n", line);
}
