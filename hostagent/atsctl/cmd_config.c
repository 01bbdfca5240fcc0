/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl check-config: the same loaders atsd (agent_conf_load) and the
 * plugin (osmats_conf_load) run at start and reload, so a file that passes here
 * loads there. A missing file is an error here: both would run on their
 * defaults, which is not what a check of FILE means. What only the
 * machine that runs the daemon has (atsd's control_group, the plugin's
 * state directory) is a warning: a configuration server checks files
 * for hosts it is not. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/agent_conf.h"
#include "host/conf_check.h"
#include "cmd_config.h"
#include "core/cfg.h"
#include "core/keyfile.h"
#include "core/osmats_conf.h"
#include "ctl.h"

/* The key file as the plugin reads it at start (replica_init), OpenSM
 * running as root: one it refuses turns replication off (ERR 7A48)
 * though osmats.conf parses. With replication no the plugin never
 * reads it: a warning then. */
static void check_key_file(struct conf_check *r, const struct osmats_conf *pc)
{
	uint8_t key[KEYFILE_MAX];
	unsigned line = cfg_key_line(r->path, "replication_key_file");
	char why[700], hint[160] = "";
	size_t len;
	int ret = keyfile_read_as(pc->replication_key_file, 0, key, &len, why, sizeof(why));

	explicit_bzero(key, sizeof(key));
	if (!ret)
		return;
	/* Not root: a key only root may read is one check-config cannot
	 * see, not one OpenSM cannot. */
	if (ret == -EACCES && geteuid())
		snprintf(hint, sizeof(hint), " (atsctl runs as uid %u: run check-config as root, "
			 "OpenSM's user, to check the key)", (unsigned)geteuid());
	if (!pc->replication) {
		conf_check_warn(r, "%s:%u: replication_key_file %s%s: not read while replication "
				"is no; with replication yes it would be off (ERR 7A48)", r->path,
				line, why, hint);
		return;
	}
	snprintf(r->err, sizeof(r->err), "%s:%u: replication_key_file %s%s: replication to "
		 "standby SMs would be off (ERR 7A48)", r->path, line, why, hint);
}

/* Where the plugin writes its state file and osmats.prom: a directory
 * missing here is missing on the SM only if this is the SM. */
static void check_state_dir(struct conf_check *r, const struct osmats_conf *pc)
{
	char dir[OSMATS_CONF_PATH_MAX];
	const char *slash = strrchr(pc->state_file, '/');
	struct stat st;

	if (!pc->state_file[0] || !strcmp(pc->state_file, "none") || !slash)
		return;
	snprintf(dir, sizeof(dir), "%.*s", slash == pc->state_file ? 1 :
		 (int)(slash - pc->state_file), pc->state_file);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		conf_check_warn(r, "%s:%u: state_file %s: %s is not a directory on this machine: "
				"the plugin would write no state file or %s there (ERR 7A12)",
				r->path, cfg_key_line(r->path, "state_file"), pc->state_file, dir,
				OSMATS_CONF_METRICS_NAME);
}

static int load_plugin_conf(struct conf_check *r)
{
	struct osmats_conf pc;
	int ret;

	osmats_conf_default(&pc);
	ret = osmats_conf_load(r->path, &pc, r->err, sizeof(r->err));
	if (ret)
		return ret;
	if (pc.replication_key_file[0])
		check_key_file(r, &pc);
	check_state_dir(r, &pc);
	return 0;
}

int cmd_config_check(struct ctl *c, const struct ctl_args *a)
{
	struct conf_check r;
	int ret;

	conf_check_init(&r, a->arg[0], a->plugin_conf ? "osmats.conf" : "atsd.conf");
	if (a->plugin_conf) {
		ret = load_plugin_conf(&r);
	} else {
		struct agent_conf ac;

		agent_conf_default(&ac);
		ret = agent_conf_check(r.path, &ac, r.err, sizeof(r.err), r.warn, sizeof(r.warn));
	}
	if (ret == -ENOENT)
		snprintf(r.err, sizeof(r.err), "%s: %s", r.path, strerror(ENOENT));
	else if (ret && !r.err[0])
		snprintf(r.err, sizeof(r.err), "%s: %s", r.path, strerror(-ret));
	return conf_check_report(&r, "atsctl", c->json) ? CTL_EXIT_INVALID : CTL_EXIT_FOUND;
}
