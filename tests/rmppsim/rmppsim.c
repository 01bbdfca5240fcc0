/* librmppsim.so: RMPP (IBTA Vol 1 13.6) for umad users under ibsim.
 *
 * Stacked before umad2sim in LD_PRELOAD, it does what the kernel's MAD
 * layer does for agents registered with an RMPP version: a send of more
 * than one MAD is cut into DATA segments sent as the receiver's ACK
 * window allows (13.6.4), received segments are ACKed and put back
 * together into the one MAD the reader gets (13.6.5), and lost segments
 * or ACKs are resent on timeout. umad2sim and ibsim carry single 256-byte
 * MADs only. The protocol itself is lib/core/rmpp.c; this file is the
 * plumbing:
 *
 *   open     remembers the fds of /dev/infiniband/umad*
 *   ioctl    remembers each agent's class and rmpp_version; before an
 *            unregister, ends the transfers it receives (port_quiesce)
 *   write    a MAD longer than 256 bytes on an RMPP agent starts a sender;
 *            a request with a timeout waits for its response, is resent
 *            and at last answered with ETIMEDOUT, as the kernel does (wait.c)
 *   read     DATA, ACK, STOP and ABORT of RMPP agents go to the protocol;
 *            the reader gets other MADs and whole messages (ENOSPC with
 *            the length when its buffer is short, as ib_umad answers)
 *   poll     POLLIN only when the reader has something to read
 *   close    port_quiesce, then forgets the fd and its transactions
 *
 * Segments carry 168 bytes of SA data, not 200: umad2sim delivers only
 * the first 224 bytes of a MAD (pack.c); so only two shims talk RMPP.
 *
 * No thread of its own: timers run in poll() and read(), which umad users
 * sit in while they wait for answers (libibumad's umad_recv polls first;
 * OpenSM's receiver thread polls for ever). poll() therefore waits in
 * slices of at most RS_SLICE_MS on umad2sim's poll, so a sender started
 * by another thread is served on time. Every other call passes through.
 *
 * Limits: a process that does not read or poll for RETRIES x ACK_MS loses
 * a message sent to it meanwhile (the kernel ACKs without the reader);
 * the reader's queue is unbounded, as ib_umad's; past RS_TABLE_CAP
 * transfers on a port (none lingering) a send fails with ENOMEM and a new
 * incoming message is dropped (its requester times out and retries).
 *
 * Tunables (environment): RMPPSIM_ACK_MS (sender's wait for an ACK),
 * RMPPSIM_RETRIES, RMPPSIM_WINDOW, RMPPSIM_TOTAL_MS, RMPPSIM_LINGER_MS,
 * RMPPSIM_MAX_LEN (longest message received, else STOP; 16 MiB),
 * RMPPSIM_MAD_BYTES (256: no framing), RMPPSIM_TIMEOUTS=0 (sends without
 * the timeouts of wait.c), RMPPSIM_DEBUG=1 (a stderr line
 * per transaction; 2: each resend), RMPPSIM_DUMP=FILE and
 * RMPPSIM_DUMP_TX=FILE (whole messages received and sent),
 * RMPPSIM_DROP_CLASS=C with RMPPSIM_DROP_FILE=PATH (while PATH exists,
 * every MAD of class C that reaches this process is lost: a link that
 * loses one direction). */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "mad.h"
#include "mono.h"
#include "rmpp.h"
#include "rmpp_table.h"
#include "rmppsim.h"
#include "wire.h"

#define RS_MAX_PORTS 8
#define RS_MAX_AGENTS 64
#define RS_TABLE_CAP 256
#define RS_SLICE_MS 10
#define RS_UMAD_HDR sizeof(struct ib_user_mad)
#define RS_UMAD_PATH "/dev/infiniband/umad"
#define RS_SIM_MAD_BYTES 224

typedef int (*open_fn)(const char *, int, ...);
typedef int (*close_fn)(int);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*poll_fn)(struct pollfd *, nfds_t, int);

static open_fn next_open, next_open64;
static close_fn next_close;
static read_fn next_read;
static write_fn next_write;
static ioctl_fn next_ioctl;
static poll_fn next_poll;

/* One open umad fd: what the reader has not read yet, and the RMPP
 * transactions on it. hdr[i] is the umad header (agent, address) the
 * segments or answers of table slot i go out with. */
struct rs_port {
	int used;
	struct rs_queue q; /* for the reader */
	struct rmpp_table tab;
	int closing; /* in close(): no new receivers */
	struct rs_waits waits; /* requests waiting for a response (wait.c) */
	struct ib_user_mad hdr[RS_TABLE_CAP];
};

struct rs_agent {
	int used, fd;
	uint8_t mgmt_class, rmpp_version;
};

static pthread_mutex_t rs_mu = PTHREAD_MUTEX_INITIALIZER;
/* Read without the lock: umad2sim's write() to its socket comes back
 * through our write(), sometimes while we hold rs_mu. */
static int rs_fds[RS_MAX_PORTS] = { -1, -1, -1, -1, -1, -1, -1, -1 };
static struct rs_port rs_ports[RS_MAX_PORTS];
static struct rs_agent rs_agents[RS_MAX_AGENTS];
static struct rmpp_cfg rs_cfg;
static int rs_debug;
static int rs_timeouts; /* RMPPSIM_TIMEOUTS: keep the sends' timeouts */
/* The bytes of a MAD that reach a reader through umad2sim: pack.c. */
static size_t rs_mad_bytes;
static pthread_once_t rs_once = PTHREAD_ONCE_INIT;
static pthread_once_t rs_exit_once = PTHREAD_ONCE_INIT;
/* When a receiver last sent an ACK (or STOP, ABORT): see rs_at_exit. */
static int64_t rs_last_answer = INT64_MIN / 2;

static long env_num(const char *name, long def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 0);
	return *end || v < 0 ? def : v;
}

static void rs_init(void)
{
	next_open = (open_fn)dlsym(RTLD_NEXT, "open");
	next_open64 = (open_fn)dlsym(RTLD_NEXT, "open64");
	next_close = (close_fn)dlsym(RTLD_NEXT, "close");
	next_read = (read_fn)dlsym(RTLD_NEXT, "read");
	next_write = (write_fn)dlsym(RTLD_NEXT, "write");
	next_ioctl = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	next_poll = (poll_fn)dlsym(RTLD_NEXT, "poll");
	rmpp_cfg_default(&rs_cfg);
	/* The kernel waits 2 s for an ACK; ibsim answers in well under a
	 * millisecond, and a client's own timeout (saquery: 1 s) must leave
	 * room for resends. Every lost segment costs one ACK wait: the
	 * receiver drops what follows a gap and ACKs at the window's end
	 * only (13.6.5.1), so the sender learns of the gap by its timeout.
	 * A smaller window than the kernel's 64 lets an ACK through more
	 * often under loss (at 10% a window of 64 arrives whole 0.1% of the
	 * time, one of 16 19%): fewer resends of what already arrived, and
	 * the retry count starts again at each ACK. */
	rs_cfg.ack_ms = env_num("RMPPSIM_ACK_MS", 20);
	rs_cfg.retries = (unsigned)env_num("RMPPSIM_RETRIES", rs_cfg.retries);
	rs_cfg.window = (uint32_t)env_num("RMPPSIM_WINDOW", 16);
	if (!rs_cfg.window)
		rs_cfg.window = 16;
	rs_cfg.total_ms = env_num("RMPPSIM_TOTAL_MS", 10000);
	rs_cfg.linger_ms = env_num("RMPPSIM_LINGER_MS", 2000);
	rs_cfg.max_len = (size_t)env_num("RMPPSIM_MAX_LEN", (int64_t)rs_cfg.max_len);
	rs_debug = (int)env_num("RMPPSIM_DEBUG", 0);
	rs_timeouts = (int)env_num("RMPPSIM_TIMEOUTS", 1);
	rs_mad_bytes = (size_t)env_num("RMPPSIM_MAD_BYTES", RS_SIM_MAD_BYTES);
	if (rs_mad_bytes > MAD_SIZE || rs_mad_bytes < 64)
		rs_mad_bytes = MAD_SIZE;
}

static void rs_ready(void)
{
	pthread_once(&rs_once, rs_init);
}

static int port_index(int fd)
{
	int i;

	if (fd < 0)
		return -1;
	for (i = 0; i < RS_MAX_PORTS; i++)
		if (__atomic_load_n(&rs_fds[i], __ATOMIC_ACQUIRE) == fd)
			return i;
	return -1;
}

static void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!rs_debug)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "rmppsim[%d]: ", (int)getpid());
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* A reader that exits right after its message is whole may take its
 * last ACK with it: umad2sim's exit handler tells ibsim the client is
 * gone, and ibsim may read that before the ACK sent just before, and
 * drop the ACK. The sender then resends to a port where the next
 * umad2sim process dies of a MAD for a class it has not registered yet
 * (ibsim note, limit 2). Registered after umad2sim's handler (its init
 * comes before any umad fd), so it runs first: give ibsim a moment. */
static void rs_at_exit(void)
{
	struct timespec ts = { 0, 20 * 1000000L };
	int64_t last;

	pthread_mutex_lock(&rs_mu);
	last = rs_last_answer;
	pthread_mutex_unlock(&rs_mu);
	if (mono_ms() - last < 200)
		nanosleep(&ts, NULL);
}

static void rs_exit_register(void)
{
	atexit(rs_at_exit);
}

/* ---- ports and agents (rs_mu held) ---- */

static void port_add(int fd)
{
	int i;

	pthread_once(&rs_exit_once, rs_exit_register);

	pthread_mutex_lock(&rs_mu);
	for (i = 0; i < RS_MAX_PORTS; i++) {
		if (rs_ports[i].used)
			continue;
		memset(&rs_ports[i], 0, sizeof(rs_ports[i]));
		if (rmpp_table_init(&rs_ports[i].tab, RS_TABLE_CAP) < 0)
			break;
		/* umad2sim and ibsim set the top half of a request's TID
		 * on the wire (rmpp_table.h). */
		rs_ports[i].tab.tid_mask = 0xffffffffULL;
		rs_ports[i].used = 1;
		__atomic_store_n(&rs_fds[i], fd, __ATOMIC_RELEASE);
		break;
	}
	pthread_mutex_unlock(&rs_mu);
}

static void port_drop(int idx)
{
	struct rs_port *p = &rs_ports[idx];
	int i;

	for (i = 0; i < RS_MAX_AGENTS; i++)
		if (rs_agents[i].used && rs_agents[i].fd == rs_fds[idx])
			rs_agents[i].used = 0;
	rs_queue_clear(&p->q);
	rs_wait_clear(&p->waits);
	rmpp_table_fini(&p->tab);
	p->used = 0;
	__atomic_store_n(&rs_fds[idx], -1, __ATOMIC_RELEASE);
}

static const struct rs_agent *agent_of(uint32_t id, int fd)
{
	if (id >= RS_MAX_AGENTS || !rs_agents[id].used || rs_agents[id].fd != fd)
		return NULL;
	return &rs_agents[id];
}

/* ---- I/O through umad2sim (rs_mu held) ---- */

static void send_mad(int fd, const struct ib_user_mad *hdr, const uint8_t mad[MAD_SIZE])
{
	uint8_t buf[RS_UMAD_HDR + MAD_SIZE];
	struct ib_user_mad *u = (struct ib_user_mad *)buf;

	memcpy(buf, hdr, RS_UMAD_HDR);
	u->timeout_ms = 0; /* the protocol times its own resends */
	u->retries = 0;
	u->status = 0;
	u->length = (uint32_t)sizeof(buf);
	memcpy(buf + RS_UMAD_HDR, mad, MAD_SIZE);
	if (next_write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		dbg("write of an RMPP MAD failed\n");
}

/* Sends what entry e has due now. */
static void entry_flush(struct rs_port *p, int fd, struct rmpp_entry *e, int64_t now)
{
	uint8_t out[MAD_SIZE];
	size_t slot = (size_t)(e - p->tab.e);
	int n;

	/* A window at most per call; the cap guards against a loop. */
	for (n = 0; n < 4096; n++) {
		int resend = e->role == RMPP_TX && e->u.tx.sent < e->u.tx.hi;

		if (!rmpp_entry_next(e, now, out))
			break;
		if (resend && rs_debug > 1)
			dbg("resend segment %u\n", wire_get32(out + RMPP_OFF_DATA1));
		send_mad(fd, &p->hdr[slot], out);
		if (e->role == RMPP_RX)
			rs_last_answer = now;
	}
}

static void entry_note_end(const struct rmpp_entry *e)
{
	enum rmpp_state st = rmpp_entry_state(e);

	if (st == RMPP_ACTIVE)
		return;
	if (e->role == RMPP_TX)
		dbg("send tid 0x%016llx: %s after %u segments (status %u)\n",
		    (unsigned long long)e->key.tid, st == RMPP_DONE ? "done" : "failed",
		    e->u.tx.nseg, e->u.tx.status);
	else
		dbg("receive tid 0x%016llx: %s (status %u, %zu bytes)\n",
		    (unsigned long long)e->key.tid, st == RMPP_DONE ? "done" : "failed",
		    e->u.rx.status, e->u.rx.len);
}

struct rs_due {
	struct rs_port *p;
	int fd;
};

static void wait_resend(void *ctx, const uint8_t *buf, size_t len)
{
	const struct rs_due *d = ctx;

	dbg("resend tid 0x%016llx\n",
	    (unsigned long long)wire_get64(buf + RS_UMAD_HDR + MAD_OFF_TID));
	if (next_write(d->fd, buf, len) != (ssize_t)len)
		dbg("write of a resent MAD failed\n");
}

static void wait_expire(void *ctx, const void *hdr, const uint8_t *mad, size_t len)
{
	const struct rs_due *d = ctx;

	dbg("tid 0x%016llx: no response, ETIMEDOUT\n",
	    (unsigned long long)wire_get64(mad + MAD_OFF_TID));
	rs_queue_put(&d->p->q, hdr, RS_UMAD_HDR, mad, len);
}

/* Resends and answers that fell due, and ended transactions dropped. */
static void port_timers(struct rs_port *p, int fd, int64_t now)
{
	struct rs_due d = { p, fd };
	size_t i;

	rs_wait_due(&p->waits, now, wait_resend, wait_expire, &d);

	for (i = 0; i < p->tab.cap; i++) {
		struct rmpp_entry *e = &p->tab.e[i];
		enum rmpp_state before;

		if (!e->used || rmpp_entry_deadline(e) > now)
			continue;
		before = rmpp_entry_state(e);
		entry_flush(p, fd, e, now);
		if (before == RMPP_ACTIVE)
			entry_note_end(e);
	}
	rmpp_table_expire(&p->tab, now);
}

/* A DATA segment with no transaction yet: the FIRST one starts a
 * receiver (13.6.5.1); any other is dropped, its sender will resend. */
static struct rmpp_entry *rx_start(struct rs_port *p, const struct ib_user_mad *u,
				   const uint8_t *mad, int64_t now)
{
	struct rmpp_key k;
	struct rmpp_entry *e;

	if (wire_get32(mad + RMPP_OFF_DATA1) != 1 ||
	    !(mad[RMPP_OFF_FLAGS] & RMPP_FLAG_FIRST))
		return NULL;
	memset(&k, 0, sizeof(k));
	k.tid = wire_get64(mad + MAD_OFF_TID);
	k.lid = ntohs(u->addr.lid);
	k.mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	k.method = mad[MAD_OFF_METHOD];
	e = rmpp_table_add(&p->tab, &k, RMPP_RX);
	if (!e)
		return NULL;
	rmpp_rx_init(&e->u.rx, &rs_cfg, now);
	memcpy(&p->hdr[e - p->tab.e], u, RS_UMAD_HDR);
	return e;
}

/* A test's one-way loss (RMPPSIM_DROP_CLASS, RMPPSIM_DROP_FILE). */
static int rs_lost(const uint8_t *mad, size_t len)
{
	const char *file = getenv("RMPPSIM_DROP_FILE");
	long cls = env_num("RMPPSIM_DROP_CLASS", -1);

	return file && cls >= 0 && len >= MAD_HDR_SIZE && mad[MAD_OFF_MGMT_CLASS] == cls &&
	       access(file, F_OK) == 0;
}

/* One MAD read from umad2sim: RMPP traffic of RMPP agents goes to the
 * protocol, the rest to the reader. */
static void port_take(struct rs_port *p, int fd, const uint8_t *buf, size_t n, int64_t now)
{
	const struct ib_user_mad *u = (const struct ib_user_mad *)buf;
	const uint8_t *mad = buf + RS_UMAD_HDR;
	size_t len = n > RS_UMAD_HDR ? n - RS_UMAD_HDR : 0;
	const struct rs_agent *ag = agent_of(u->agent_id, fd);
	struct rmpp_entry *e;
	int type, r;

	if (rs_lost(mad, len))
		return;
	if (len >= MAD_HDR_SIZE)
		rs_wait_answered(&p->waits, u->agent_id, mad, len, u->status);
	/* An active header of version 0 is OpenSM's one-MAD answer, sent as
	 * is: not RMPP to the reader either. */
	if (!ag || !ag->rmpp_version || u->status || len < RMPP_HDR_END ||
	    !rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]) || !mad[RMPP_OFF_VERSION] ||
	    (type = rmpp_type(mad, len)) <= 0) {
		rs_queue_put(&p->q, buf, RS_UMAD_HDR, mad, len);
		return;
	}
	e = rmpp_table_lookup(&p->tab, mad, len, ntohs(u->addr.lid));
	if (!e && type == RMPP_TYPE_DATA && !p->closing)
		e = rx_start(p, u, mad, now);
	if (!e)
		return; /* a late ACK or a segment of no transaction */
	r = rmpp_entry_recv(e, mad, len, now);
	entry_flush(p, fd, e, now);
	if (r == 1 && e->role == RMPP_RX) {
		size_t mlen;
		const uint8_t *msg = rmpp_rx_message(&e->u.rx, &mlen);
		uint8_t *copy = msg ? malloc(mlen ? mlen : 1) : NULL;
		struct ib_user_mad h;

		if (copy) {
			memcpy(copy, msg, mlen);
			mlen = rs_unpack(copy, mlen, rs_mad_bytes);
			if (mlen) {
				rs_dump("RMPPSIM_DUMP", copy, mlen);
				memcpy(&h, &p->hdr[e - p->tab.e], RS_UMAD_HDR);
				h.length = (uint32_t)(RS_UMAD_HDR + mlen);
				rs_queue_put(&p->q, &h, RS_UMAD_HDR, copy, mlen);
			} else {
				dbg("receive tid 0x%016llx: not a packed message, dropped\n",
				    (unsigned long long)e->key.tid);
			}
			free(copy);
		}
	}
	if (r != 0 || rmpp_entry_state(e) != RMPP_ACTIVE)
		entry_note_end(e);
}

/* MADs port_pump() read since close() last looked. */
static int port_pumped;

/* Reads what umad2sim holds for fd, without waiting. */
static void port_pump(struct rs_port *p, int fd, int64_t now)
{
	uint8_t buf[RS_UMAD_HDR + MAD_SIZE];
	ssize_t n;
	int i;

	for (i = 0; i < 4096; i++) {
		n = next_read(fd, buf, sizeof(buf));
		if (n < (ssize_t)RS_UMAD_HDR)
			break; /* umad2sim: -EWOULDBLOCK when empty */
		/* What umad2sim returns past rs_mad_bytes is heap left-overs
		 * (pack.c): zeros instead, the same on every run. */
		if ((size_t)n > RS_UMAD_HDR + rs_mad_bytes)
			memset(buf + RS_UMAD_HDR + rs_mad_bytes, 0,
			       (size_t)n - RS_UMAD_HDR - rs_mad_bytes);
		port_take(p, fd, buf, (size_t)n, now);
		port_pumped++;
	}
}

/* ---- the interposed calls ---- */

static int is_umad_path(const char *path)
{
	return path && !strncmp(path, RS_UMAD_PATH, strlen(RS_UMAD_PATH));
}

static int open_common(open_fn fn, const char *path, int flags, mode_t mode)
{
	int fd;

	rs_ready();
	/* umad2sim wraps open() only: its fds come from there. */
	fd = (is_umad_path(path) ? next_open : fn)(path, flags, mode);
	if (fd >= 0 && is_umad_path(path))
		port_add(fd);
	return fd;
}

/* The mode argument, there with O_CREAT or O_TMPFILE only. */
#define OPEN_MODE(flags, mode)                                                 \
	do {                                                                   \
		va_list ap_;                                                   \
		if ((flags) & (O_CREAT | O_TMPFILE)) {                         \
			va_start(ap_, flags);                                  \
			mode = (mode_t)va_arg(ap_, int);                       \
			va_end(ap_);                                           \
		}                                                              \
	} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	rs_ready(); /* next_open is read here */
	return open_common(next_open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;

	OPEN_MODE(flags, mode);
	rs_ready(); /* next_open is read here */
	return open_common(next_open64 ? next_open64 : next_open, path, flags, mode);
}

#define RS_MAX_ABORTS 8

/* An ABORT owed to a sender: the umad header and the MAD. */
struct rs_abort {
	struct ib_user_mad hdr;
	uint8_t mad[MAD_SIZE];
};

/* Ends the transfers fd still receives with an ABORT (13.6.5.2: T2L,
 * the reader gave up) into ab; returns how many. */
static int port_abort_rx(struct rs_port *p, int fd, struct rs_abort *ab)
{
	int n = 0;
	size_t i;

	for (i = 0; i < p->tab.cap && n < RS_MAX_ABORTS; i++) {
		struct rmpp_entry *e = &p->tab.e[i];

		if (!e->used || e->role != RMPP_RX || rmpp_entry_state(e) != RMPP_ACTIVE ||
		    !e->u.rx.hdr_len)
			continue;
		rmpp_reply(e->u.rx.hdr, e->u.rx.hdr_len, RMPP_TYPE_ABORT, RMPP_STATUS_T2L,
			   ab[n].mad);
		memcpy(&ab[n].hdr, &p->hdr[i], RS_UMAD_HDR);
		send_mad(fd, &ab[n].hdr, ab[n].mad);
		dbg("receive tid 0x%016llx: aborted at close\n", (unsigned long long)e->key.tid);
		rmpp_table_remove(&p->tab, e);
		n++;
	}
	return n;
}

/* A reader that gives up mid-transfer (saquery after its timeout): the
 * sender would go on sending, and umad2sim crashes on a MAD for a class
 * no agent registers any more (ibsim note, limit 2), as soon as the
 * agent is unregistered, before the fd is closed. So before either,
 * ABORT the sender and take what is still on its way: repeats of a
 * sender whose last ACK or ABORT was lost, ACKed or ABORTed again. Until
 * the port has been quiet for three ACK waits (a sender resends within
 * one), at most 1 s; only when it received by RMPP lately. */
static void port_quiesce(int idx, int fd)
{
	struct timespec ts = { 0, 2 * 1000000L };
	struct rs_abort ab[RS_MAX_ABORTS];
	struct rs_port *p = &rs_ports[idx];
	int n = 0, i, busy = 0, got;
	int64_t start, quiet, now;
	size_t k;

	pthread_mutex_lock(&rs_mu);
	if (p->used && rs_fds[idx] == fd) {
		p->closing = 1;
		n = port_abort_rx(p, fd, ab);
		for (k = 0; k < p->tab.cap; k++)
			busy |= p->tab.e[k].used && p->tab.e[k].role == RMPP_RX;
	}
	pthread_mutex_unlock(&rs_mu);
	start = quiet = mono_ms();
	while ((n || busy) && mono_ms() - quiet < 3 * rs_cfg.ack_ms && mono_ms() - start < 1000) {
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&rs_mu);
		now = mono_ms();
		port_pumped = 0;
		port_pump(p, fd, now);
		got = port_pumped;
		if (got) {
			quiet = now;
			for (i = 0; i < n; i++)
				send_mad(fd, &ab[i].hdr, ab[i].mad);
		}
		pthread_mutex_unlock(&rs_mu);
	}
	pthread_mutex_lock(&rs_mu);
	p->closing = 0;
	pthread_mutex_unlock(&rs_mu);
}

int close(int fd)
{
	int idx;

	rs_ready();
	idx = port_index(fd);
	if (idx < 0)
		return next_close(fd);
	port_quiesce(idx, fd);
	pthread_mutex_lock(&rs_mu);
	if (rs_ports[idx].used && rs_fds[idx] == fd)
		port_drop(idx);
	pthread_mutex_unlock(&rs_mu);
	return next_close(fd);
}

static void agent_set(int fd, uint32_t id, uint8_t mgmt_class, uint8_t rmpp_version)
{
	if (id >= RS_MAX_AGENTS)
		return; /* umad2sim has 32 */
	pthread_mutex_lock(&rs_mu);
	rs_agents[id].used = 1;
	rs_agents[id].fd = fd;
	rs_agents[id].mgmt_class = mgmt_class;
	rs_agents[id].rmpp_version = rmpp_version;
	pthread_mutex_unlock(&rs_mu);
	dbg("agent %u class 0x%02x rmpp_version %u\n", id, mgmt_class, rmpp_version);
}

int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;
	int ret, idx;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	rs_ready();
	idx = port_index(fd);
	if (idx >= 0 && request == IB_USER_MAD_UNREGISTER_AGENT)
		port_quiesce(idx, fd);
	ret = next_ioctl(fd, request, arg);
	if (ret < 0 || !arg || idx < 0)
		return ret;
	if (request == IB_USER_MAD_REGISTER_AGENT) {
		const struct ib_user_mad_reg_req *r = arg;

		agent_set(fd, r->id, r->mgmt_class, r->rmpp_version);
	} else if (request == IB_USER_MAD_REGISTER_AGENT2) {
		const struct ib_user_mad_reg_req2 *r = arg;

		agent_set(fd, r->id, r->mgmt_class, r->rmpp_version);
	} else if (request == IB_USER_MAD_UNREGISTER_AGENT) {
		uint32_t id = *(const uint32_t *)arg;

		pthread_mutex_lock(&rs_mu);
		if (id < RS_MAX_AGENTS && rs_agents[id].fd == fd)
			rs_agents[id].used = 0;
		pthread_mutex_unlock(&rs_mu);
	}
	return ret;
}

/* A send longer than one MAD on an RMPP agent: a sender (13.6.4). The
 * class header is repeated in every segment; the RMPP header is the
 * protocol's, whatever the caller put there (as ib_umad does). */
static ssize_t tx_start(int idx, int fd, const uint8_t *buf, size_t count)
{
	const struct ib_user_mad *u = (const struct ib_user_mad *)buf;
	const uint8_t *mad = buf + RS_UMAD_HDR;
	size_t len = count - RS_UMAD_HDR, hdr_len = rmpp_hdr_len(mad[MAD_OFF_MGMT_CLASS]);
	struct rs_port *p = &rs_ports[idx];
	struct rmpp_entry *e;
	struct rmpp_key k;
	int64_t now = mono_ms();
	uint8_t *packed;
	size_t plen;
	int r;

	memset(&k, 0, sizeof(k));
	k.tid = wire_get64(mad + MAD_OFF_TID);
	k.lid = ntohs(u->addr.lid);
	k.mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	k.method = mad[MAD_OFF_METHOD];
	port_timers(p, fd, now);
	e = rmpp_table_find(&p->tab, &k, RMPP_TX);
	if (e) /* the same TID again: the old transfer is over for us */
		rmpp_table_remove(&p->tab, e);
	e = rmpp_table_add(&p->tab, &k, RMPP_TX);
	if (!e) {
		errno = ENOMEM;
		return -1;
	}
	packed = rs_pack(mad, len, hdr_len, rs_mad_bytes, &plen);
	r = packed ? rmpp_tx_init(&e->u.tx, packed, plen, hdr_len, &rs_cfg, now) : -ENOMEM;
	free(packed);
	if (r < 0) {
		rmpp_table_remove(&p->tab, e);
		errno = -r;
		return -1;
	}
	memcpy(&p->hdr[e - p->tab.e], u, RS_UMAD_HDR);
	rs_dump("RMPPSIM_DUMP_TX", mad, len);
	dbg("send tid 0x%016llx: %zu bytes in %u segments\n", (unsigned long long)k.tid, len,
	    e->u.tx.nseg);
	entry_flush(p, fd, e, now);
	return (ssize_t)count;
}

/* One MAD: a request with a timeout waits for its response. */
static ssize_t write_one(int idx, int fd, const void *buf, size_t count)
{
	struct rs_port *p = &rs_ports[idx];
	ssize_t ret;
	int w = 0;

	if (!rs_timeouts || !((const struct ib_user_mad *)buf)->timeout_ms)
		return next_write(fd, buf, count);
	pthread_mutex_lock(&rs_mu);
	/* Before the send: its response may be read before write returns. */
	if (p->used && rs_fds[idx] == fd)
		w = rs_wait_add(&p->waits, buf, count, mono_ms());
	pthread_mutex_unlock(&rs_mu);
	if (w < 0)
		dbg("too many sends waiting: this one without a timeout\n");
	ret = next_write(fd, buf, count);
	if (ret < 0 && w > 0) {
		const uint8_t *mad = (const uint8_t *)buf + RS_UMAD_HDR;
		int saved = errno;

		pthread_mutex_lock(&rs_mu);
		rs_wait_answered(&p->waits, ((const struct ib_user_mad *)buf)->agent_id, mad,
				 count - RS_UMAD_HDR, ETIMEDOUT);
		pthread_mutex_unlock(&rs_mu);
		errno = saved;
	}
	return ret;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	const struct ib_user_mad *u = buf;
	const struct rs_agent *ag;
	ssize_t ret;
	int idx;

	rs_ready();
	idx = port_index(fd);
	if (idx < 0)
		return next_write(fd, buf, count);
	if (count <= RS_UMAD_HDR + MAD_SIZE)
		return write_one(idx, fd, buf, count);
	pthread_mutex_lock(&rs_mu);
	ag = agent_of(u->agent_id, fd);
	if (!ag || !ag->rmpp_version ||
	    !rmpp_hdr_len(((const uint8_t *)buf)[RS_UMAD_HDR + MAD_OFF_MGMT_CLASS])) {
		pthread_mutex_unlock(&rs_mu);
		return next_write(fd, buf, count);
	}
	ret = tx_start(idx, fd, buf, count);
	pthread_mutex_unlock(&rs_mu);
	return ret;
}

ssize_t read(int fd, void *buf, size_t count)
{
	struct rs_port *p;
	ssize_t ret;
	int64_t now;
	int idx;

	rs_ready();
	idx = port_index(fd);
	if (idx < 0)
		return next_read(fd, buf, count);
	pthread_mutex_lock(&rs_mu);
	p = &rs_ports[idx];
	now = mono_ms();
	port_timers(p, fd, now);
	if (!p->q.head)
		port_pump(p, fd, now);
	if (p->q.head) {
		ret = rs_queue_get(&p->q, buf, count);
	} else {
		/* umad2sim's answer when nothing is queued; libibumad
		 * tests for exactly this value. */
		ret = -EWOULDBLOCK;
	}
	pthread_mutex_unlock(&rs_mu);
	return ret;
}

/* Like umad2sim, waits on the first umad fd of the set only. */
int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	int64_t end, now, wait;
	struct pollfd one;
	nfds_t i, at = nfds;
	int idx = -1, fd;

	rs_ready();
	for (i = 0; i < nfds; i++)
		if ((idx = port_index(fds[i].fd)) >= 0) {
			at = i;
			break;
		}
	if (at == nfds)
		return next_poll(fds, nfds, timeout);
	fd = fds[at].fd;
	end = timeout < 0 ? INT64_MAX : mono_ms() + timeout;
	for (;;) {
		int ready;

		pthread_mutex_lock(&rs_mu);
		now = mono_ms();
		port_timers(&rs_ports[idx], fd, now);
		if (!rs_ports[idx].q.head)
			port_pump(&rs_ports[idx], fd, now);
		ready = rs_ports[idx].q.head != NULL;
		wait = rmpp_table_deadline(&rs_ports[idx].tab);
		if (rs_wait_deadline(&rs_ports[idx].waits) < wait)
			wait = rs_wait_deadline(&rs_ports[idx].waits);
		wait -= now;
		pthread_mutex_unlock(&rs_mu);
		for (i = 0; i < nfds; i++)
			fds[i].revents = 0;
		if (ready) {
			fds[at].revents = POLLIN;
			return 1;
		}
		if (now >= end)
			return 0;
		if (wait > end - now)
			wait = end - now;
		if (wait > RS_SLICE_MS)
			wait = RS_SLICE_MS;
		if (wait < 1)
			wait = 1;
		one.fd = fd;
		one.events = POLLIN;
		one.revents = 0;
		/* umad2sim's poll: 1 when its queue holds a MAD, 0 on
		 * timeout, -1 on a spurious wakeup: all mean look again. */
		(void)next_poll(&one, 1, (int)wait);
	}
}
