/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
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

/* Control bytes of s as \xNN into out (len > 4): a newline inside a
 * message would start a line of its own, and journald would read a
 * "<0>" after it as that line's priority (log injection). */
static void escape(const char *s, char *out, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(out + n, len - n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	out[n] = '\0';
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "error", "warning", "info", "debug" };
	/* syslog(3)'s priorities, which sd-daemon(3)'s SD_ERR... are. */
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	char msg[1024], line[1024];
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	escape(line, msg, sizeof(msg));
	if (log_syslog) {
		syslog(prio[level], "%s", msg);
		return;
	}
	/* One write per line: the SA thread's lines do not split ours, and
	 * journald sees each prefix at the start of a line. */
	if (log_journal)
		fprintf(stderr, "<%d>%s: %s: %s\n", prio[level], log_ident, tag[level], msg);
	else
		fprintf(stderr, "%s: %s: %s\n", log_ident, tag[level], msg);
}
