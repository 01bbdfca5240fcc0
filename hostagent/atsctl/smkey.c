/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl's SM_Key from a terminal, a file or the environment (smkey.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "core/cfg.h"
#include "smkey.h"

int smkey_parse(const char *s, uint64_t *key)
{
	return cfg_parse_u64(s, UINT64_MAX, key) ? -EINVAL : 0;
}

/* Blanks and the newline off both ends, in place. */
static char *trim(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	return s;
}

/* A line from f, wiped from buf once parsed: the key stays in one
 * place only. A line longer than buf, or with a NUL byte, is no key:
 * fgets(3) would cut it there and take its start. */
static int read_line(FILE *f, uint64_t *key)
{
	char buf[128];
	size_t n = 0;
	int c, bad = 0, ret;

	while ((c = getc(f)) != EOF && c != '\n') {
		if (n == sizeof(buf) - 1 || !c) {
			bad = 1;
			break;
		}
		buf[n++] = (char)c;
	}
	buf[n] = '\0';
	if (c == EOF && !n && !bad)
		ret = ferror(f) ? -EIO : -ENODATA;
	else
		ret = bad ? -EINVAL : smkey_parse(trim(buf), key);
	memset(buf, 0, sizeof(buf));
	return ret;
}

/* The terminal as it was while the echo is off, for the handler. */
static struct termios tty_saved;
static volatile sig_atomic_t tty_fd = -1;
static const int tty_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSIG_TTY (sizeof(tty_signals) / sizeof(tty_signals[0]))

/* ^C at the prompt: the echo back on, then the signal's own action
 * (SA_RESETHAND), as OpenSSH's readpassphrase(3) does. tcsetattr is
 * async-signal-safe (POSIX.1-2008 2.4.3). */
static void restore_tty(int sig)
{
	if (tty_fd >= 0)
		tcsetattr(tty_fd, TCSAFLUSH, &tty_saved);
	raise(sig);
}

int smkey_read_stream(FILE *f, int tty, uint64_t *key)
{
	struct sigaction sa, prev[NSIG_TTY];
	struct termios old, quiet;
	int fd = fileno(f), ret;
	size_t i;

	if (!tty)
		return read_line(f, key);
	/* getpass(3) is obsolete (POSIX.2 dropped it): the same by hand. */
	if (tcgetattr(fd, &old))
		return -errno;
	quiet = old;
	quiet.c_lflag &= ~(tcflag_t)ECHO;
	quiet.c_lflag |= ECHONL;
	tty_saved = old;
	tty_fd = fd;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = restore_tty;
	sa.sa_flags = SA_RESETHAND;
	for (i = 0; i < NSIG_TTY; i++)
		sigaction(tty_signals[i], &sa, &prev[i]);
	fputs("SM_Key: ", stderr);
	fflush(stderr);
	if (tcsetattr(fd, TCSAFLUSH, &quiet))
		ret = -errno;
	else
		ret = read_line(f, key);
	tcsetattr(fd, TCSAFLUSH, &old);
	tty_fd = -1;
	for (i = 0; i < NSIG_TTY; i++)
		sigaction(tty_signals[i], &prev[i], NULL);
	return ret;
}

int smkey_read_file(const char *path, uint64_t *key, char *err, size_t errlen)
{
	struct stat st;
	FILE *f;
	int ret;

	/* Regular files only, opened without waiting on a FIFO (cfg.h). */
	f = cfg_fopen_regular(path);
	if (!f || fstat(fileno(f), &st)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EINVAL || ret == -EISDIR ? "not a regular file" : strerror(-ret));
		if (f)
			fclose(f);
		return ret;
	}
	/* ssh's rule for private keys (OpenSSH authfile.c, sshkey_perm_ok): nobody
	 * else may read or change it. The key makes any SA request trusted
	 * (libosmats(8), "Trust"). */
	if ((st.st_mode & 077) || (st.st_uid != getuid() && st.st_uid != 0)) {
		if (st.st_mode & 077)
			snprintf(err, errlen, "%s: permissions %04o are too open: "
				 "others can read or change it (chmod 600)", path,
				 (unsigned)(st.st_mode & 07777));
		else
			snprintf(err, errlen, "%s: owned by uid %u, not by you or root", path,
				 (unsigned)st.st_uid);
		fclose(f);
		return -EPERM;
	}
	ret = read_line(f, key);
	fclose(f);
	if (ret)
		snprintf(err, errlen, "%s: the first line is not an SM_Key (decimal or 0x-hex, 64 bits)",
			 path);
	return ret;
}
