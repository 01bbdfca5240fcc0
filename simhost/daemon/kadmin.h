/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* simhostd's bench console (SIMHOST_ADMIN): `simhostd -d DIR -n NODE -C
 * CMD` sends one command and prints the one reply; the kernel side
 * parses it here. Commands: "rereg" (raise CLIENT_REREGISTER, as an SM's
 * ClientReregister would), "status" (one line of counters; cm_listens=N, the
 * service IDs ib_cm listens on, for a bench to wait for a listener;
 * sa_requests_in and sa_answers_out, SA requests received and answers
 * sent, for a bench to see an SM's backlog), "drop CLASS
 * on|off" (every MAD of the class reaching the node is lost: one-way
 * loss), "ipoib add NAME[:PKEY]"
 * and "ipoib del NAME" (an IPoIB interface created or deleted, as `ip
 * link add NAME type ipoib` and `ip link del NAME`), "ipoib addr NAME
 * IP/PREFIX" and "ipoib addr del NAME IP/PREFIX" (`ip addr add|del
 * IP/PREFIX dev NAME`: what rdma_cm checks an IP connection request
 * against, kinet.h; the bench mirrors it where atsd reads addresses),
 * "ipoib link NAME up|down" (`ip link set NAME up|down`), "modprobe ib_cm"
 * and "rmmod ib_cm" (kmod.h), "rmpp off|on" (off: the node's MAD layer
 * without RMPP, as an SA path that loses it is: a long send goes out as
 * its first MAD, RMPP MADs reach the reader unACKed, one by one; for the
 * product's fallbacks). Links go up and down on ibsim's own console. */
#ifndef IBATS_KADMIN_H
#define IBATS_KADMIN_H

#include <stddef.h>
#include <stdint.h>

enum kadmin_op {
	KADMIN_REREG,
	KADMIN_STATUS,
	KADMIN_DROP,
	KADMIN_IPOIB_ADD,
	KADMIN_IPOIB_DEL,
	KADMIN_MODPROBE_CM,
	KADMIN_RMMOD_CM,
	KADMIN_RMPP,
	KADMIN_IPOIB_ADDR,
	KADMIN_IPOIB_LINK,
};

struct kadmin_cmd {
	enum kadmin_op op;
	uint8_t mgmt_class; /* KADMIN_DROP */
	int on; /* KADMIN_DROP, KADMIN_RMPP */
	char name[16]; /* KADMIN_IPOIB_ADD, _DEL */
	uint16_t pkey; /* KADMIN_IPOIB_ADD */
	char addr[64]; /* KADMIN_IPOIB_ADDR: IP/PREFIX; on: add (1) or del (0) */
};

/* One command packet (len bytes, no terminator needed): 0, or -EINVAL
 * with the reply to give in err. */
int kadmin_parse(const uint8_t *buf, size_t len, struct kadmin_cmd *cmd, char *err,
		 size_t errlen);
/* The client: connects to DIR/NODE/kernel.sock, sends cmd, prints the
 * reply. Exit status: 0, 1 for an "error" reply, 2 when it cannot. */
int kadmin_console(const char *dir, const char *node, const char *cmd);

#endif
