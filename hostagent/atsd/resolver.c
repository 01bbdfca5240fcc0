/* The local resolver: a Unix socket speaking the line protocol of
 * doc/atsd-protocol.md, a cache with positive and negative TTLs, and
 * coalescing of identical lookups that miss at the same time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "mono.h"
#include "agent.h"
#include "cfg.h"
#include "ctl_auth.h"
#include "ipoib.h"
#include "log.h"

static const char *errno_name(int err)
{
	switch (err) {
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ENETDOWN: return "ENETDOWN";
	case EEXIST: return "EEXIST";
	case ENOSPC: return "ENOSPC";
	case E2BIG: return "E2BIG";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EBUSY: return "EBUSY";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case ENOTSUP: return "ENOTSUP";
	default: return "EIO";
	}
}

/* Non-root clients leave this many slots free: root can always connect,
 * whatever local users do. */
#define ROOT_RESERVED 4

static void client_close(struct agent *a, int slot)
{
	if (a->clients[slot].fd < 0)
		return;
	close(a->clients[slot].fd);
	a->clients[slot].fd = -1;
	a->clients[slot].len = 0;
	a->clients[slot].busy = 0;
	a->clients[slot].eof = 0;
}

static void client_drain(struct agent *a, int slot);

/* An answer that was outstanding went out: the client's next lines. */
static void client_answered(struct agent *a, int slot)
{
	struct client *c = &a->clients[slot];

	if (c->fd < 0)
		return;
	c->busy = 0;
	c->last_active = mono_ms();
	client_drain(a, slot);
}

void resolver_reply(struct agent *a, int slot, const char *text)
{
	size_t len = strlen(text);

	/* Answers are small; a client that does not read them is dropped. */
	if (send(a->clients[slot].fd, text, len, MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)len)
		client_close(a, slot);
}

void resolver_reply_err(struct agent *a, int slot, int err, const char *fmt, ...)
{
	char msg[300], line[340], *p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Messages quote the client's words: never echo control bytes or a
	 * stray newline that would look like another answer. */
	for (p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	snprintf(line, sizeof(line), "ERR %s %s\n", errno_name(err), msg);
	resolver_reply(a, slot, line);
}

static void reply_records(struct agent *a, int slot, const struct sr_record *r,
			  size_t n)
{
	size_t i, used = 0, cap = 32 + n * 128;
	char *buf = malloc(cap);

	if (!buf) {
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	used = (size_t)snprintf(buf, cap, "OK %zu\n", n);
	for (i = 0; i < n; i++) {
		used += (size_t)atsd_format_record(buf + used, cap - used, &r[i]);
		buf[used++] = '\n';
		buf[used] = '\0';
	}
	resolver_reply(a, slot, buf);
	free(buf);
}

int resolver_open(struct agent *a)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = a->conf.socket;
	char dir[sizeof(sa.sun_path)], *slash;
	int fd, i;

	for (i = 0; i < AGENT_MAX_CLIENTS; i++)
		a->clients[i].fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	if (!a->cache && rc_init(&a->cache, AGENT_CACHE_MAX))
		return -ENOMEM;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A socket file left by a killed agent: nobody listens on it. */
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -EADDRINUSE;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16)) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	/* Lookups are for every local program, as DNS is. */
	chmod(path, 0666);
	a->listen_fd = fd;
	return 0;
}

void resolver_close(struct agent *a)
{
	int i;

	for (i = 0; i < AGENT_MAX_CLIENTS; i++)
		client_close(a, i);
	if (a->listen_fd >= 0) {
		close(a->listen_fd);
		unlink(a->conf.socket);
		a->listen_fd = -1;
	}
	rc_fini(a->cache);
	a->cache = NULL;
	while (a->pending) {
		struct pending *p = a->pending;

		a->pending = p->next;
		free(p->w);
		free(p);
	}
}

void resolver_accept(struct agent *a)
{
	int fd, i;

	while ((fd = accept4(a->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		struct ctl_peer p = { (uid_t)-1, (gid_t)-1, 0 };
		char busy[160];
		int used = 0, mine = 0, free_slot = -1;

		if (ctl_auth_peer(fd, &p))
			log_debug("no peer credentials: treated as an unprivileged user");
		for (i = 0; i < AGENT_MAX_CLIENTS; i++) {
			if (a->clients[i].fd < 0) {
				if (free_slot < 0)
					free_slot = i;
				continue;
			}
			used++;
			mine += a->clients[i].uid == p.uid;
		}
		busy[0] = '\0';
		if (free_slot < 0 || (p.uid && used >= AGENT_MAX_CLIENTS - ROOT_RESERVED))
			snprintf(busy, sizeof(busy), "ERR EBUSY too many clients\n");
		else if (p.uid && (unsigned)mine >= a->conf.max_clients_per_uid)
			snprintf(busy, sizeof(busy),
				 "ERR EBUSY uid %u has %d connections open (max_clients_per_uid)\n",
				 (unsigned)p.uid, mine);
		if (busy[0] || free_slot < 0) {
			/* The client asks the SA itself (atsctl does). */
			if (send(fd, busy, strlen(busy), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				log_debug("client gone before the busy answer");
			close(fd);
			continue;
		}
		i = free_slot;
		memset(&a->clients[i], 0, sizeof(a->clients[i]));
		a->clients[i].fd = fd;
		a->clients[i].gen = ++a->next_gen;
		a->clients[i].uid = p.uid;
		a->clients[i].pid = p.pid;
		a->clients[i].privileged = ctl_auth_privileged(fd, &p, a->conf.control_group[0] != 0,
							       a->conf.control_gid);
		a->clients[i].last_active = mono_ms();
	}
}

void resolver_cache_clear(struct agent *a)
{
	if (a->cache)
		rc_clear(a->cache);
}

static void cache_put(struct agent *a, const char *key, const struct sr_record *r,
		      size_t n)
{
	uint32_t ttl = n ? a->conf.cache_ttl : a->conf.negative_ttl;

	/* A failed put only costs a later SA lookup. */
	if (ttl && rc_put(a->cache, key, r, n, mono_ms() + (int64_t)ttl * 1000))
		log_debug("lookup of %s not cached", key);
}

int resolver_parse_pkey(const char *s, uint16_t *pkey)
{
	if (!s) {
		*pkey = ATS_PKEY_DEFAULT;
		return 0;
	}
	return ats_pkey_parse(s, pkey);
}

static void lookup(struct agent *a, int slot, enum saj_kind kind,
		   const char *arg, const char *pk)
{
	const struct rc_ent *e;
	const struct sr_record *recs;
	struct pending *p;
	struct saj *j;
	char key[RC_KEY_MAX];
	size_t nrecs;
	uint16_t pkey;

	j = calloc(1, sizeof(*j));
	if (!j) {
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	j->kind = kind;
	if (resolver_parse_pkey(pk, &pkey)) {
		resolver_reply_err(a, slot, EINVAL, "'%s' is not a PKey", pk);
		free(j);
		return;
	}
	j->pkey = pkey;
	if (kind == SAJ_FORWARD ? ats_ip_parse(arg, &j->ip) : ats_gid_parse(arg, j->gid)) {
		resolver_reply_err(a, slot, EINVAL, "'%s' is not %s", arg,
			  kind == SAJ_FORWARD ? "an IP address" : "a GID");
		free(j);
		return;
	}
	/* Canonical key: the parsed value, not the text. */
	if (kind == SAJ_FORWARD) {
		char ip[ATS_IP_STRLEN];

		snprintf(key, sizeof(key), "%d %s %04x", kind,
			 ats_ip_format(&j->ip, ip, sizeof(ip)), pkey);
	} else {
		char gid[ATS_IP_STRLEN];

		snprintf(key, sizeof(key), "%d %s %04x", kind,
			 ats_gid_format(j->gid, gid, sizeof(gid)), pkey);
	}
	e = rc_find(a->cache, key, mono_ms());
	if (e) {
		free(j);
		recs = rc_records(e, &nrecs);
		if (nrecs) {
			a->st.cache_hits++;
			reply_records(a, slot, recs, nrecs);
		} else {
			a->st.negative_hits++;
			resolver_reply_err(a, slot, ENOENT, "no ATS record (cached)");
		}
		return;
	}
	a->st.cache_misses++;
	for (p = a->pending; p && strcmp(p->key, key); p = p->next)
		;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p) {
			free(j);
			resolver_reply_err(a, slot, ENOMEM, "out of memory");
			return;
		}
		snprintf(p->key, sizeof(p->key), "%s", key);
		p->next = a->pending;
		a->pending = p;
		j->ctx = p;
		a->st.sa_lookups++;
		saj_submit(a->saj, j);
	} else {
		a->st.coalesced++;
		free(j);
	}
	{
		struct waiter *w = realloc(p->w, (p->nw + 1) * sizeof(*w));

		if (!w) {
			resolver_reply_err(a, slot, ENOMEM, "out of memory");
			return;
		}
		p->w = w;
		w[p->nw].slot = slot;
		w[p->nw].gen = a->clients[slot].gen;
		p->nw++;
		/* Later requests of this client wait for this answer. */
		a->clients[slot].busy = 1;
	}
}

void resolver_job_done(struct agent *a, struct saj *j)
{
	struct pending *p = j->ctx, **pp;
	size_t i;

	a->st.sa_queries += j->queries;
	if (!j->err)
		cache_put(a, p->key, j->recs, j->nrecs);
	/* Out of the list first: answered clients go on with their next
	 * requests, which may be this same lookup again. */
	for (pp = &a->pending; *pp != p; pp = &(*pp)->next)
		;
	*pp = p->next;
	for (i = 0; i < p->nw; i++) {
		int slot = p->w[i].slot;

		if (a->clients[slot].fd < 0 || a->clients[slot].gen != p->w[i].gen)
			continue;
		if (j->err)
			resolver_reply_err(a, slot, -j->err, "%s", j->errmsg);
		else if (!j->nrecs)
			resolver_reply_err(a, slot, ENOENT, "no ATS record");
		else
			reply_records(a, slot, j->recs, j->nrecs);
		client_answered(a, slot);
	}
	free(p->w);
	free(p);
	/* An SA that fails lookups may have restarted: check our records. */
	if (j->err && j->err != -ENOENT)
		agent_request_sync(a, 1);
}

static void cmd_stats(struct agent *a, int slot)
{
	char buf[1024];

	snprintf(buf, sizeof(buf),
		 "OK 16\ncache_hits %" PRIu64 "\ncache_misses %" PRIu64
		 "\nnegative_hits %" PRIu64 "\ncoalesced %" PRIu64
		 "\nsa_lookups %" PRIu64 "\nsa_queries %" PRIu64 "\nsyncs %" PRIu64
		 "\nsync_failures %" PRIu64 "\nsets %" PRIu64 "\ndeletes %" PRIu64
		 "\nsm_changes %" PRIu64 "\nrecords %zu\nholds %zu\ncache_entries %zu"
		 "\nlid %u\nsm_lid %u\n",
		 a->st.cache_hits, a->st.cache_misses, a->st.negative_hits,
		 a->st.coalesced, a->st.sa_lookups, a->st.sa_queries, a->st.syncs,
		 a->st.sync_failures, a->st.sets, a->st.deletes, a->st.sm_changes,
		 a->nowned, a->src.nholds, rc_count(a->cache),
		 a->port_known ? a->port.lid : 0, a->port_known ? a->port.sm_lid : 0);
	resolver_reply(a, slot, buf);
}

/* One CM connection per line: ID ROLE STATE SID LOCAL REMOTE ADDRESSES. */
static int format_conn(char *buf, size_t len, const struct cmep_conn *c)
{
	char lg[ATS_IP_STRLEN], rg[ATS_IP_STRLEN], li[ATS_IP_STRLEN], ri[ATS_IP_STRLEN];

	return snprintf(buf, len,
			"0x%08x %s %s sid=0x%016" PRIx64 " local=%s/lid=%u/qpn=0x%06x remote=%s/lid=%u/qpn=0x%06x ip=%s:%u->%s pkey=0x%04x\n",
			c->id, c->active ? "active" : "passive", cmep_state_name(c->state),
			c->service_id, ats_gid_format(c->local_gid, lg, sizeof(lg)),
			c->local_lid, c->local_qpn,
			ats_gid_format(c->remote_gid, rg, sizeof(rg)), c->remote_lid,
			c->remote_qpn, ats_ip_format(c->active ? &c->local_ip : &c->remote_ip, li, sizeof(li)),
			c->src_port, ats_ip_format(c->active ? &c->remote_ip : &c->local_ip, ri, sizeof(ri)),
			c->pkey);
}

struct cm_waiter {
	int slot;
	unsigned gen;
};

static void cm_submit(struct agent *a, int slot, struct saj *j)
{
	struct cm_waiter *w = malloc(sizeof(*w));

	if (!w) {
		saj_free(j);
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	w->slot = slot;
	w->gen = a->clients[slot].gen;
	j->ctx = w;
	a->clients[slot].busy = 1;
	saj_submit(a->saj, j);
}

void resolver_cm_done(struct agent *a, struct saj *j)
{
	struct cm_waiter *w = j->ctx;
	char buf[CMEP_MAX_CONNS * 256 + 16];
	size_t i, used;

	if (a->clients[w->slot].fd < 0 || a->clients[w->slot].gen != w->gen) {
		free(w);
		return;
	}
	if (j->err) {
		resolver_reply_err(a, w->slot, -j->err, "%s", j->errmsg);
	} else {
		used = (size_t)snprintf(buf, sizeof(buf), "OK %zu\n", j->nconns);
		for (i = 0; i < j->nconns && used < sizeof(buf); i++)
			used += (size_t)format_conn(buf + used, sizeof(buf) - used, &j->conns[i]);
		resolver_reply(a, w->slot, buf);
	}
	client_answered(a, w->slot);
	free(w);
}

/* connect IP PORT [SID]: from this host's primary address in 0xffff. */
static void cmd_connect(struct agent *a, int slot, char **argv, int argc)
{
	struct saj *j;
	char *end;
	unsigned long port;
	size_t i;

	if (argc < 3 || argc > 4) {
		resolver_reply_err(a, slot, EINVAL, "usage: connect IP PORT [SERVICE_ID]");
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	j->kind = SAJ_CONNECT;
	port = strtoul(argv[2], &end, 0);
	if (ats_ip_parse(argv[1], &j->ip) || *end || !port || port > 0xffff) {
		resolver_reply_err(a, slot, EINVAL, "'%s %s' is not an IP address and a port", argv[1], argv[2]);
		saj_free(j);
		return;
	}
	j->port_no = (uint16_t)port;
	if (argc == 4 && cfg_parse_hex64(argv[3], &j->sid)) {
		resolver_reply_err(a, slot, EINVAL, "service ID '%s' is not hex (1..16 digits)", argv[3]);
		saj_free(j);
		return;
	}
	for (i = 0; i < a->nowned; i++)
		if (a->owned[i].sid == ATS_SID_PRIMARY && a->owned[i].pkey == ATS_PKEY_DEFAULT)
			break;
	if (i == a->nowned) {
		resolver_reply_err(a, slot, ENOENT, "this host has no primary ATS address to connect from");
		saj_free(j);
		return;
	}
	j->src = a->owned[i].ip;
	cm_submit(a, slot, j);
}

/* "PKEY MGID joined QKEY MLID MTU SL RATE" or "PKEY MGID error TEXT". */
static void cmd_ipoib(struct agent *a, int slot)
{
	char buf[AGENT_PKEYS_MAX * 160 + 16], mgid[ATS_IP_STRLEN];
	size_t i, used;

	used = (size_t)snprintf(buf, sizeof(buf), "OK %zu\n", a->ngroups);
	for (i = 0; i < a->ngroups && used < sizeof(buf); i++) {
		const struct saj_group *g = &a->groups[i];
		uint8_t m[16];

		ipoib_bcast_mgid(g->pkey, m);
		ats_gid_format(m, mgid, sizeof(mgid));
		if (g->err)
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "0x%04x %s error %s\n", g->pkey, mgid,
						 g->sa_status ? sa_status_str(g->sa_status) :
						 strerror(-g->err));
		else
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "0x%04x %s joined qkey=0x%08x mlid=0x%04x mtu=%u sl=%u rate=%u\n",
						 g->rec.pkey, mgid, g->rec.qkey, g->rec.mlid,
						 mcm_mtu_bytes(g->rec.mtu), g->rec.sl, g->rec.rate);
	}
	resolver_reply(a, slot, buf);
}

static void v_resolve(struct agent *a, int slot, char **argv, int argc)
{
	lookup(a, slot, argv[0][0] == 'r' ? (argv[0][2] == 's' ? SAJ_FORWARD : SAJ_REVERSE) :
	       SAJ_PRIMARY, argv[1], argc == 3 ? argv[2] : NULL);
}

static void v_stats(struct agent *a, int slot, char **argv, int argc)
{
	(void)argv;
	(void)argc;
	cmd_stats(a, slot);
}

static void v_ipoib(struct agent *a, int slot, char **argv, int argc)
{
	(void)argv;
	(void)argc;
	cmd_ipoib(a, slot);
}

static void v_conns(struct agent *a, int slot, char **argv, int argc)
{
	struct saj *j;
	uint64_t id = 0;

	if (argc == 2 && cfg_parse_u64(argv[1], UINT32_MAX, &id)) {
		resolver_reply_err(a, slot, EINVAL, "connection ID '%s' is not a number", argv[1]);
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		resolver_reply_err(a, slot, ENOMEM, "out of memory");
		return;
	}
	j->kind = argc == 1 ? SAJ_CONNS : SAJ_DISCONNECT;
	j->conn_id = (uint32_t)id;
	cm_submit(a, slot, j);
}

static void v_verify(struct agent *a, int slot, char **argv, int argc)
{
	static int64_t last;
	int64_t now = mono_ms();

	(void)argv;
	(void)argc;
	/* A full sync reads the whole SID block: a script looping on resync
	 * gets at most one a second (the one under way answers for it). */
	if (now - last >= 1000 || !last) {
		last = now;
		agent_request_sync(a, 1);
	}
	resolver_reply(a, slot, "OK 0\n");
}

/* Every request, once. Privileged ones change atsd's state or cost SA
 * traffic beyond a lookup: root or control_group only. */
static const struct verb {
	const char *name;
	int min, max;        /* argc, the verb included */
	int privileged;
	void (*fn)(struct agent *a, int slot, char **argv, int argc);
} verbs[] = {
	{ "resolve", 2, 3, 0, v_resolve },
	{ "reverse", 2, 3, 0, v_resolve },
	{ "primary", 2, 3, 0, v_resolve },
	{ "status", 1, 1, 0, ctl_cmd_status },
	{ "stats", 1, 1, 0, v_stats },
	{ "ipoib", 1, 1, 0, v_ipoib },
	{ "connections", 1, 1, 0, v_conns },
	{ "hold", 1, 8, 1, ctl_cmd_hold },
	{ "release", 1, 8, 1, ctl_cmd_hold },
	{ "verify", 1, 1, 1, v_verify },
	{ "connect", 1, 8, 1, cmd_connect },
	{ "disconnect", 2, 2, 1, v_conns },
};

static void handle_line(struct agent *a, int slot, char *line)
{
	struct client *c = &a->clients[slot];
	char *argv[8], *save = NULL, *tok;
	int argc = 0;
	size_t i;

	for (tok = strtok_r(line, " \t\r", &save); tok && argc < 8;
	     tok = strtok_r(NULL, " \t\r", &save))
		argv[argc++] = tok;
	if (!argc) {
		resolver_reply_err(a, slot, EINVAL, "empty request");
		return;
	}
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (!strcmp(argv[0], verbs[i].name))
			break;
	if (i == sizeof(verbs) / sizeof(verbs[0]) || argc < verbs[i].min || argc > verbs[i].max) {
		resolver_reply_err(a, slot, EINVAL, "unknown request '%.40s' or wrong arguments", argv[0]);
		return;
	}
	if (verbs[i].privileged && !c->privileged) {
		struct ctl_peer p = { c->uid, 0, c->pid };

		ctl_auth_log_refusal(&p, verbs[i].name, a->conf.control_group);
		resolver_reply_err(a, slot, EPERM, "'%s' needs root%s%s", verbs[i].name,
			  a->conf.control_group[0] ? " or group " : "", a->conf.control_group);
		return;
	}
	verbs[i].fn(a, slot, argv, argc);
}

/* Requests in the buffer, in order: one waiting for the SA holds back
 * the ones behind it (doc/atsd-protocol.md: answers in request order). */
static void client_drain(struct agent *a, int slot)
{
	struct client *c = &a->clients[slot];
	char *nl;

	while (c->fd >= 0 && !c->busy && (nl = memchr(c->buf, '\n', c->len))) {
		size_t l = (size_t)(nl - c->buf);

		*nl = '\0';
		c->last_active = mono_ms();
		if (memchr(c->buf, '\0', l))
			resolver_reply_err(a, slot, EINVAL, "request contains a NUL byte");
		else
			handle_line(a, slot, c->buf);
		if (c->fd < 0)
			return;
		memmove(c->buf, nl + 1, c->len - l - 1);
		c->len -= l + 1;
		c->buf[c->len] = '\0';
	}
	if (c->fd < 0 || c->busy)
		return;
	if (c->len == sizeof(c->buf) - 1) {
		/* The rest of that line cannot be told from the next request. */
		char junk[4096];
		int k;

		resolver_reply_err(a, slot, E2BIG, "request line longer than %d bytes; closing",
			  ATSD_LINE_MAX - 2);
		/* Read what is queued, so that the close does not reset the
		 * connection before the client has read the answer. */
		for (k = 0; k < 16 && c->fd >= 0 && read(c->fd, junk, sizeof(junk)) > 0; k++)
			;
		client_close(a, slot);
	} else if (c->eof) {
		client_close(a, slot);
	}
}

void resolver_read(struct agent *a, int slot)
{
	struct client *c = &a->clients[slot];
	ssize_t n;

	n = read(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		client_close(a, slot);
		return;
	}
	/* A client that shut down its side still gets its answers. */
	if (n == 0)
		c->eof = 1;
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	c->last_active = mono_ms();
	client_drain(a, slot);
}

int64_t resolver_timers(struct agent *a, int64_t now, int expire)
{
	int64_t next = INT64_MAX, idle = (int64_t)a->conf.client_idle_timeout * 1000;
	int i;

	if (!idle)
		return next;
	for (i = 0; i < AGENT_MAX_CLIENTS; i++) {
		struct client *c = &a->clients[i];

		/* Waiting for our answer is not idle. */
		if (c->fd < 0 || c->busy)
			continue;
		if (expire && now - c->last_active >= idle) {
			log_debug("client uid %u idle for %u s: closed", (unsigned)c->uid,
				  a->conf.client_idle_timeout);
			client_close(a, i);
		} else if (c->last_active + idle < next) {
			next = c->last_active + idle;
		}
	}
	return next;
}
