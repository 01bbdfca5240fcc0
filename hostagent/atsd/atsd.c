/* atsd: keeps the SA's ATS records equal to this host's addresses and
 * answers local lookups from a cache. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cfg.h"
#include "ipoib.h"
#include "log.h"
#include "mono.h"

static void submit_sync(struct agent *a, int full, int want_nothing)
{
	struct saj *j = calloc(1, sizeof(*j));
	int ret = 0;

	if (!j) {
		log_err("out of memory for a sync");
		return;
	}
	j->kind = SAJ_SYNC;
	j->full = full;
	j->lease = a->conf.lease;
	/* A change of the address set retries every refused address now. */
	if (a->src.changed && a->nrefused) {
		free(a->refused);
		a->refused = NULL;
		a->nrefused = 0;
	}
	if (!want_nothing)
		ret = sources_want(&a->src, &j->want, &j->nwant);
	if (!ret)
		want_drop_refused(j->want, &j->nwant, a->refused, a->nrefused, mono_ms());
	if (!ret && a->nforeign) {
		j->foreign = malloc(a->nforeign * sizeof(*j->foreign));
		if (j->foreign) {
			memcpy(j->foreign, a->foreign, a->nforeign * sizeof(*j->foreign));
			j->nforeign = a->nforeign;
		} else {
			ret = -ENOMEM;
		}
	}
	j->adopt_wanted = a->adopt_wanted;
	j->owned_from_state = a->owned_from_state;
	snprintf(j->state_path, sizeof(j->state_path), "%s", a->conf.state_file);
	if (!ret && a->nowned) {
		j->owned = malloc(a->nowned * sizeof(*j->owned));
		if (j->owned) {
			memcpy(j->owned, a->owned, a->nowned * sizeof(*j->owned));
			j->nowned = a->nowned;
		} else {
			ret = -ENOMEM;
		}
	}
	if (ret) {
		log_err("cannot prepare a sync: %s", strerror(-ret));
		saj_free(j);
		return;
	}
	a->src.changed = 0;
	a->sync_running = 1;
	saj_submit(a->saj, j);
}

void agent_request_sync(struct agent *a, int full)
{
	if (a->terminating)
		return;
	if (a->sync_running) {
		a->sync_again = 1;
		a->sync_full_next |= full;
		return;
	}
	/* While backing off, only the retry timer starts the next one. */
	if (a->failures && mono_ms() < a->next_retry) {
		a->sync_full_next |= full;
		a->sync_again = 1;
		return;
	}
	submit_sync(a, full || a->sync_full_next, 0);
	a->sync_full_next = 0;
	a->sync_again = 0;
}

void agent_ipoib(struct agent *a, enum saj_ipoib_op join)
{
	struct saj *j;
	size_t i, k;

	j = calloc(1, sizeof(*j));
	if (!j)
		return;
	j->kind = SAJ_IPOIB;
	j->join = join;
	for (i = 0; i < a->src.nifs; i++) {
		uint16_t p = a->src.ifs[i].pkey;

		for (k = 0; k < j->ngroups && j->groups[k].pkey != p; k++)
			;
		if (k == j->ngroups && k < AGENT_PKEYS_MAX)
			j->groups[j->ngroups++].pkey = p;
	}
	if (!j->ngroups) {
		saj_free(j);
		return;
	}
	if (join == SAJ_JOIN)
		a->joined = 1;
	saj_submit(a->saj, j);
}

/* The result of the last join or check for pkey, or NULL. */
static const struct saj_group *last_group(const struct agent *a, uint16_t pkey)
{
	size_t i;

	for (i = 0; i < a->ngroups; i++)
		if (a->groups[i].pkey == pkey)
			return &a->groups[i];
	return NULL;
}

static void ipoib_done(struct agent *a, struct saj *j)
{
	char mgid[ATS_IP_STRLEN];
	size_t i;

	for (i = 0; i < j->ngroups; i++) {
		struct saj_group *g = &j->groups[i];
		const struct saj_group *last = last_group(a, g->pkey);
		uint8_t m[16];

		ipoib_bcast_mgid(g->pkey, m);
		ats_gid_format(m, mgid, sizeof(mgid));
		if (j->join == SAJ_CHECK && last &&
		    (g->err == -ETIMEDOUT || g->err == -ENETDOWN)) {
			/* No SA to ask: the failing sync says so; keep what we knew. */
			*g = *last;
			continue;
		}
		if (j->join == SAJ_LEAVE) {
			if (!g->err)
				log_info("left IPoIB broadcast group %s", mgid);
			else if (!last || !last->err)
				log_warn("could not leave IPoIB broadcast group %s: %s", mgid,
					 g->sa_status ? sa_status_str(g->sa_status) :
					 strerror(-g->err));
		} else if (!g->err) {
			/* A check that found the membership in place says nothing. */
			if (j->join == SAJ_JOIN || g->joined)
				log_info("joined IPoIB broadcast group %s%s: PKey 0x%04x Q_Key 0x%08x MLID 0x%04x MTU %u SL %u rate %u",
					 mgid, g->joined ? " again (the SA had lost our membership)" : "",
					 g->rec.pkey, g->rec.qkey, g->rec.mlid,
					 mcm_mtu_bytes(g->rec.mtu), g->rec.sl, g->rec.rate);
		} else if (j->join == SAJ_JOIN || !last || last->err != g->err) {
			/* Checks repeat an error only when it changes. */
			log_err("cannot join IPoIB broadcast group %s (PKey 0x%04x): %s; does OpenSM's partitions.conf give this partition the ipoib flag, and does the port hold the PKey?",
				mgid, g->pkey, g->sa_status ? sa_status_str(g->sa_status) :
				strerror(-g->err));
		}
	}
	if (j->join != SAJ_LEAVE) {
		memcpy(a->groups, j->groups, sizeof(j->groups));
		a->ngroups = j->ngroups;
	} else {
		a->ngroups = 0;
		a->joined = 0;
		if (a->terminating)
			a->done = 1; /* the last shutdown step */
	}
}

/* Exponential backoff with +-25% jitter, so restarted SMs are not hit by
 * every host at the same moment. */
static int64_t backoff_ms(struct agent *a)
{
	unsigned shift = a->failures > 16 ? 16 : a->failures;
	int64_t base = (int64_t)1000 << (shift ? shift - 1 : 0);
	int64_t cap = (int64_t)a->conf.backoff_max * 1000;

	if (base > cap)
		base = cap;
	return base * 3 / 4 + (int64_t)(random() % (base / 2 + 1));
}

/* At shutdown: the deleting sync first, then leave the groups, then exit. */
static void shutdown_step(struct agent *a)
{
	if (!a->delete_sent) {
		a->delete_sent = 1;
		submit_sync(a, 0, 1);
	} else if (a->joined) {
		agent_ipoib(a, SAJ_LEAVE); /* done when the leave comes back */
	} else {
		a->done = 1;
	}
}

static void sync_done(struct agent *a, struct saj *j)
{
	a->sync_running = 0;
	own_state_done(a, j);
	if (j->full && (!j->err || j->result)) {
		free(a->foreign);
		a->foreign = j->foreign;
		a->nforeign = j->nforeign;
		j->foreign = NULL;
		if (j->nforeign && !j->err)
			log_debug("%zu record(s) of this GID are not atsd's: left alone", j->nforeign);
	}
	a->st.sa_queries += j->queries;
	a->st.sets += j->sets;
	a->st.deletes += j->deletes;
	if (!j->err || j->result) {
		/* Even a failed sync knows what it changed before failing. */
		free(a->owned);
		a->owned = j->result;
		a->nowned = j->nresult;
		j->result = NULL;
	}
	own_refused_update(a, j);
	if (j->full && !j->err) {
		a->owned_from_state = 0;
		if (j->state_saved)
			a->adopt_wanted = 0;
	}
	if (j->sets || j->deletes)
		resolver_cache_clear(a);
	if (j->err) {
		int64_t wait;

		a->failures++;
		a->st.sync_failures++;
		wait = backoff_ms(a);
		a->next_retry = mono_ms() + wait;
		a->sync_full_next = 1;
		a->sync_again = 1;
		if (j->err == -ENETDOWN || j->err == -ETIMEDOUT || a->failures == 1)
			log_warn("SA sync failed: %s; retrying in %" PRId64 " ms",
				 j->errmsg, wait);
		if (a->terminating)
			shutdown_step(a);
		return;
	}
	a->st.syncs++;
	if (j->adopted)
		log_info("adopted %u record(s) of this port already in the SA (%s)", j->adopted,
			 j->owned_from_state ? "listed in the state file" : "no state file: carrying wanted addresses");
	if (a->failures)
		log_info("SA sync succeeded after %u failure(s)", a->failures);
	a->failures = 0;
	a->port = j->port;
	a->port_known = 1;
	if (a->terminating) {
		shutdown_step(a);
		return;
	}
	if (a->want_join) {
		a->want_join = 0;
		agent_ipoib(a, SAJ_JOIN);
	}
	a->next_verify = mono_ms() + (int64_t)a->conf.verify_interval * 1000;
	if (a->sync_again || a->src.changed) {
		int full = a->sync_full_next;

		a->sync_again = 0;
		a->sync_full_next = 0;
		agent_request_sync(a, full);
	}
}

static void port_done(struct agent *a, struct saj *j)
{
	a->port_poll_running = 0;
	if (j->err) {
		if (a->port_known)
			log_warn("port: %s", j->errmsg);
		a->port_known = 0;
		return;
	}
	if (a->port_known && (j->port.sm_lid != a->port.sm_lid ||
			      j->port.lid != a->port.lid)) {
		log_info("SM LID %u -> %u, LID %u -> %u: checking our records",
			 a->port.sm_lid, j->port.sm_lid, a->port.lid, j->port.lid);
		a->st.sm_changes++;
		resolver_cache_clear(a);
		a->port = j->port;
		a->want_join = 1;
		agent_request_sync(a, 1);
	} else if (!a->port_known) {
		/* The port came (back) up: the SA may have lost our records. */
		a->port = j->port;
		a->port_known = 1;
		agent_request_sync(a, 1);
	}
}

static void jobs_done(struct agent *a)
{
	struct saj *j;

	while ((j = saj_done(a->saj))) {
		switch (j->kind) {
		case SAJ_SYNC:
			sync_done(a, j);
			break;
		case SAJ_PORT:
			port_done(a, j);
			break;
		case SAJ_IPOIB:
			ipoib_done(a, j);
			break;
		case SAJ_CONNECT:
		case SAJ_DISCONNECT:
		case SAJ_CONNS:
			resolver_cm_done(a, j);
			break;
		default:
			resolver_job_done(a, j);
			break;
		}
		saj_free(j);
	}
}

static void timers(struct agent *a)
{
	int64_t now = mono_ms();

	if (a->terminating)
		return;
	resolver_timers(a, now, 1);
	if (a->failures && now >= a->next_retry && !a->sync_running) {
		submit_sync(a, 1, 0);
		a->sync_again = 0;
		a->sync_full_next = 0;
	}
	if (!a->failures && now >= a->next_verify && !a->sync_running) {
		a->next_verify = now + (int64_t)a->conf.verify_interval * 1000;
		agent_request_sync(a, 0);
		/* An SM restart we saw no event of loses memberships too. */
		if (a->joined && !a->terminating)
			agent_ipoib(a, SAJ_CHECK);
	}
	{
		size_t i;

		for (i = 0; i < a->nrefused; i++)
			if (now >= a->refused[i].retry_at) {
				agent_request_sync(a, 0);
				break;
			}
	}
	if (now >= a->next_port_poll && !a->port_poll_running) {
		struct saj *j = calloc(1, sizeof(*j));

		a->next_port_poll = now + (int64_t)a->conf.sm_poll_interval * 1000;
		if (j) {
			j->kind = SAJ_PORT;
			a->port_poll_running = 1;
			saj_submit(a->saj, j);
		}
	}
}

static int64_t next_timer(struct agent *a)
{
	int64_t t = a->next_port_poll, r = resolver_timers(a, mono_ms(), 0);
	size_t i;

	if (r < t)
		t = r;
	for (i = 0; i < a->nrefused; i++)
		if (a->refused[i].retry_at < t)
			t = a->refused[i].retry_at;
	if (a->failures && a->next_retry < t)
		t = a->next_retry;
	if (!a->failures && a->next_verify < t)
		t = a->next_verify;
	return t;
}

static int load_config(struct agent *a, struct agent_conf *c, int required)
{
	char err[600];
	int ret;

	agent_conf_default(c);
	ret = agent_conf_load(a->conf_path, c, err, sizeof(err));
	if (ret == -ENOENT && !required)
		return 0;
	if (ret) {
		log_err("%s", err);
		return ret;
	}
	return 0;
}

static void reload(struct agent *a)
{
	struct agent_conf c;
	const char *key;
	int ret;

	if (load_config(a, &c, 0)) {
		log_err("%s not reloaded: the previous settings stay in force", a->conf_path);
		return;
	}
	key = agent_conf_restart_key(&a->conf, &c);
	if (key)
		log_warn("%s: '%s' changes only when atsd restarts", a->conf_path, key);
	agent_conf_keep_restart(&c, &a->conf);
	a->conf = c;
	log_set_level(c.log_level);
	ret = sources_reload(&a->src, &a->conf);
	if (ret) {
		log_err("reload: interfaces not reopened (%s); keeping the old ones",
			strerror(-ret));
		return;
	}
	resolver_cache_clear(a);
	log_info("reloaded %s", a->conf_path);
	a->want_join = 1;
	agent_request_sync(a, 1);
}

static int wait_first_port(struct agent *a)
{
	struct saj *j = calloc(1, sizeof(*j));
	struct pollfd p;

	if (!j)
		return -ENOMEM;
	j->kind = SAJ_PORT;
	saj_submit(a->saj, j);
	p.fd = saj_fd(a->saj);
	p.events = POLLIN;
	for (;;) {
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -errno;
		j = saj_done(a->saj);
		if (j)
			break;
	}
	/* The GID is what we need; the port may still be down. */
	a->port = j->port;
	a->port_known = !j->err;
	saj_free(j);
	return 0;
}

static int run(struct agent *a, int sfd)
{
	struct pollfd pfd[4 + AGENT_MAX_IFS + AGENT_MAX_CLIENTS];
	int slot_of[4 + AGENT_MAX_IFS + AGENT_MAX_CLIENTS];
	int64_t shutdown_deadline = 0;

	a->want_join = 1;
	agent_request_sync(a, 1);
	a->next_verify = mono_ms() + (int64_t)a->conf.verify_interval * 1000;
	a->next_port_poll = mono_ms() + (int64_t)a->conf.sm_poll_interval * 1000;
	while (!a->done) {
		int n = 0, i, timeout;
		int64_t now;

		pfd[n].fd = sfd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = saj_fd(a->saj);
		pfd[n++].events = POLLIN;
		pfd[n].fd = a->terminating ? -1 : a->listen_fd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = a->pev ? pev_fd(a->pev) : -1;
		pfd[n++].events = POLLIN;
		for (i = 0; i < (int)a->src.nifs; i++) {
			pfd[n].fd = nl_fd(a->src.ifs[i].nl);
			pfd[n].events = POLLIN;
			slot_of[n++] = i;
		}
		for (i = 0; i < AGENT_MAX_CLIENTS; i++) {
			/* A client waiting for an answer sends nothing more we
			 * would read: its next lines wait in the socket (in order). */
			if (a->clients[i].fd < 0 || a->clients[i].busy || a->clients[i].eof)
				continue;
			pfd[n].fd = a->clients[i].fd;
			pfd[n].events = POLLIN;
			slot_of[n++] = i;
		}
		now = mono_ms();
		if (a->terminating) {
			if (now >= shutdown_deadline) {
				log_warn("shutdown: the SA did not answer in time; records may remain");
				break;
			}
			timeout = (int)(shutdown_deadline - now);
		} else {
			int64_t t = next_timer(a) - now;

			timeout = t < 0 ? 0 : t > 60000 ? 60000 : (int)t;
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			return -errno;
		}
		if (pfd[0].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP && !a->terminating) {
					reload(a);
				} else if (si.ssi_signo != SIGHUP && !a->terminating) {
					log_info("signal %u: deleting our records, then exiting",
						 si.ssi_signo);
					a->terminating = 1;
					shutdown_deadline = mono_ms() +
						(int64_t)(a->conf.sa_retries + 1) * a->conf.sa_timeout *
						(2 * a->nowned + 4) + 2000;
					/* A running sync finishes first (shutdown_step). */
					if (!a->sync_running)
						shutdown_step(a);
				}
			}
		}
		if (pfd[1].revents & POLLIN)
			jobs_done(a);
		if (pfd[2].revents & POLLIN)
			resolver_accept(a);
		if (pfd[3].revents & POLLIN) {
			const char *what;

			if (pev_read(a->pev, &what)) {
				log_info("port event %s: checking our records and groups", what);
				resolver_cache_clear(a);
				a->want_join = 1;
				agent_request_sync(a, 1);
			}
		}
		for (i = 4; i < n; i++) {
			if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (i < 4 + (int)a->src.nifs) {
				int ret = sources_read(&a->src, (size_t)slot_of[i]);

				if (ret)
					log_warn("netlink: %s", strerror(-ret));
			} else {
				resolver_read(a, slot_of[i]);
			}
		}
		if (a->src.changed)
			agent_request_sync(a, 0);
		timers(a);
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: atsd [OPTIONS]\n"
"Registers this host's IPoIB addresses as ATS records in the SA and keeps\n"
"them there; answers local lookups through a Unix socket.\n"
"\n"
"  -f, --foreground     log to stderr instead of syslog\n"
"  -c, --config FILE    configuration (default %s)\n"
"  -s, --socket PATH    local resolver socket (default %s)\n"
"  -C, --ca NAME        CA to use\n"
"  -P, --port N         CA port\n"
"  -d, --debug          debug logging\n"
"  -h, --help\n", AGENT_CONF_DEFAULT, AGENT_SOCKET_DEFAULT);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "ca", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "debug", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *ca = NULL;
	int opt, foreground = 0, debug = 0, portnum = -1, sfd, ret;
	struct saj_opts so = { 0 };
	static struct agent a;
	sigset_t mask;

	a.conf_path = AGENT_CONF_DEFAULT;
	a.listen_fd = -1;
	while ((opt = getopt_long(argc, argv, "fc:s:C:P:dh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			foreground = 1;
			break;
		case 'c':
			a.conf_path = optarg;
			break;
		case 's':
			sock = optarg;
			break;
		case 'C':
			ca = optarg;
			break;
		case 'P': {
			uint64_t v;

			if (cfg_parse_u64(optarg, 254, &v) || !v) {
				fprintf(stderr, "atsd: --port '%s': not a port number (1..254)\n", optarg);
				return 2;
			}
			portnum = (int)v;
			break;
		}
		case 'd':
			debug = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "atsd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	log_init("atsd", LOG_LVL_INFO);
	if (load_config(&a, &a.conf, a.conf_path != NULL &&
			strcmp(a.conf_path, AGENT_CONF_DEFAULT)))
		return 1;
	if (sock)
		snprintf(a.conf.socket, sizeof(a.conf.socket), "%s", sock);
	if (ca)
		snprintf(a.conf.ca, sizeof(a.conf.ca), "%s", ca);
	if (portnum > 0)
		a.conf.port = (uint32_t)portnum;
	log_set_level(debug ? LOG_LVL_DEBUG : a.conf.log_level);
	if (!foreground)
		log_to_syslog(1);
	srandom((unsigned)(getpid() ^ time(NULL)));

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGPIPE);
	/* Before any thread starts, so they all inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	sigdelset(&mask, SIGPIPE);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		log_err("signalfd: %s", strerror(errno));
		return 1;
	}
	so.ca = a.conf.ca[0] ? a.conf.ca : NULL;
	so.port = (int)a.conf.port;
	so.timeout_ms = a.conf.sa_timeout;
	so.retries = a.conf.sa_retries;
	so.ibsim = a.conf.ibsim;
	so.liveness = a.conf.liveness;
	so.ibping = a.conf.ibping;
	so.cm = a.conf.cm_active ? &a.conf.cm : NULL;
	so.cm_timeout_ms = a.conf.cm_timeout;
	ret = saj_start(&a.saj, &so);
	if (ret) {
		log_err("cannot open CA %s port %d: %s", so.ca ? so.ca : "(default)",
			so.port, strerror(-ret));
		return 1;
	}
	ret = wait_first_port(&a);
	if (!ret)
		own_state_start(&a);
	if (!ret)
		ret = sources_init(&a.src, &a.conf, a.port.gid);
	if (!ret) {
		ret = resolver_open(&a);
		if (ret)
			log_err("socket %s: %s", a.conf.socket, ret == -EADDRINUSE ?
				"another atsd is listening there" : strerror(-ret));
	}
	if (!ret && pev_open(&a.pev, a.port.ca, a.port.portnum))
		log_debug("no verbs device for %s: following SM changes by polling only",
			  a.port.ca);
	if (!ret) {
		char gid[ATS_IP_STRLEN];

		log_info("atsd %s on %s port %d, GID %s, %zu interface(s), socket %s",
			 IBATS_VERSION, a.port.ca, a.port.portnum,
			 ats_gid_format(a.port.gid, gid, sizeof(gid)), a.src.nifs,
			 a.conf.socket);
		ret = run(&a, sfd);
	}
	resolver_close(&a);
	pev_close(a.pev);
	sources_fini(&a.src);
	saj_stop(a.saj);
	free(a.owned);
	free(a.foreign);
	free(a.refused);
	close(sfd);
	return ret ? 1 : 0;
}
