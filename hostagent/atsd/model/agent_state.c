/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Format, one item a line:
 *   ibats-atsd-state 1 GID
 *   SID PKEY IP            (one per record atsd registered)
 *   end N                  (N records: a cut file is not taken for a
 *                           shorter list)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/afile.h"
#include "agent_state.h"
#include "safe_dir.h"

#define STATE_MAGIC "ibats-atsd-state"
#define STATE_MAX 4096 /* records: 256 SIDs times a few PKeys */

/* The file itself, a regular file of root's or atsd's: agent_state_check ran
 * at start or reload, the load comes once the port's GID is known, and a
 * file swapped in between is no list of ours (-EBADMSG). */
static FILE *open_own(const char *path, const char **why)
{
	/* The main thread's alone, as the load is. */
	static char owner[64];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		if (errno == ELOOP) {
			*why = "a symbolic link";
			errno = EBADMSG;
		}
		return NULL;
	}
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || (st.st_uid && st.st_uid != geteuid())) {
		snprintf(owner, sizeof(owner), "owned by uid %u, neither root nor atsd's",
			 (unsigned)st.st_uid);
		*why = S_ISREG(st.st_mode) ? owner : "not a regular file";
		close(fd);
		errno = EBADMSG;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

int agent_state_load(const char *path, const uint8_t *gid, struct plan_held_rec **out,
		     size_t *n, const char **why)
{
	char line[256], g[64], want[ATS_IP_STRLEN];
	struct plan_held_rec *v = NULL;
	size_t nv = 0, end = SIZE_MAX;
	unsigned version;
	FILE *f;
	int ret = 0;

	*out = NULL;
	*n = 0;
	*why = "";
	f = open_own(path, why);
	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f) ||
	    sscanf(line, STATE_MAGIC " %u %63s", &version, g) != 2 || version != 1) {
		*why = "no ibats-atsd-state 1 header";
		ret = -EBADMSG;
		goto out;
	}
	if (strcmp(g, ats_gid_format(gid, want, sizeof(want)))) {
		*why = "written for another GID (does another atsd use this state_file?)";
		ret = -EBADMSG;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long sid;
		unsigned pkey;
		char ip[64];
		size_t e;
		struct plan_held_rec *nvv;

		if (end != SIZE_MAX) {
			*why = "lines after the end line";
			ret = -EBADMSG;
			goto out;
		}
		if (sscanf(line, "end %zu", &e) == 1) {
			end = e;
			continue;
		}
		if (sscanf(line, "%llx %x %63s", &sid, &pkey, ip) != 3 || pkey > 0xffff ||
		    !ats_sid_in_block(sid) || nv == STATE_MAX) {
			*why = "a malformed record line";
			ret = -EBADMSG;
			goto out;
		}
		nvv = realloc(v, (nv + 1) * sizeof(*v));
		if (!nvv) {
			ret = -ENOMEM;
			goto out;
		}
		v = nvv;
		memset(&v[nv], 0, sizeof(v[nv]));
		if (ats_ip_parse(ip, &v[nv].ip)) {
			*why = "a malformed address";
			ret = -EBADMSG;
			goto out;
		}
		v[nv].sid = sid;
		v[nv].pkey = (uint16_t)pkey;
		nv++;
	}
	if (end != nv) {
		*why = end == SIZE_MAX ? "cut short (no end line)" : "record count differs from the end line";
		ret = -EBADMSG;
	}
out:
	fclose(f);
	if (ret) {
		free(v);
		return ret;
	}
	*out = v;
	*n = nv;
	return 0;
}

int agent_state_save(const char *path, const uint8_t *gid, const struct plan_held_rec *r,
		     size_t n)
{
	char tmp[4200], g[ATS_IP_STRLEN], ip[ATS_IP_STRLEN], dir[4096], *slash;
	size_t i;
	FILE *f;
	int fd, ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= sizeof(tmp))
		return -ENAMETOOLONG;
	f = afile_tmp(tmp);
	if (!f)
		return -errno;
	fprintf(f, STATE_MAGIC " 1 %s\n", ats_gid_format(gid, g, sizeof(g)));
	for (i = 0; i < n; i++)
		fprintf(f, "0x%016" PRIx64 " 0x%04x %s\n", r[i].sid, r[i].pkey,
			ats_ip_format(&r[i].ip, ip, sizeof(ip)));
	fprintf(f, "end %zu\n", n);
	/* Synced: the SA keeps records across a crash and so must this list. */
	ret = afile_commit(f, tmp, path, 0, 1);
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		fd = open(slash == dir ? "/" : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			/* The rename itself on disk; best effort. */
			if (fsync(fd))
				ret = 0;
			close(fd);
		}
	}
	return 0;
}

int agent_state_check(const char *path, char *why, size_t len)
{
	char dir[4096];
	struct stat st;
	int ret;

	safe_dir_of(path, dir, sizeof(dir));
	ret = safe_dir_check(dir, why, len);
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		if (ret != -EPERM)
			snprintf(why, len, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	if (lstat(path, &st))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, len, "%s is a symbolic link", path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s is not a regular file", path);
		return -EINVAL;
	}
	/* A sticky directory (/tmp) stops others replacing atsd's file, not
	 * making one first. */
	if (st.st_uid && st.st_uid != geteuid()) {
		snprintf(why, len, "%s is owned by uid %u, neither root nor atsd's", path,
			 (unsigned)st.st_uid);
		return -EPERM;
	}
	return 0;
}

static int filed_has(const struct plan_action *a, const struct plan_held_rec *v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (v[k].sid == a->sid && v[k].pkey == a->pkey && ats_ip_equal(&v[k].ip, &a->ip))
			return 1;
	return 0;
}

size_t agent_state_gate(struct plan_action *plan, size_t n, const struct plan_held_rec *filed,
			size_t nfiled)
{
	size_t i, k, kept = 0;

	for (i = 0; i < n; i++) {
		struct plan_action a = plan[i];

		if (a.op == PLAN_SET && !filed_has(&a, filed, nfiled))
			continue;
		/* Shift the held-back ones between kept and i up by one. */
		for (k = i; k > kept; k--)
			plan[k] = plan[k - 1];
		plan[kept++] = a;
	}
	return kept;
}
