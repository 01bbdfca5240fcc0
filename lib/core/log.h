/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Logging for the host-side programs (the plugin logs through OSM_LOG). */
#ifndef IBATS_LOG_H
#define IBATS_LOG_H

enum log_level {
	LOG_LVL_ERR = 0,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
};

/* Under systemd with stderr still the journal's stream ($JOURNAL_STREAM,
 * sd_journal_stream_fd(3)), each stderr line starts with its sd-daemon(3)
 * priority, "<3>" to "<7>", so journalctl -p filters them. */
void log_init(const char *ident, enum log_level level);
void log_set_level(enum log_level level);
/* Send messages to syslog (LOG_DAEMON) instead of stderr. */
void log_to_syslog(int on);
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...) log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

#endif
