/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The config file, its identity as last read, and the settings in force
 * (see settings.h). */
#include "settings.h"

#include "glue.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

/* Identity of the config file as last read, to notice changes. */
struct stamp {
	time_t sec;
	long nsec;
	off_t size;
	ino_t ino;
	int exists;
};

static struct {
	/* Set by settings_init(); read-only after. */
	char path[OSMATS_CONF_PATH_MAX];
	/* The settings in force and the file's identity: under mu. */
	pthread_mutex_t mu;
	struct osmats_conf conf;
	struct stamp conf_stamp;
	/* Lock-free copy of conf.indexed_queries, for every query. */
	atomic_int indexed_queries;
} S = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void stamp_of(struct stamp *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (stat(S.path, &st))
		return;
	s->exists = 1;
	s->sec = st.st_mtim.tv_sec;
	s->nsec = st.st_mtim.tv_nsec;
	s->size = st.st_size;
	s->ino = st.st_ino;
}

/* Member by member: struct copies need not carry the padding. */
static int stamp_equal(const struct stamp *a, const struct stamp *b)
{
	return a->exists == b->exists && a->sec == b->sec && a->nsec == b->nsec &&
	       a->size == b->size && a->ino == b->ino;
}

static int load_conf(struct osmats_conf *c, struct stamp *stamp)
{
	char err[600], desc[1024];
	int ret;

	osmats_conf_default(c);
	stamp_of(stamp);
	ret = osmats_conf_load(S.path, c, err, sizeof(err));
	if (ret == -ENOENT) {
		GLUE_LOG(GLUE_LOG_INFO, "no %s: using defaults\n", S.path);
	} else if (ret) {
		GLUE_LOG(GLUE_LOG_ERROR, "ERR 7A20: %s\n", err);
		return ret;
	}
	osmats_conf_describe(c, desc, sizeof(desc));
	GLUE_LOG(GLUE_LOG_INFO, "config: %s\n", desc);
	return 0;
}

void settings_init(const char *options)
{
	osmats_conf_path_from_options(options, S.path, sizeof(S.path));
	if (load_conf(&S.conf, &S.conf_stamp)) {
		/* Fail closed: without the plugin every rule would be off. Only
		 * a setting the file makes explicitly turns a rule off; a file
		 * that does not parse sets nothing. A SIGHUP after the fix
		 * loads it (the stamp stays the broken file's). */
		char desc[1024];

		osmats_conf_default(&S.conf);
		osmats_conf_describe(&S.conf, desc, sizeof(desc));
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A23: %s not used: osmats runs with its built-in defaults, every rule on: %s\n",
			 S.path, desc);
	}
	S.indexed_queries = S.conf.indexed_queries;
}

void settings_reload(void)
{
	struct stamp old, now;
	struct osmats_conf c;
	const char *key;

	pthread_mutex_lock(&S.mu);
	old = S.conf_stamp;
	pthread_mutex_unlock(&S.mu);
	stamp_of(&now);
	if (stamp_equal(&old, &now))
		return;
	if (load_conf(&c, &now)) {
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A21: %s not reloaded; the previous settings stay in force\n", S.path);
		pthread_mutex_lock(&S.mu);
		S.conf_stamp = now;
		pthread_mutex_unlock(&S.mu);
		return;
	}
	pthread_mutex_lock(&S.mu);
	if (osmats_conf_restart_needed(&S.conf, &c, &key)) {
		GLUE_LOG(GLUE_LOG_ERROR,
			 "ERR 7A22: %s changed %s, which takes effect at the next OpenSM start\n",
			 S.path, key);
		osmats_conf_keep_restart_keys(&c, &S.conf);
	}
	S.conf = c;
	S.conf_stamp = now;
	atomic_store_explicit(&S.indexed_queries, c.indexed_queries, memory_order_relaxed);
	pthread_mutex_unlock(&S.mu);
	GLUE_LOG(GLUE_LOG_INFO, "reloaded %s\n", S.path);
}

const char *settings_path(void)
{
	return S.path;
}

void settings_get(struct osmats_conf *out)
{
	pthread_mutex_lock(&S.mu);
	*out = S.conf;
	pthread_mutex_unlock(&S.mu);
}

void settings_get_pol(struct rule_config *out)
{
	pthread_mutex_lock(&S.mu);
	*out = S.conf.pol;
	pthread_mutex_unlock(&S.mu);
}

int settings_indexed_queries(void)
{
	return atomic_load_explicit(&S.indexed_queries, memory_order_relaxed);
}
