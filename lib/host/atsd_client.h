/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Client side of the atsd local resolver protocol (atsd_proto.h): one
 * request line at a time, its answer read whole. */
#ifndef IBATS_ATSD_CLIENT_H
#define IBATS_ATSD_CLIENT_H

#include <stddef.h>

#include "atsd_proto.h"

struct atsd_client_reply {
	int ok;
	char code[32];        /* ERR: an errno name such as ENOENT */
	char message[256];    /* ERR: words */
	char **lines;         /* OK: N lines */
	size_t nlines;
};

/* A connection for many requests, one at a time (programs that resolve
 * often keep one open instead of connecting per lookup). */
struct atsd_client_conn;
int atsd_client_connect(const char *path, struct atsd_client_conn **out);
/* The same without ever waiting: connect(2) on a Unix socket waits, with
 * no timeout, for room in the listen backlog of an agent that accepts
 * nothing (stopped, wedged); this one is -EAGAIN then. The connection
 * stays non-blocking: a request the agent's full socket buffer cannot
 * take is -EAGAIN too (atsd_client_ask waits for answers in poll(2)).
 * For a caller that must never block for longer than its timeout (the
 * ats provider's worker in ibacm). */
int atsd_client_connect_nowait(const char *path, struct atsd_client_conn **out);
/* Frees c and closes its fd: no shutdown(2), nothing sent, so a child of
 * fork() can drop its copy while the parent's connection goes on. */
void atsd_client_disconnect(struct atsd_client_conn *c);
/* -errno when the agent cannot be reached or answers garbage (the
 * connection is then unusable); 0 with rep filled otherwise. */
int atsd_client_ask(struct atsd_client_conn *c, const char *request, unsigned timeout_ms,
	     struct atsd_client_reply *rep);

/* Send one request to the agent at path. -errno when the agent cannot be
 * reached or answers garbage; 0 with rep filled otherwise. */
int atsd_client_request(const char *path, const char *request, unsigned timeout_ms,
		 struct atsd_client_reply *rep);
void atsd_client_reply_free(struct atsd_client_reply *rep);

#endif
