/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* atsctl check-config: the same loaders atsd (agent_conf_load) and the
 * plugin (osmats_conf_load) run at start and reload, so a file that passes here
 * loads there. A missing file is an error here: both would run on their
 * defaults, which is not what a check of FILE means. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/agent_conf.h"
#include "cmd_config.h"
#include "core/keyfile.h"
#include "core/osmats_conf.h"
#include "ctl.h"

int cmd_config_check(struct ctl *c, const struct ctl_args *a)
{
	const char *path = a->arg[0];
	char err[512] = "";
	int ret;

	(void)c;
	if (a->plugin_conf) {
		struct osmats_conf pc;

		osmats_conf_default(&pc);
		ret = osmats_conf_load(path, &pc, err, sizeof(err));
		/* What the plugin reads at start: a key file it would refuse
		 * turns replication off (ERR 7A48) though the file parses. */
		if (!ret && pc.replication_key_file[0]) {
			uint8_t key[KEYFILE_MAX];
			char why[400];
			size_t len;

			ret = keyfile_read(pc.replication_key_file, key, &len, why, sizeof(why));
			explicit_bzero(key, sizeof(key));
			if (ret) {
				fprintf(stderr, "atsctl: %s: replication_key_file %s: replication to "
					"standby SMs would be off (ERR 7A48)\n", path, why);
				return EXIT_INVALID;
			}
		}
	} else {
		struct agent_conf ac;

		agent_conf_default(&ac);
		ret = agent_conf_load(path, &ac, err, sizeof(err));
	}
	if (ret == -ENOENT)
		snprintf(err, sizeof(err), "%s: %s", path, strerror(ENOENT));
	else if (ret && !err[0])
		snprintf(err, sizeof(err), "%s: %s", path, strerror(-ret));
	if (ret) {
		fprintf(stderr, "atsctl: %s\n", err);
		return EXIT_INVALID;
	}
	printf("%s: valid %s\n", path, a->plugin_conf ? "osmats.conf" : "atsd.conf");
	return EXIT_FOUND;
}
