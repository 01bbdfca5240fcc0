/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* A third-party program of libibats for the integration tests: it uses
 * <ibats/ibats.h> and the shared library only.
 *
 *   ibats_lookup [-S SOCK] [-n] [-A] [-p PKEY] [-T THREADS] [-c COUNT]
 *                [-s SECONDS] [-F IP2] [-R N] [-d DEPTH] resolve IP | reverse GID |
 *                primary GID | check GID IP | checklid GID LID IP
 *
 * Prints the records as atsd does ("SID GID PKEY LEASE IP"), exits with
 * atsctl's status (ibats_exit_code). -T/-c: THREADS threads share one
 * handle and ask COUNT times each; every answer must equal the first.
 * -s: ask again and again for SECONDS (a test kills atsd meanwhile);
 * every answer must equal the first. -F: after the first lookup the
 * process forks; the child resolves IP2 COUNT times on the same handle
 * while the parent asks its own question COUNT times; every answer must
 * be the one to the process's own question. -R: thread k resolves the
 * IPv4 address IP + k % N (its last octet) instead, and every answer
 * must be one record of that address (answers of lookups in flight
 * together never cross). -d: ibats_opts.sa_depth. checklid: the
 * listener's check of a REQ claiming GID from LID (decimal or 0x hex)
 * with IP as its A11 source (ibats_check_peer_lid). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ibats/ibats.h>

static struct ibats *h;
static const char *cmd, *arg, *arg2, *arg3;
static uint16_t pkey;
static char first[8192];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int mismatches;

static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;

	if (ss->ss_family == AF_INET) {
		memcpy(&s4, ss, sizeof(s4));
		inet_ntop(AF_INET, &s4.sin_addr, buf, (socklen_t)len);
	} else if (ss->ss_family == AF_INET6) {
		memcpy(&s6, ss, sizeof(s6));
		inet_ntop(AF_INET6, &s6.sin6_addr, buf, (socklen_t)len);
	} else {
		snprintf(buf, len, "-");
	}
}

static void format(const struct ibats_record *r, size_t n, char *out, size_t len)
{
	size_t i, off = 0;

	out[0] = '\0';
	for (i = 0; i < n && off < len; i++) {
		char gid[INET6_ADDRSTRLEN], ip[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, r[i].gid, gid, sizeof(gid));
		addr_text(&r[i].addr, ip, sizeof(ip));
		off += (size_t)snprintf(out + off, len - off, "0x%016" PRIx64 " %s 0x%04x %" PRIu32 " %s%s\n",
					r[i].sid, gid, r[i].pkey, r[i].lease, ip,
					r[i].primary ? " (primary)" : "");
	}
}

static int parse_ip(const char *s, struct sockaddr_storage *ss)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, s, &s4.sin_addr) == 1) {
		memcpy(ss, &s4, sizeof(s4));
		return 0;
	}
	if (inet_pton(AF_INET6, s, &s6.sin6_addr) == 1) {
		memcpy(ss, &s6, sizeof(s6));
		return 0;
	}
	return -EINVAL;
}

/* One lookup of a (the command's argument); its answer as text in out. */
static int ask_arg(const char *a, char *out, size_t len)
{
	struct ibats_record *r = NULL, one;
	struct sockaddr_storage ss;
	uint8_t gid[16];
	size_t n = 0;
	int ret;

	out[0] = '\0';
	if (!strcmp(cmd, "resolve")) {
		ret = ibats_resolve(h, a, pkey, &r, &n);
		if (!ret)
			format(r, n, out, len);
		ibats_records_free(r);
		return ret;
	}
	if (inet_pton(AF_INET6, a, gid) != 1)
		return -EINVAL;
	if (!strcmp(cmd, "reverse")) {
		ret = ibats_reverse(h, gid, pkey, &r, &n);
		if (!ret)
			format(r, n, out, len);
		ibats_records_free(r);
		return ret;
	}
	if (!strcmp(cmd, "primary")) {
		ret = ibats_primary(h, gid, pkey, &one);
		if (!ret)
			format(&one, 1, out, len);
		return ret;
	}
	if (!strcmp(cmd, "check") && arg2) {
		if (parse_ip(arg2, &ss))
			return -EINVAL;
		ret = ibats_check_peer(h, gid, (struct sockaddr *)&ss, out, len - 1);
		strcat(out, "\n");
		return ret;
	}
	if (!strcmp(cmd, "checklid") && arg3) {
		char *end;
		unsigned long lid = strtoul(arg2, &end, 0);

		if (*end || lid > 0xffff || parse_ip(arg3, &ss))
			return -EINVAL;
		ret = ibats_check_peer_lid(h, gid, (uint16_t)lid, (struct sockaddr *)&ss, out,
					   len - 1);
		strcat(out, "\n");
		return ret;
	}
	return -EINVAL;
}

static int ask(char *out, size_t len)
{
	return ask_arg(arg, out, len);
}

static int count = 1, spread;
static double seconds;

/* -R: thread k's address and whether out is its one record. */
static int spread_arg(long k, char *ip, size_t len)
{
	unsigned a, b, c, d;

	if (sscanf(arg, "%u.%u.%u.%u", &a, &b, &c, &d) != 4)
		return -EINVAL;
	snprintf(ip, len, "%u.%u.%u.%u", a, b, c, (d + (unsigned)(k % spread)) & 255);
	return 0;
}

static int spread_right(const char *out, const char *ip)
{
	const char *sp = strrchr(out, ' '), *nl = strchr(out, '\n');

	/* "SID GID PKEY LEASE IP[ (primary)]\n", one line. */
	if (!nl || nl[1])
		return 0;
	if (sp && !strcmp(sp, " (primary)\n"))
		while (sp > out && *--sp != ' ')
			;
	return sp && !strncmp(sp + 1, ip, strlen(ip)) &&
	       (sp[1 + strlen(ip)] == ' ' || sp[1 + strlen(ip)] == '\n');
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *p)
{
	char out[8192], ip[32];
	double end = now() + seconds;
	int i;

	if (spread && spread_arg((long)p, ip, sizeof(ip)))
		return NULL;
	for (i = 0; i < count || (seconds > 0 && now() < end); i++) {
		int ret = spread ? ask_arg(ip, out, sizeof(out)) : ask(out, sizeof(out));

		pthread_mutex_lock(&lock);
		if (ret || (spread ? !spread_right(out, ip) : strcmp(out, first) != 0)) {
			if (mismatches++ < 5)
				fprintf(stderr, "ibats_lookup: answer %d: %s%s", i,
					ret ? strerror(-ret) : out, ret ? "\n" : "");
		}
		pthread_mutex_unlock(&lock);
		if (seconds > 0)
			usleep(10000);
	}
	return NULL;
}

/* -F: parent and child on the handle the first lookup connected. */
static int fork_run(const char *ip2)
{
	char want[sizeof(first)];
	const char *own = arg, *c = cmd;
	int ret, st;
	pid_t pid;

	cmd = "resolve";
	arg = ip2;
	ret = ask(want, sizeof(want));
	cmd = c;
	arg = own;
	if (ret)
		return ret;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		cmd = "resolve";
		arg = ip2;
		memcpy(first, want, sizeof(first));
		worker(NULL);
		_exit(mismatches ? 1 : 0);
	}
	worker(NULL);
	if (waitpid(pid, &st, 0) != pid)
		return -errno;
	printf("fork: %d different answer(s) in the parent, child %s\n", mismatches,
	       WIFEXITED(st) && !WEXITSTATUS(st) ? "all its own" : "got others' or none");
	return mismatches || !WIFEXITED(st) || WEXITSTATUS(st) ? -EIO : 0;
}

int main(int argc, char **argv)
{
	struct ibats_opts o = { 0 };
	const char *fork_ip = NULL;
	int c, threads = 0, ret, i;
	pthread_t *t;

	while ((c = getopt(argc, argv, "S:nAp:T:c:s:t:F:R:d:")) != -1) {
		switch (c) {
		case 'S': o.socket_path = optarg; break;
		case 'n': o.flags |= IBATS_NO_AGENT; break;
		case 'A': o.flags |= IBATS_NO_SA; break;
		case 'p': pkey = (uint16_t)strtoul(optarg, NULL, 0); break;
		case 'T': threads = atoi(optarg); break;
		case 'c': count = atoi(optarg); break;
		case 's': seconds = atof(optarg); break;
		case 't': o.sa_timeout_ms = (unsigned)atoi(optarg); break;
		case 'F': fork_ip = optarg; break;
		case 'R': spread = atoi(optarg); break;
		case 'd': o.sa_depth = (unsigned)atoi(optarg); break;
		default: return 2;
		}
	}
	if (argc - optind < 2)
		return 2;
	cmd = argv[optind];
	arg = argv[optind + 1];
	arg2 = argc - optind > 2 ? argv[optind + 2] : NULL;
	arg3 = argc - optind > 3 ? argv[optind + 3] : NULL;
	ret = ibats_open(&h, &o);
	if (ret) {
		fprintf(stderr, "ibats_lookup: ibats_open: %s\n", strerror(-ret));
		return ibats_exit_code(ret);
	}
	ret = ask(first, sizeof(first));
	fputs(first, stdout);
	if (ret)
		fprintf(stderr, "ibats_lookup: %s %s: %s\n", cmd, arg, strerror(-ret));
	if (!ret && fork_ip) {
		ret = fork_run(fork_ip);
	} else if (!ret && (threads > 0 || seconds > 0)) {
		if (threads < 1)
			threads = 1;
		t = calloc((size_t)threads, sizeof(*t));
		for (i = 0; t && i < threads; i++)
			pthread_create(&t[i], NULL, worker, (void *)(long)i);
		for (i = 0; t && i < threads; i++)
			pthread_join(t[i], NULL);
		free(t);
		printf("%d thread(s): %d different answer(s)\n", threads, mismatches);
		if (mismatches)
			ret = -EIO;
	}
	ibats_close(h);
	return ibats_exit_code(ret);
}
