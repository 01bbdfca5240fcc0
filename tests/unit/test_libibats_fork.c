/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* libibats after fork(): a handle opened and used before the fork is
 * used by parent and child at once. Through atsd each process must get
 * the answers to its own questions (issue 22, finding 4: they shared one
 * stream); on the SA path the child must use a umad port of its own, with
 * TIDs of its own, and leave the parent's fd and agents alone.
 *
 * The umad calls of the SA path are faked below: the executable's
 * definitions come before libibumad's, so the library's mport code talks
 * to them. Every request times out at once (no SA here); what is checked
 * is which fd carried it, with which TID, from which process, and that a
 * lookup failed before it was sent leaves the SA window sound. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <infiniband/umad.h>

#include "fake_sock.h"
#include "ibats/ibats.h"
#include "libibats/priv.h"

#define LOOKUPS 3000
#define GID_A "fe80::2:c903:a:1"

/* ---- a fake atsd: one thread per connection, as atsd serves many ---- */

struct fake_agent {
	struct fake_sock_srv srv; /* first: fake_sock_teardown */
	int accepts; /* atomic */
};

static void *conn_main(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char buf[ATSD_PROTO_LINE_MAX], out[512];
	size_t have = 0;
	ssize_t n;

	while ((n = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		char *nl, ip[64];

		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			/* The record carries the address asked for: an answer
			 * shows whose question it was. */
			if (sscanf(buf, "resolve %63s 0xffff", ip) == 1)
				snprintf(out, sizeof(out),
					 "OK 1\n0x10000ce100415453 " GID_A " 0xffff 4294967295 %s\n", ip);
			else
				snprintf(out, sizeof(out), "ERR EINVAL bad request\n");
			if (write(fd, out, strlen(out)) < 0)
				break;
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have + 1);
		}
	}
	close(fd);
	return NULL;
}

static void *fa_main(void *arg)
{
	struct fake_agent *fa = arg;
	pthread_t t;
	int fd;

	while ((fd = accept(fa->srv.lfd, NULL, NULL)) >= 0) {
		__atomic_add_fetch(&fa->accepts, 1, __ATOMIC_SEQ_CST);
		if (pthread_create(&t, NULL, conn_main, (void *)(intptr_t)fd))
			close(fd);
		else
			pthread_detach(t);
	}
	return NULL;
}

static int fa_setup(void **state)
{
	struct fake_agent *fa = calloc(1, sizeof(*fa));

	assert_non_null(fa);
	fake_sock_start(&fa->srv, fa_main, fa);
	*state = fa;
	return 0;
}

/* LOOKUPS resolves of 10.<id>.x.y: the answers that were not for the
 * address asked (or no answer at all). */
static int lookups(struct ibats *h, int id)
{
	int i, bad = 0;

	for (i = 0; i < LOOKUPS; i++) {
		struct ibats_record *r;
		struct sockaddr_in s4;
		char ip[32], got[32];
		size_t n;

		snprintf(ip, sizeof(ip), "10.%d.%d.%d", id, i / 250, i % 250 + 1);
		if (ibats_resolve(h, ip, 0, &r, &n) || n != 1) {
			bad++;
			continue;
		}
		memcpy(&s4, &r[0].addr, sizeof(s4));
		if (!inet_ntop(AF_INET, &s4.sin_addr, got, sizeof(got)) || strcmp(got, ip))
			bad++;
		ibats_records_free(r);
	}
	return bad;
}

/* Parent and child ask at once on the handle connected before fork(). */
static void test_fork_agent(void **state)
{
	struct fake_agent *fa = *state;
	struct ibats_opts o = { .socket_path = fa->srv.path, .flags = IBATS_NO_SA,
				.agent_timeout_ms = 500 };
	struct ibats_record *r;
	struct ibats *h;
	int st, bad;
	size_t n;
	pid_t pid;

	assert_int_equal(ibats_open(&h, &o), 0);
	assert_int_equal(ibats_resolve(h, "10.0.0.1", 0, &r, &n), 0);
	ibats_records_free(r);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid)
		_exit(lookups(h, 2) ? 1 : 0);
	bad = lookups(h, 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(bad, 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* The parent kept its connection; the child made its own. */
	assert_int_equal(__atomic_load_n(&fa->accepts, __ATOMIC_SEQ_CST), 2);
	ibats_close(h);
}

/* ---- a fake libibumad: a port whose fds are /dev/null ---- */

#define FK_FDS 1024

static pid_t fk_opener[FK_FDS]; /* the process that opened each fd */
static int fk_state = 4;         /* the port's state: 4 Active */
/* Counts of this process. */
static struct {
	unsigned opens;           /* in this process */
	unsigned inherited_closes; /* closes of an fd another process opened */
	unsigned unregisters;
	unsigned sends, foreign_sends, no_cloexec;
	uint32_t first_tid, last_tid; /* of this process's sends */
} fk;

int umad_init(void)
{
	return 0;
}

int umad_get_port(const char *ca_name, int portnum, umad_port_t *port)
{
	(void)ca_name;
	memset(port, 0, sizeof(*port));
	snprintf(port->ca_name, sizeof(port->ca_name), "fake0");
	port->portnum = portnum ? portnum : 1;
	port->base_lid = 2;
	port->sm_lid = 1;
	port->state = fk_state;
	port->gid_prefix = htobe64(0xfe80000000000000ULL);
	port->port_guid = htobe64(0x0002c903000a0001ULL);
	return 0;
}

int umad_release_port(umad_port_t *port)
{
	(void)port;
	return 0;
}

int umad_open_port(const char *ca_name, int portnum)
{
	int fd = open("/dev/null", O_RDWR);

	(void)ca_name;
	(void)portnum;
	if (fd < 0 || fd >= FK_FDS)
		return -EIO;
	fk_opener[fd] = getpid();
	fk.opens++;
	return fd;
}

int umad_close_port(int fd)
{
	if (fd >= 0 && fd < FK_FDS && fk_opener[fd] != getpid())
		fk.inherited_closes++;
	return close(fd);
}

int umad_register(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
		  long method_mask[16 / sizeof(long)])
{
	(void)fd;
	(void)mgmt_class;
	(void)mgmt_version;
	(void)rmpp_version;
	(void)method_mask;
	return 0;
}

int umad_unregister(int fd, int agentid)
{
	(void)fd;
	(void)agentid;
	fk.unregisters++;
	return 0;
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	const uint8_t *mad = umad_get_mad(umad);
	uint32_t tid = (uint32_t)mad[12] << 24 | (uint32_t)mad[13] << 16 |
		       (uint32_t)mad[14] << 8 | mad[15];
	int fl = fcntl(fd, F_GETFD);

	(void)agentid;
	(void)length;
	(void)timeout_ms;
	(void)retries;
	if (fd < 0 || fd >= FK_FDS || fk_opener[fd] != getpid())
		fk.foreign_sends++;
	if (fl < 0 || !(fl & FD_CLOEXEC))
		fk.no_cloexec++;
	if (!fk.sends++)
		fk.first_tid = tid;
	fk.last_tid = tid;
	return 0;
}

int umad_recv(int fd, void *umad, int *length, int timeout_ms)
{
	(void)fd;
	(void)umad;
	(void)length;
	(void)timeout_ms;
	errno = ETIMEDOUT;
	return -ETIMEDOUT;
}

/* The TID sequences of two processes are apart when neither's TIDs fall
 * within this distance of the other's. */
#define TID_APART 4096

static int tid_near(uint32_t a, uint32_t b)
{
	return (uint32_t)(a - b) < TID_APART || (uint32_t)(b - a) < TID_APART;
}

static void sa_ask(struct ibats *h)
{
	struct ibats_record *r = NULL;
	size_t n;

	/* No SA answers here: the lookup fails, its MADs are what counts. */
	assert_int_not_equal(ibats_resolve(h, "10.0.0.9", 0, &r, &n), 0);
	ibats_records_free(r);
}

static void test_fork_sa(void **state)
{
	struct ibats_opts o = { .flags = IBATS_NO_AGENT, .sa_timeout_ms = 1,
				.sa_retries = -1 };
	struct ibats *h;
	uint32_t parent_tid;
	int st;
	pid_t pid;

	(void)state;
	memset(&fk, 0, sizeof(fk));
	assert_int_equal(ibats_open(&h, &o), 0);
	sa_ask(h);
	assert_int_equal(fk.opens, 1);
	assert_true(fk.sends > 0);
	assert_int_equal(fk.no_cloexec, 0); /* the port's fd is FD_CLOEXEC */
	parent_tid = fk.last_tid;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		int fail = 0;

		memset(&fk, 0, sizeof(fk));
		sa_ask(h);
		/* A port of its own, the inherited fd closed and nothing
		 * else done to it, TIDs apart from the parent's. */
		fail |= fk.opens != 1;
		fail |= (fk.inherited_closes != 1) << 1;
		fail |= (fk.unregisters != 0) << 2;
		fail |= (!fk.sends || fk.foreign_sends) << 3;
		fail |= (fk.no_cloexec != 0) << 4;
		fail |= (tid_near(fk.first_tid, parent_tid) ||
			 tid_near(fk.last_tid, parent_tid)) << 5;
		ibats_close(h);
		_exit(fail);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* The parent goes on with its own port, untouched. */
	fk.sends = 0;
	sa_ask(h);
	assert_int_equal(fk.opens, 1);
	assert_int_equal(fk.inherited_closes, 0);
	assert_int_equal(fk.foreign_sends, 0);
	assert_true(fk.sends > 0 && fk.first_tid == parent_tid + 1);
	ibats_close(h);
}

/* A resolve from a frame far below the caller's: what the lookup left on
 * its stack stays there, untouched by the caller's next calls. */
static __attribute__((noinline)) int resolve_deep(struct ibats *h)
{
	volatile char pad[64 * 1024];
	struct ibats_record *r = NULL;
	size_t n;

	pad[0] = 0;
	return ibats_resolve(h, "10.0.0.9", 0, &r, &n) + pad[0];
}

/* Lookups that fail before their request is sent (the port not Active:
 * -ENETDOWN), then one that is sent: each request lives on its caller's
 * stack, so the window may not keep it once the lookup returned (it kept
 * them on its list of finished requests, the second linked to itself:
 * the next lookup spun on that list forever, sa_lock held). */
static void test_sa_down_then_up(void **state)
{
	struct ibats_opts o = { .flags = IBATS_NO_AGENT, .sa_timeout_ms = 1,
				.sa_retries = -1 };
	struct ibats_record *r = NULL;
	struct ibats *h;
	size_t n;

	(void)state;
	alarm(10); /* a spin is a failure, not a hung test */
	assert_int_equal(ibats_open(&h, &o), 0);
	assert_int_equal(ibats_resolve(h, "10.0.0.9", 0, &r, &n), -ETIMEDOUT);
	fk_state = 2;
	/* The window reads the port anew after PORT_READ_MS (ats_window.c). */
	usleep(150 * 1000);
	assert_int_equal(resolve_deep(h), -ENETDOWN);
	assert_int_equal(resolve_deep(h), -ENETDOWN);
	fk_state = 4;
	assert_int_equal(ibats_resolve(h, "10.0.0.9", 0, &r, &n), -ETIMEDOUT);
	assert_int_equal(ibats_resolve(h, "10.0.0.9", 0, &r, &n), -ETIMEDOUT);
	alarm(0);
	ibats_close(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fork_agent, fa_setup, fake_sock_teardown),
		cmocka_unit_test(test_fork_sa),
		cmocka_unit_test(test_sa_down_then_up),
	};

	/* A child's output is its exit status; nothing buffered twice. */
	setvbuf(stdout, NULL, _IONBF, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
