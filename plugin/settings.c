/* The config file, its identity as last read, and the settings in force
 * (see settings.h). */
#include "settings.h"

#include <errno.h>
#include <pthread.h>
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

static osm_log_t *log_to;
static char path[OSMATS_CONF_PATH_MAX];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER; /* conf, stamp */
static struct osmats_conf conf;
static struct stamp conf_stamp;
static int indexed_queries; /* atomic: conf.indexed_queries */

static void stamp_of(struct stamp *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st))
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
	ret = osmats_conf_load(path, c, err, sizeof(err));
	if (ret == -ENOENT) {
		OSM_LOG(log_to, OSM_LOG_INFO, "no %s: using defaults\n", path);
	} else if (ret) {
		OSM_LOG(log_to, OSM_LOG_ERROR, "ERR 7A20: %s\n", err);
		return ret;
	}
	osmats_conf_describe(c, desc, sizeof(desc));
	OSM_LOG(log_to, OSM_LOG_INFO, "config: %s\n", desc);
	return 0;
}

void settings_init(osm_log_t *l, const char *options)
{
	log_to = l;
	osmats_conf_path_from_options(options, path, sizeof(path));
	if (load_conf(&conf, &conf_stamp)) {
		/* Fail closed: without the plugin every rule would be off. Only
		 * a setting the file makes explicitly turns a rule off; a file
		 * that does not parse sets nothing. A SIGHUP after the fix
		 * loads it (the stamp stays the broken file's). */
		char desc[1024];

		osmats_conf_default(&conf);
		osmats_conf_describe(&conf, desc, sizeof(desc));
		OSM_LOG(log_to, OSM_LOG_ERROR,
			"ERR 7A23: %s not used: osmats runs with its built-in defaults, every rule on: %s\n",
			path, desc);
	}
	indexed_queries = conf.indexed_queries;
}

void settings_reload(void)
{
	struct stamp old, now;
	struct osmats_conf c;
	const char *key;

	pthread_mutex_lock(&mu);
	old = conf_stamp;
	pthread_mutex_unlock(&mu);
	stamp_of(&now);
	if (stamp_equal(&old, &now))
		return;
	if (load_conf(&c, &now)) {
		OSM_LOG(log_to, OSM_LOG_ERROR,
			"ERR 7A21: %s not reloaded; the previous settings stay in force\n", path);
		pthread_mutex_lock(&mu);
		conf_stamp = now;
		pthread_mutex_unlock(&mu);
		return;
	}
	pthread_mutex_lock(&mu);
	if (osmats_conf_restart_needed(&conf, &c, &key)) {
		OSM_LOG(log_to, OSM_LOG_ERROR,
			"ERR 7A22: %s changed %s, which takes effect at the next OpenSM start\n",
			path, key);
		osmats_conf_keep_restart_keys(&c, &conf);
	}
	conf = c;
	conf_stamp = now;
	__atomic_store_n(&indexed_queries, c.indexed_queries, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&mu);
	OSM_LOG(log_to, OSM_LOG_INFO, "reloaded %s\n", path);
}

const char *settings_path(void)
{
	return path;
}

void settings_get(struct osmats_conf *out)
{
	pthread_mutex_lock(&mu);
	*out = conf;
	pthread_mutex_unlock(&mu);
}

void settings_get_pol(struct rule_config *out)
{
	pthread_mutex_lock(&mu);
	*out = conf.pol;
	pthread_mutex_unlock(&mu);
}

int settings_indexed_queries(void)
{
	return __atomic_load_n(&indexed_queries, __ATOMIC_RELAXED);
}
