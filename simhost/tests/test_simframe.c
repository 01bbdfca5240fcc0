/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated host's framing of umad messages (simhost/wire/
 * simframe.c, simhost.h simhost_frame): how a message is cut into packets,
 * which packets a receiver takes, and a message longer than AF_UNIX's
 * largest packet (~4 MiB) through a real SOCK_SEQPACKET pair, with a
 * short one after it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "simhost/wire/simframe.h"

#define CHUNK SIMHOST_CHUNK
#define FIRST SIMHOST_FRAME_FIRST
#define LAST SIMHOST_FRAME_LAST

static void test_cut_short(void **state)
{
	struct simhost_frame f;
	size_t plen;

	(void)state;
	simframe_at(&f, 320, 0, &plen);
	assert_int_equal(f.flags, FIRST | LAST);
	assert_int_equal(f.total, 320);
	assert_int_equal(plen, 320);
	simframe_at(&f, CHUNK, 0, &plen);
	assert_int_equal(f.flags, FIRST | LAST);
	assert_int_equal(plen, CHUNK);
}

static void test_cut_long(void **state)
{
	size_t total = 5u * 1024 * 1024 + 7, off = 0, plen, n = 0;
	struct simhost_frame f;

	(void)state;
	while (off < total) {
		simframe_at(&f, total, off, &plen);
		assert_int_equal(f.total, total);
		assert_int_equal(f.flags, (off ? 0 : FIRST) | (off + plen == total ? LAST : 0));
		assert_int_equal(plen, off + CHUNK <= total ? CHUNK : total - off);
		off += plen;
		n++;
	}
	assert_int_equal(n, total / CHUNK + 1);
	/* An exact multiple: the last chunk is full, nothing empty after it. */
	simframe_at(&f, 2 * CHUNK, CHUNK, &plen);
	assert_int_equal(f.flags, LAST);
	assert_int_equal(plen, CHUNK);
}

static int rx(struct simframe_rx *r, uint32_t flags, uint32_t total, size_t plen, size_t *off)
{
	struct simhost_frame f = { flags, total };

	return simframe_rx_next(r, &f, plen, off);
}

static void test_rx_sequence(void **state)
{
	struct simframe_rx r = { 0, 0 };
	size_t off = 99;

	(void)state;
	assert_int_equal(rx(&r, FIRST | LAST, 300, 300, &off), SIMFRAME_DONE);
	assert_int_equal(off, 0);
	assert_int_equal(rx(&r, FIRST, 2 * CHUNK + 5, CHUNK, &off), SIMFRAME_MORE);
	assert_int_equal(off, 0);
	assert_int_equal(rx(&r, 0, 2 * CHUNK + 5, CHUNK, &off), SIMFRAME_MORE);
	assert_int_equal(off, CHUNK);
	assert_int_equal(rx(&r, LAST, 2 * CHUNK + 5, 5, &off), SIMFRAME_DONE);
	assert_int_equal(off, 2 * CHUNK);
	assert_int_equal(r.total, 0);
}

static void test_rx_refused(void **state)
{
	struct simframe_rx r = { 0, 0 };
	size_t off;

	(void)state;
	/* A chunk with no message under way; an empty message. */
	assert_int_equal(rx(&r, 0, 2 * CHUNK, CHUNK, &off), -EPROTO);
	assert_int_equal(rx(&r, LAST, 2 * CHUNK, CHUNK, &off), -EPROTO);
	assert_int_equal(rx(&r, FIRST | LAST, 0, 0, &off), -EPROTO);
	/* A short message that says more follows; a whole one cut short. */
	assert_int_equal(rx(&r, FIRST, 300, 300, &off), -EPROTO);
	assert_int_equal(rx(&r, FIRST | LAST, 300, 200, &off), -EPROTO);
	/* A first packet not of the sender's cut. */
	assert_int_equal(rx(&r, FIRST, 3 * CHUNK, CHUNK - 1, &off), -EPROTO);
	assert_int_equal(r.total, 0);
	/* Mid-message: another total, a short chunk, LAST too early; each
	 * drops the message under way. */
	assert_int_equal(rx(&r, FIRST, 3 * CHUNK, CHUNK, &off), SIMFRAME_MORE);
	assert_int_equal(rx(&r, 0, 3 * CHUNK + 1, CHUNK, &off), -EPROTO);
	assert_int_equal(rx(&r, 0, 3 * CHUNK, CHUNK, &off), -EPROTO);
	assert_int_equal(rx(&r, FIRST, 3 * CHUNK, CHUNK, &off), SIMFRAME_MORE);
	assert_int_equal(rx(&r, 0, 3 * CHUNK, CHUNK - 1, &off), -EPROTO);
	assert_int_equal(rx(&r, FIRST, 3 * CHUNK, CHUNK, &off), SIMFRAME_MORE);
	assert_int_equal(rx(&r, LAST, 3 * CHUNK, CHUNK, &off), -EPROTO);
	/* A new first mid-message starts over. */
	assert_int_equal(rx(&r, FIRST, 3 * CHUNK, CHUNK, &off), SIMFRAME_MORE);
	assert_int_equal(rx(&r, FIRST | LAST, 400, 400, &off), SIMFRAME_DONE);
	assert_int_equal(off, 0);
}

/* Takes every packet there is into the message being put together in
 * msg: 1 when one is whole (*len its bytes), 0 when none is. */
static int recv_some(int fd, struct simframe_rx *r, uint8_t *msg, size_t cap, size_t *len)
{
	struct simhost_frame f;
	ssize_t n;
	size_t off;
	int v;

	while ((n = simframe_peek(fd, &f, NULL, 0)) >= 0) {
		v = simframe_rx_next(r, &f, (size_t)n, &off);
		assert_true(v >= 0);
		assert_true(off + (size_t)n <= cap);
		assert_int_equal(simframe_take(fd, &f, msg + off, (size_t)n), n);
		if (v == SIMFRAME_DONE) {
			*len = f.total;
			return 1;
		}
	}
	assert_int_equal(n, -EAGAIN);
	return 0;
}

static void test_socket(void **state)
{
	size_t total = 5u * 1024 * 1024 + 123, off = 0, soff = 0, len = 0, i;
	uint8_t *big = malloc(total), *got = malloc(total), small[300], sgot[300];
	struct simframe_rx r = { 0, 0 };
	struct simhost_frame f;
	int sv[2], sent = 0, whole = 0;

	(void)state;
	assert_non_null(big);
	assert_non_null(got);
	for (i = 0; i < total; i++)
		big[i] = (uint8_t)(i * 131 + i / 65536);
	memset(small, 0x5a, sizeof(small));
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	/* Sender and receiver take turns: each stops when the socket is
	 * full (the sender) or empty (the receiver), as simhostd's poll
	 * loop and a reader do. */
	while (!whole) {
		if (!sent) {
			int s = simframe_send(sv[0], big, total, &off);

			assert_true(s >= 0);
			sent = s;
		}
		whole = recv_some(sv[1], &r, got, total, &len);
	}
	assert_int_equal(len, total);
	assert_memory_equal(got, big, total);
	/* Nothing of it is left over, and the next message comes whole. */
	assert_int_equal(simframe_send(sv[0], small, sizeof(small), &soff), 1);
	assert_int_equal(recv_some(sv[1], &r, sgot, sizeof(sgot), &len), 1);
	assert_int_equal(len, sizeof(small));
	assert_memory_equal(sgot, small, sizeof(small));
	assert_int_equal(simframe_peek(sv[1], &f, NULL, 0), -EAGAIN);
	/* A packet too short to be framed; a closed peer. */
	assert_int_equal(send(sv[0], "abc", 3, 0), 3);
	assert_int_equal(simframe_peek(sv[1], &f, NULL, 0), -EPROTO);
	assert_int_equal(simframe_take(sv[1], &f, NULL, 0), -EPROTO);
	assert_int_equal(simframe_peek(sv[1], &f, NULL, 0), -EAGAIN);
	/* Nothing to send is no message. */
	soff = 0;
	assert_int_equal(simframe_send(sv[0], small, 0, &soff), -EMSGSIZE);
	close(sv[0]);
	assert_int_equal(simframe_peek(sv[1], &f, NULL, 0), -EPIPE);
	close(sv[1]);
	free(big);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_short),   cmocka_unit_test(test_cut_long),
		cmocka_unit_test(test_rx_sequence), cmocka_unit_test(test_rx_refused),
		cmocka_unit_test(test_socket),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
