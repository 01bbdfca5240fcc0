/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsd: keeps the SA's ATS records equal to this host's addresses and
 * answers local lookups from a cache. This file is the event loop: it
 * starts the modules, polls their fds, routes signals, and ties their
 * notifications together. */
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
#include <time.h>
#include <unistd.h>

#include "host/agent_conf.h"
#include "host/conf_check.h"
#include "model/agent_state.h"
#include "core/cfg.h"
#include "ctl/ctl_cm.h"
#include "ctl/ctl_lookup.h"
#include "ctl/ctl_prefetch.h"
#include "ctl/ctl_records.h"
#include "ctl/ctl_sock.h"
#include "ctl/ctl_verbs.h"
#include "main/host_metrics.h"
#include "state/ipoib_groups.h"
#include "core/log.h"
#include "core/mono.h"
#include "state/own_records.h"
#include "main/port_events.h"
#include "main/port_lock.h"
#include "main/port_poll.h"
#include "sa/sa_thread.h"
#include "main/sdnotify.h"
#include "main/sources.h"
#include "state/subs.h"

/* The restart signal (the units' RestartKillSignal=, systemd.kill(5)):
 * exit keeping the records in the SA and in the state file, which the
 * next atsd adopts without a window where they are missing. SIGTERM and
 * SIGINT delete them (a stop). */
#define ATSD_KEEP_SIGNAL SIGUSR1

static struct {
	struct agent_conf conf;
	const char *conf_path;
	const char *instance;  /* --instance CA:PORT, or NULL */
	struct sa_thread *saj;
	struct sources *src;
	struct port_events *pev;        /* NULL without a verbs device (port_events.h) */
	int want_join;          /* (re)join the IPoIB broadcast groups */
	int terminating, done;
	int keeping;            /* exiting on ATSD_KEEP_SIGNAL: records stay */
	int stopped;            /* keeping: own_records is done; the unsubscribe may not be */
	int sa_silent;          /* the shutdown deadline passed */
	int64_t metrics_due;    /* mono ms of the next metrics file */
	int metrics_failing;    /* the last write failed: logged once */
	char status[160];       /* the last STATUS= sent to systemd */
} ag;

/* systemctl status's one line about atsd (sd_notify(3) STATUS=), sent
 * when it changes. With READY set, the first message of a start or the
 * end of a reload. */
static void notify_status(int ready)
{
	uint64_t n[CTL_RECORDS_STATES];
	const struct mport_info *port;
	char st[sizeof(ag.status)];
	int known, ret, len;

	if (!sdnotify_enabled() || ag.terminating)
		return;
	port = port_poll_info(&known);
	/* Out of memory: READY=1 must go all the same. */
	if (ctl_records_count(n))
		memset(n, 0, sizeof(n));
	len = snprintf(st, sizeof(st), "%" PRIu64 " records registered", n[OWN_RECORDS_REGISTERED]);
	if (n[OWN_RECORDS_REFUSED])
		len += snprintf(st + len, sizeof(st) - (size_t)len, ", %" PRIu64 " refused",
				n[OWN_RECORDS_REFUSED]);
	if (n[OWN_RECORDS_UNSAVED])
		len += snprintf(st + len, sizeof(st) - (size_t)len,
				", %" PRIu64 " not registered (state file)", n[OWN_RECORDS_UNSAVED]);
	if (n[OWN_RECORDS_PENDING])
		len += snprintf(st + len, sizeof(st) - (size_t)len, ", %" PRIu64 " pending",
				n[OWN_RECORDS_PENDING]);
	if (known)
		snprintf(st + len, sizeof(st) - (size_t)len, ", SM LID %u", port->sm_lid);
	else
		snprintf(st + len, sizeof(st) - (size_t)len, ", port down");
	if (!ready && !strcmp(st, ag.status))
		return;
	snprintf(ag.status, sizeof(ag.status), "%s", st);
	ret = sdnotify_sendf("%sSTATUS=%s", ready ? "READY=1\n" : "", st);
	if (ret)
		log_warn("cannot notify systemd: %s", strerror(-ret));
}

/* Records changed, or the SM: cached answers are stale, groups may be
 * lost; a full sync checks our records. */
static void recheck(void)
{
	ctl_lookup_cache_clear();
	ctl_prefetch_sm_changed();
	ag.want_join = 1;
	own_records_sm_changed();
	own_records_request_sync(1);
	/* A new SM, or one that asked us to reregister, holds no
	 * subscription of ours. */
	subs_request("SM change or reregistration");
}

static void on_port_changed(int sm_change)
{
	notify_status(0);
	if (sm_change) {
		recheck();
	} else {
		own_records_request_sync(1);
		subs_request("port back up");
	}
}

static void on_synced(void)
{
	notify_status(0);
	ctl_prefetch_start();
	if (!subs_active())
		subs_request("the SA answers");
	if (ag.want_join) {
		ag.want_join = 0;
		ipoib_groups_submit(SAJ_JOIN);
	}
}

/* Shutdown: after the deleting sync, leave the groups, then exit. A
 * keeping exit leaves them joined, as a SIGKILL would: the next atsd
 * joins again (a join of a member is a no-op at the SA). */
static void on_stopped(void)
{
	if (ag.keeping)
		ag.stopped = 1; /* done once the unsubscribe is (run) */
	else if (ipoib_groups_joined())
		ipoib_groups_submit(SAJ_LEAVE); /* done when the leave comes back */
	else
		ag.done = 1;
}

static void on_left(void)
{
	if (ag.terminating)
		ag.done = 1; /* the last shutdown step */
}

static void on_lookup_failed(void)
{
	/* An SA that fails lookups may have restarted: check our records
	 * and our subscription. */
	own_records_request_sync(1);
	subs_request("a lookup failed");
}

static const struct own_records_hooks own_records_hooks = {
	.changed = ctl_lookup_cache_clear,
	.port = port_poll_set,
	.synced = on_synced,
	.stopped = on_stopped,
	.full_done = ctl_records_full_done,
};

static const struct subs_hooks subs_hooks = {
	.gone = ctl_lookup_port_gone,
	.back = ctl_lookup_port_back,
	.lapsed = ctl_lookup_cache_clear,
};

/* The metrics file, every HOST_METRICS_INTERVAL_MS; a failure is logged
 * when it starts and when it ends, not every interval. */
static int64_t metrics_timer(int64_t now)
{
	uint64_t by_state[CTL_RECORDS_STATES];
	struct host_metrics m = { .state_names = ctl_records_state_names,
				  .by_state = by_state, .nstates = CTL_RECORDS_STATES };
	const struct mport_info *port;
	int ret, known;

	if (!ag.conf.metrics_file[0])
		return INT64_MAX;
	if (now < ag.metrics_due)
		return ag.metrics_due;
	port = port_poll_info(&known);
	m.ca = port->ca;
	m.port = port->portnum;
	ag.metrics_due = now + HOST_METRICS_INTERVAL_MS;
	ctl_verbs_stats_collect(m.stats);
	ret = ctl_records_count(by_state);
	if (!ret)
		ret = host_metrics_write(ag.conf.metrics_file, &m);
	if (ret && !ag.metrics_failing)
		log_warn("cannot write %s: %s", ag.conf.metrics_file, strerror(-ret));
	else if (!ret && ag.metrics_failing)
		log_info("wrote %s again", ag.conf.metrics_file);
	ag.metrics_failing = ret != 0;
	return ag.metrics_due;
}

/* Everything due now; the next deadline. */
static int64_t timers(void)
{
	int64_t now = mono_ms(), t, next;

	next = ctl_sock_timers(now, 1);
	t = metrics_timer(now);
	if (t < next)
		next = t;
	if (own_records_timers(now)) {
		if (ipoib_groups_started())
			ipoib_groups_submit(SAJ_CHECK);
		/* A restarted SA forgot us; subscribing again is harmless. */
		subs_request("verify period");
	}
	t = own_records_next_timer();
	if (t < next)
		next = t;
	t = ctl_prefetch_timers(now);
	if (t < next)
		next = t;
	t = ctl_lookup_timers(now);
	if (t < next)
		next = t;
	t = port_poll_timers(now);
	return t < next ? t : next;
}

static int load_config(struct agent_conf *c, int required)
{
	char err[600];
	int ret;

	agent_conf_default(c);
	if (ag.instance)
		agent_conf_instance(c, ag.instance);
	ret = agent_conf_load(ag.conf_path, c, err, sizeof(err));
	if (ret == -ENOENT && !required)
		return 0;
	if (!ret && ag.instance)
		ret = agent_conf_instance_check(c, ag.instance, ag.conf_path, err, sizeof(err));
	if (ret)
		log_err("%s", err);
	return ret;
}

/* A state file another user could swap (agent_state_check) would make atsd
 * delete or adopt records on a stranger's word: refused at start and at
 * each reload, as the socket's directory is (ctl_sock.c). */
static int state_file_check(const struct agent_conf *c)
{
	char why[320];
	int ret = agent_state_check(c->state_file, why, sizeof(why));

	if (ret)
		log_err("%s: state_file %s: %s", ag.conf_path, c->state_file, why);
	return ret;
}

/* --check-config: the start's checks and nothing else (no socket, lock,
 * SA or file written); the defaults when the default file is missing, as
 * at start; a group missing here only warns; atsctl's verdict. */
static int check_config(int json)
{
	struct conf_check r;
	struct agent_conf c;
	char why[320];

	conf_check_init(&r, ag.conf_path, "atsd.conf");
	agent_conf_default(&c);
	if (ag.instance)
		agent_conf_instance(&c, ag.instance);
	r.defaults = agent_conf_check(ag.conf_path, &c, r.err, sizeof(r.err), r.warn,
				      sizeof(r.warn)) == -ENOENT &&
		     !strcmp(ag.conf_path, AGENT_CONF_DEFAULT);
	if (r.defaults)
		r.err[0] = '\0';
	else if (!r.err[0] && ag.instance)
		agent_conf_instance_check(&c, ag.instance, ag.conf_path, r.err, sizeof(r.err));
	if (!r.err[0] && agent_state_check(c.state_file, why, sizeof(why)))
		snprintf(r.err, sizeof(r.err), "%s: state_file %s: %s", ag.conf_path,
			 c.state_file, why);
	return conf_check_report(&r, "atsd", json);
}

static void reload(void)
{
	struct agent_conf c;
	const char *key;
	int ret;

	if (load_config(&c, 0)) {
		log_err("%s not reloaded: the previous settings stay in force", ag.conf_path);
		return;
	}
	key = agent_conf_restart_key(&ag.conf, &c);
	if (key)
		log_warn("%s: '%s' changes only when atsd restarts", ag.conf_path, key);
	if (agent_conf_keep_restart(&c, &ag.conf))
		log_warn("%s: metrics_file would be the state_file or socket in force; keeping '%s'",
			 ag.conf_path, ag.conf.metrics_file);
	if (state_file_check(&c)) {
		log_err("%s not reloaded: the previous settings stay in force", ag.conf_path);
		return;
	}
	ag.conf = c;
	log_set_level(c.log_level);
	ctl_sock_reloaded();
	ret = sources_reload(ag.src, &ag.conf);
	if (ret) {
		log_err("reload: interfaces not reopened (%s); keeping the old ones",
			strerror(-ret));
		return;
	}
	log_info("reloaded %s", ag.conf_path);
	recheck();
}

static void on_signal(int sfd, int64_t *shutdown_deadline)
{
	struct signalfd_siginfo si;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		size_t nowned;

		if (ag.terminating)
			continue;
		if (si.ssi_signo == SIGHUP) {
			/* systemd shows the unit reloading until READY=1
			 * (sd_notify(3)), whether the reload worked or not. */
			sdnotify_reloading();
			reload();
			notify_status(1);
			continue;
		}
		ag.terminating = 1;
		ag.keeping = si.ssi_signo == ATSD_KEEP_SIGNAL;
		own_records_list(&nowned);
		if (ag.keeping) {
			log_info("signal %u: exiting, keeping our records for the next atsd",
				 si.ssi_signo);
			sdnotify_sendf("STOPPING=1\nSTATUS=exiting, keeping %zu record(s) for the next atsd",
				       nowned);
		} else {
			log_info("signal %u: deleting our records, then exiting", si.ssi_signo);
			sdnotify_sendf("STOPPING=1\nSTATUS=deleting %zu record(s), then exiting", nowned);
		}
		/* Records, groups and the two unsubscribes. */
		*shutdown_deadline = mono_ms() +
			(int64_t)(ag.conf.sa_retries + 1) * ag.conf.sa_timeout *
			(2 * nowned + 6) + 2000;
		subs_shutdown();
		own_records_shutdown(ag.keeping);
	}
}

/* The last line atsd logs: what became of its records (atsd(8) SIGNALS). */
static void exit_summary(void)
{
	size_t deleted, left;
	int err = own_records_exit_result(&deleted, &left);

	if (ag.keeping)
		log_info("exiting: %zu records kept for the next atsd", left);
	else if (err || ag.sa_silent)
		log_warn("SA silent: %zu records kept in the state file", left);
	else if (left)
		log_warn("exiting: %zu records deleted, %zu kept (the SA refused to delete them)",
			 deleted, left);
	else
		log_info("exiting: %zu records deleted", deleted);
}

#define POLL_FIXED 3 /* signalfd, SA thread, port events */
#define POLL_MAX (POLL_FIXED + AGENT_CONF_MAX_IFS + 1 + CTL_SOCK_MAX_CLIENTS)

/* The loop's fds: signals, SA thread, port events, the interfaces'
 * netlink sockets (slot_of: their index; *nifs: the end of them), then
 * the control socket's. Their number. */
static int fill_pollfds(struct pollfd *pfd, int *slot_of, int sfd, int *nifs)
{
	int n = 0, i;

	pfd[n].fd = sfd;
	pfd[n++].events = POLLIN;
	pfd[n].fd = sa_thread_fd(ag.saj);
	pfd[n++].events = POLLIN;
	pfd[n].fd = ag.pev ? port_events_fd(ag.pev) : -1;
	pfd[n++].events = POLLIN;
	for (i = 0; i < (int)sources_count(ag.src); i++) {
		pfd[n].fd = sources_fd(ag.src, (size_t)i);
		pfd[n].events = POLLIN;
		slot_of[n++] = i;
	}
	*nifs = n;
	return n + ctl_sock_pollfds(pfd + n, slot_of + n, POLL_MAX - n, !ag.terminating);
}

/* What poll found ready, in fill_pollfds's order. */
static void on_ready(const struct pollfd *pfd, const int *slot_of, int n, int nifs, int sfd,
		     int64_t *shutdown_deadline)
{
	int i;

	if (pfd[0].revents & POLLIN)
		on_signal(sfd, shutdown_deadline);
	if (pfd[1].revents & POLLIN)
		sa_thread_complete(ag.saj);
	if (pfd[2].revents & POLLIN) {
		const char *what;

		if (port_events_read(ag.pev, &what)) {
			log_info("port event %s: checking our records and groups", what);
			recheck();
		}
	}
	for (i = POLL_FIXED; i < n; i++) {
		if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (i < nifs) {
			int ret = sources_read(ag.src, (size_t)slot_of[i]);

			if (ret)
				log_warn("netlink: %s", strerror(-ret));
		} else if (slot_of[i] < 0) {
			ctl_sock_accept();
		} else {
			ctl_sock_read(slot_of[i]);
		}
	}
}

static int run(int sfd)
{
	struct pollfd pfd[POLL_MAX];
	int slot_of[POLL_MAX];
	int64_t shutdown_deadline = 0, next, wd;

	ag.want_join = 1;
	own_records_start();
	subs_request("start");
	next = timers();
	while (!ag.done) {
		int n, nifs, timeout;
		int64_t now;

		n = fill_pollfds(pfd, slot_of, sfd, &nifs);
		now = mono_ms();
		/* Here, not in a thread: a loop that stops turning stops the
		 * pings, and systemd restarts atsd (WatchdogSec=). */
		wd = sdnotify_watchdog(now);
		if (ag.terminating) {
			if (now >= shutdown_deadline) {
				log_warn("shutdown: the SA did not answer in time; records may remain");
				ag.sa_silent = 1;
				break;
			}
			timeout = (int)((wd < shutdown_deadline ? wd : shutdown_deadline) - now);
		} else {
			int64_t t = (wd < next ? wd : next) - now;

			timeout = t < 0 ? 0 : t > 60000 ? 60000 : (int)t;
		}
		if (poll(pfd, (nfds_t)n, timeout) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %s", strerror(errno));
			return -errno;
		}
		on_ready(pfd, slot_of, n, nifs, sfd, &shutdown_deadline);
		if (sources_changed(ag.src))
			own_records_request_sync(0);
		if (!ag.terminating)
			next = timers();
		if (ag.stopped && !subs_pending())
			ag.done = 1;
	}
	exit_summary();
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
"  -i, --instance CA:PORT  one atsd per port (atsd@.service): the CA and\n"
"                       port, and a socket and state file of its own\n"
"  -d, --debug          debug logging\n"
"  -t, --check-config [FILE]  check the configuration (FILE, or --config's)\n"
"                       and exit: 0 when atsd would start with it, 1 if not\n"
"  -j, --json           with -t: the verdict as one JSON document\n"
"  -V, --version        print the version and exit\n"
"  -h, --help\n"
"Signals: SIGTERM deletes the records and exits; SIGUSR1 exits keeping them\n"
"for the next atsd (a restart); SIGHUP reloads the configuration.\n",
		AGENT_CONF_DEFAULT, AGENT_CONF_SOCKET_DEFAULT);
}

/* What the command line asks for; the config's values give way to it. */
struct cmdline {
	const char *sock, *ca;
	int foreground, debug, portnum, check, json;
};

/* What getopt leaves for parse_args to refuse: -1 (fine) or 2. */
static int args_check(int argc, char **argv, const struct cmdline *cl)
{
	/* -t --json FILE: getopt left FILE. */
	if (cl->check == 1 && optind == argc - 1)
		ag.conf_path = argv[optind++];
	if (optind != argc) {
		fprintf(stderr, "atsd: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (ag.instance && (cl->ca || cl->portnum > 0)) {
		/* The command line's CA or port would win over the instance's,
		 * serving one port under another port's socket and state file. */
		fprintf(stderr, "atsd: --instance %s names the CA and port: no --ca or --port with it\n",
			ag.instance);
		return 2;
	}
	if (cl->json && !cl->check) {
		fprintf(stderr, "atsd: --json goes with --check-config\n");
		return 2;
	}
	return -1;
}

/* -1 to go on, else main's exit status (--version, --help, errors). */
static int parse_args(int argc, char **argv, struct cmdline *cl)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "ca", required_argument, NULL, 'C' },
		{ "port", required_argument, NULL, 'P' },
		{ "instance", required_argument, NULL, 'i' },
		{ "debug", no_argument, NULL, 'd' },
		{ "check-config", optional_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "fc:s:C:P:i:dtjVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			cl->foreground = 1;
			break;
		case 'c':
			ag.conf_path = optarg;
			break;
		case 's':
			cl->sock = optarg;
			break;
		case 'C':
			cl->ca = optarg;
			break;
		case 'P': {
			uint64_t v;

			if (cfg_parse_u64(optarg, 254, &v) || !v) {
				fprintf(stderr, "atsd: --port '%s': not a port number (1..254)\n", optarg);
				return 2;
			}
			cl->portnum = (int)v;
			break;
		}
		case 'i': {
			struct agent_conf probe;

			if (agent_conf_instance(&probe, optarg)) {
				fprintf(stderr, "atsd: --instance '%s': not CA:PORT (e.g. mlx5_0:1)\n",
					optarg);
				return 2;
			}
			ag.instance = optarg;
			break;
		}
		case 'd':
			cl->debug = 1;
			break;
		case 't':
			cl->check = 1;
			/* --check-config FILE as well as --check-config=FILE. */
			if (!optarg && optind < argc && argv[optind][0] != '-')
				optarg = argv[optind++];
			if (optarg) {
				ag.conf_path = optarg;
				cl->check = 2;
			}
			break;
		case 'j':
			cl->json = 1;
			break;
		case 'V':
			printf("atsd (ibats) %s\n", IBATS_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	return args_check(argc, argv, cl);
}

/* The config, then the command line over it; logging as they say. */
static int configure(const struct cmdline *cl)
{
	if (load_config(&ag.conf, strcmp(ag.conf_path, AGENT_CONF_DEFAULT) != 0) ||
	    state_file_check(&ag.conf))
		return -1;
	if (cl->sock)
		snprintf(ag.conf.socket, sizeof(ag.conf.socket), "%s", cl->sock);
	if (cl->ca)
		snprintf(ag.conf.ca, sizeof(ag.conf.ca), "%s", cl->ca);
	if (cl->portnum > 0)
		ag.conf.port = (uint32_t)cl->portnum;
	log_set_level(cl->debug ? LOG_LVL_DEBUG : ag.conf.log_level);
	if (!cl->foreground)
		log_to_syslog(1);
	return 0;
}

/* The signals atsd handles, read from a signalfd: the fd, or -1. */
static int signals_open(void)
{
	sigset_t mask;
	int sfd;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, ATSD_KEEP_SIGNAL);
	sigaddset(&mask, SIGPIPE);
	/* Before any thread starts, so they all inherit the mask. */
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	sigdelset(&mask, SIGPIPE);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0)
		log_err("signalfd: %s", strerror(errno));
	return sfd;
}

static void sa_opts_fill(struct sa_thread_opts *so)
{
	so->ca = ag.conf.ca[0] ? ag.conf.ca : NULL;
	so->port = (int)ag.conf.port;
	so->timeout_ms = ag.conf.sa_timeout;
	so->retries = ag.conf.sa_retries;
	so->depth = ag.conf.sa_depth;
	so->liveness = ag.conf.liveness;
	so->ibping = ag.conf.ibping;
	so->cm = ag.conf.cm_active ? &ag.conf.cm : NULL;
	so->cm_timeout_ms = ag.conf.cm_timeout;
	so->report = subs_report;
	so->sa_state = ctl_lookup_sa_state;
}

/* With the SA thread running: the port's lock (unless port_lock_selected
 * took it), the state file, the sources, the modules and the control
 * socket. 0 or -errno, logged. */
static int modules_start(int *lock_fd)
{
	const struct mport_info *port;
	int known, ret;

	port_poll_init(ag.saj, &ag.conf, on_port_changed);
	ret = port_poll_first();
	if (ret)
		return ret;
	port = port_poll_info(&known);
	if (*lock_fd < 0)
		*lock_fd = port_lock_take(ag.conf.socket, port->port_guid);
	if (*lock_fd < 0)
		return *lock_fd;
	port = port_poll_info(&known);
	own_records_state_start(&ag.conf, port->gid);
	ret = sources_open(&ag.src, &ag.conf, port->gid);
	if (ret)
		return ret;
	own_records_init(ag.saj, &ag.conf, ag.src, &own_records_hooks);
	ipoib_groups_init(ag.saj, &ag.conf, ag.src, on_left);
	ctl_cm_init(ag.saj);
	subs_start(ag.saj);
	ctl_records_init(&ag.conf, ag.src);
	ctl_verbs_init(&ag.conf, ag.src);
	ctl_prefetch_init(ag.saj, &ag.conf);
	ret = ctl_lookup_init(ag.saj, &ag.conf, ag.src, on_lookup_failed);
	if (ret) {
		log_err("lookup cache: %s", strerror(-ret));
		return ret;
	}
	ret = ctl_sock_open(&ag.conf, ctl_verbs_line);
	if (ret)
		log_err("socket %s: %s", ag.conf.socket, ret == -EADDRINUSE ?
			"another atsd is listening there" : strerror(-ret));
	return ret;
}

/* The port events (polling alone without them), the start line, READY,
 * then the loop. */
static int serve(int sfd)
{
	int known;
	const struct mport_info *port = port_poll_info(&known);
	char gid[ATS_IP_STRLEN];
	int pe = port_events_open(&ag.pev, port->ca, port->portnum);

	if (pe)
		log_warn("no port events from the verbs device %s (%s; is ib_uverbs "
			 "loaded?): following the port by polling only (sm_poll_interval)",
			 port->ca, strerror(-pe));
	log_info("atsd %s on %s port %d, GID %s, %zu interface(s), socket %s",
		 IBATS_VERSION, port->ca, port->portnum,
		 ats_gid_format(port->gid, gid, sizeof(gid)), sources_count(ag.src),
		 ag.conf.socket);
	/* The socket accepts connections from here on: what
	 * Type=notify units wait for. */
	notify_status(1);
	return run(sfd);
}

int main(int argc, char **argv)
{
	struct cmdline cl = { .portnum = -1 };
	struct sa_thread_opts so = { 0 };
	int sfd, ret, lock_fd = -1;

	ag.conf_path = AGENT_CONF_DEFAULT;
	ret = parse_args(argc, argv, &cl);
	if (ret >= 0)
		return ret;
	log_init("atsd", LOG_LVL_INFO);
	if (cl.check)
		return check_config(cl.json);
	/* Before any thread: it edits the environment. */
	ret = sdnotify_init();
	if (ret)
		log_err("NOTIFY_SOCKET: %s: systemd will not hear that atsd is ready",
			strerror(-ret));
	if (sdnotify_watchdog_init() < 0)
		log_err("WATCHDOG_USEC or WATCHDOG_PID is not a number: no watchdog pings");
	if (configure(&cl))
		return 1;
	srandom((unsigned)(getpid() ^ time(NULL)));
	sfd = signals_open();
	if (sfd < 0)
		return 1;
	sa_opts_fill(&so);
	subs_init(&subs_hooks);
	lock_fd = port_lock_selected(ag.conf.socket, &so.ca, &so.port);
	if (lock_fd < 0 && lock_fd != -ENODEV)
		return 1;
	ret = sa_thread_start(&ag.saj, &so);
	if (ret) {
		log_err("cannot open CA %s port %d: %s", so.ca ? so.ca : "(default)",
			so.port, strerror(-ret));
		return 1;
	}
	ret = modules_start(&lock_fd);
	if (!ret)
		ret = serve(sfd);
	ctl_sock_close();
	ctl_lookup_fini();
	port_events_close(ag.pev);
	sources_close(ag.src);
	sa_thread_stop(ag.saj);
	own_records_fini();
	close(sfd);
	sdnotify_fini();
	if (lock_fd >= 0)
		close(lock_fd);
	return ret ? 1 : 0;
}
