/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if_arp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibsys.h"
#include "core/ipoib.h"
#include "core/mport.h"

#define PATH_LEN 512

/* The first line of a sysfs attribute, without its newline. */
static int read_attr(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int read_attr(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_LEN];
	va_list ap;
	ssize_t n;
	int fd, k;

	va_start(ap, fmt);
	k = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	k = errno;
	close(fd);
	if (n < 0)
		return -k;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static const char *root_of(const char *root)
{
	return root ? root : "/sys";
}

/* "4: ACTIVE" -> 4; "0x12" -> 18. */
static long leading_number(const char *s, int base)
{
	char *end;
	long v = strtol(s, &end, base);

	return end == s ? -1 : v;
}

/* gids/N prints eight colon-separated groups of four hex digits. */
static int parse_gid(const char *s, uint8_t *gid)
{
	return inet_pton(AF_INET6, s, gid) == 1 ? 0 : -EINVAL;
}

int ibsys_port_read(const char *root, const char *ca, int port,
		    struct ibsys_port *p)
{
	const char *r = root_of(root);
	char v[128];
	long x;
	int ret;

	memset(p, 0, sizeof(*p));
	if (strlen(ca) >= sizeof(p->ca) || strchr(ca, '/') || port < 1)
		return -EINVAL;
	snprintf(p->ca, sizeof(p->ca), "%s", ca);
	p->port = port;
	ret = read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/state", r, ca, port);
	if (ret)
		return ret == -ENOTDIR ? -ENOENT : ret;
	x = leading_number(v, 10);
	p->state = x >= IBSYS_DOWN && x <= 5 ? (int)x : 0;
	if (!read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/phys_state", r, ca, port))
		p->link_up = leading_number(v, 10) == 5;
	/* No link_layer attribute: a kernel from before RoCE, IB only. */
	p->ib = read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/link_layer",
			  r, ca, port) || !strcmp(v, "InfiniBand");
	if (!read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/lid", r, ca, port) &&
	    (x = leading_number(v, 16)) >= 0 && x <= 0xffff)
		p->lid = (uint16_t)x;
	if (!read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/sm_lid", r, ca, port) &&
	    (x = leading_number(v, 16)) >= 0 && x <= 0xffff)
		p->sm_lid = (uint16_t)x;
	if (!read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/gids/0", r, ca, port))
		parse_gid(v, p->gid);
	return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Calls fn for every port of ca (every CA when NULL) in name and port
 * order until fn returns non-zero; returns that value, or 0. */
static int each_port(const char *root, const char *ca,
		     int (*fn)(const struct ibsys_port *p, void *ctx), void *ctx)
{
	char path[PATH_LEN];
	struct dirent **cas = NULL;
	int ncas, i, ret = 0;

	snprintf(path, sizeof(path), "%s/class/infiniband", root_of(root));
	ncas = scandir(path, &cas, not_dot, by_name);
	if (ncas < 0)
		return 0;
	for (i = 0; i < ncas && !ret; i++) {
		struct dirent **ports = NULL;
		int np, k;

		if (ca && strcmp(ca, cas[i]->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports",
			 root_of(root), cas[i]->d_name);
		np = scandir(path, &ports, not_dot, NULL);
		/* Ports in number order, not name order ("10" after "9"). */
		for (int want = 1; np > 0 && !ret && want <= 254; want++) {
			struct ibsys_port p;

			for (k = 0; k < np; k++)
				if (leading_number(ports[k]->d_name, 10) == want)
					break;
			if (k < np && !ibsys_port_read(root, cas[i]->d_name, want, &p))
				ret = fn(&p, ctx);
		}
		for (k = 0; k < np; k++)
			free(ports[k]);
		free(ports);
	}
	for (i = 0; i < ncas; i++)
		free(cas[i]);
	free(cas);
	return ret;
}

struct pick {
	int port;              /* 0: any */
	int rank;              /* of best: 3 active, 2 link up, 1 other */
	int roce;
	struct ibsys_port best, first_roce;
};

static int consider(const struct ibsys_port *p, void *ctx)
{
	struct pick *k = ctx;
	int rank;

	if (k->port && p->port != k->port)
		return 0;
	if (!p->ib) {
		if (!k->roce++)
			k->first_roce = *p;
		return 0;
	}
	rank = p->state == IBSYS_ACTIVE ? 3 : p->link_up ? 2 : 1;
	if (rank > k->rank) {
		k->rank = rank;
		k->best = *p;
	}
	return rank == 3; /* the first active one wins */
}

int ibsys_select(const char *root, const char *ca, int port,
		 struct ibsys_port *out, char *why, size_t len)
{
	struct pick k = { .port = port };

	each_port(root, ca, consider, &k);
	if (k.rank) {
		*out = k.best;
		snprintf(why, len, "%s port %d", out->ca, out->port);
		return 0;
	}
	if (k.roce && (ca || port)) {
		snprintf(why, len, "%s port %d is RoCE (link_layer Ethernet): ATS needs an InfiniBand port",
			 k.first_roce.ca, k.first_roce.port);
		return -EPROTONOSUPPORT;
	}
	if (k.roce) {
		/* Not -ENODEV: libibumad, asked instead, would take the RoCE port. */
		snprintf(why, len, "no InfiniBand port, only RoCE (link_layer Ethernet) ones such as %s port %d: ATS needs an InfiniBand port",
			 k.first_roce.ca, k.first_roce.port);
		return -EPROTONOSUPPORT;
	}
	snprintf(why, len, "no InfiniBand port%s%s%s%s", ca ? " on " : "", ca ? ca : "",
		 port ? " with that number" : "", k.roce ? " (RoCE ports skipped)" : "");
	return -ENODEV;
}

struct gid_find {
	const uint8_t *gid;
	struct ibsys_port *out;
	const char *root;
};

static int has_gid(const struct ibsys_port *p, void *ctx)
{
	struct gid_find *g = ctx;
	char v[128];
	uint8_t gid[16];
	int i;

	/* The GID table's size is the port's; 128 covers every HCA's. */
	for (i = 0; i < 128; i++) {
		if (read_attr(v, sizeof(v), "%s/class/infiniband/%s/ports/%d/gids/%d",
			      root_of(g->root), p->ca, p->port, i))
			break;
		if (!parse_gid(v, gid) && !memcmp(gid, g->gid, 16)) {
			*g->out = *p;
			return 1;
		}
	}
	return 0;
}

int ibsys_find_gid(const char *root, const uint8_t *gid, struct ibsys_port *out)
{
	struct gid_find g = { gid, out, root };

	return each_port(root, NULL, has_gid, &g) ? 0 : -ENOENT;
}

/* "80:00:04:04:fe:80:...": 20 bytes of colon-separated hex. */
static int parse_hwaddr(const char *s, uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned x;
		int n;

		if (sscanf(s, "%2x%n", &x, &n) != 1 || n != 2)
			return -EINVAL;
		b[i] = (uint8_t)x;
		s += 2;
		if (i + 1 < len && *s++ != ':')
			return -EINVAL;
	}
	return *s ? -EINVAL : 0;
}

int ibsys_netdev_read(const char *root, const char *ifname,
		      struct ibsys_netdev *nd)
{
	uint8_t hw[IPOIB_HWADDR_LEN];
	struct ipoib_hwaddr a;
	char v[128];
	long x;
	int ret;

	memset(nd, 0, sizeof(*nd));
	if (!*ifname || strchr(ifname, '/') || strlen(ifname) >= IBSYS_NAME_MAX)
		return -EINVAL;
	ret = read_attr(v, sizeof(v), "%s/class/net/%s/type", root_of(root), ifname);
	if (ret)
		return ret;
	if (leading_number(v, 10) != ARPHRD_INFINIBAND)
		return -EPROTOTYPE;
	ret = read_attr(v, sizeof(v), "%s/class/net/%s/address", root_of(root), ifname);
	if (ret)
		return ret;
	if (parse_hwaddr(v, hw, sizeof(hw)) || ipoib_hwaddr_decode(hw, sizeof(hw), &a))
		return -EINVAL;
	memcpy(nd->gid, a.gid, 16);
	nd->qpn = a.qpn;
	/* IPoIB's pkey attribute: the interface's P_Key, "0x%04x". */
	nd->pkey = 0xffff;
	if (!read_attr(v, sizeof(v), "%s/class/net/%s/pkey", root_of(root), ifname) &&
	    (x = leading_number(v, 16)) > 0 && x <= 0xffff && (x & 0x7fff))
		nd->pkey = (uint16_t)x;
	return 0;
}

int ibsys_ipoib_on_port(const char *root, const uint8_t *gid, uint16_t pkey,
			char *name, size_t len)
{
	char path[PATH_LEN];
	struct dirent **ifs = NULL;
	int n, i, found = 0;

	snprintf(path, sizeof(path), "%s/class/net", root_of(root));
	n = scandir(path, &ifs, not_dot, by_name);
	for (i = 0; i < n; i++) {
		struct ibsys_netdev nd;

		if (!found && !ibsys_netdev_read(root, ifs[i]->d_name, &nd) &&
		    !memcmp(nd.gid, gid, 16) && (nd.pkey | 0x8000) == (pkey | 0x8000)) {
			snprintf(name, len, "%s", ifs[i]->d_name);
			found = 1;
		}
		free(ifs[i]);
	}
	free(ifs);
	return found;
}

int ibsys_umad_path(const char *root, const char *ca, int port, char *path, size_t len)
{
	struct dirent **ents = NULL;
	char dir[PATH_LEN], v[IBSYS_NAME_MAX];
	int n, i, ret = -ENOENT;

	/* user_mad.c ib_umad_init_port: class infiniband_mad, device umadN
	 * with attributes ibdev and port; umad_devnode puts its node at
	 * /dev/infiniband/umadN (libibumad's dev_to_umad_id reads the same). */
	if (!ca)
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%s/class/infiniband_mad", root_of(root));
	n = scandir(dir, &ents, not_dot, by_name);
	for (i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (ret == -ENOENT && !strncmp(name, "umad", 4) &&
		    !read_attr(v, sizeof(v), "%s/%s/ibdev", dir, name) && !strcmp(v, ca) &&
		    !read_attr(v, sizeof(v), "%s/%s/port", dir, name) &&
		    leading_number(v, 10) == port)
			ret = snprintf(path, len, "/dev/infiniband/%s", name) < (int)len ?
			      0 : -ENAMETOOLONG;
		free(ents[i]);
	}
	free(ents);
	return ret;
}

int ibsys_umad_denied(const char *ca, int port, char *why, size_t len)
{
	char dev[PATH_LEN], w[160];
	struct ibsys_port p;

	/* faccessat(AT_EACCESS): the effective ids, as open() checks them. */
	if (ibsys_select(NULL, ca && *ca ? ca : NULL, port, &p, w, sizeof(w)) ||
	    ibsys_umad_path(NULL, p.ca, p.port, dev, sizeof(dev)) ||
	    !faccessat(AT_FDCWD, dev, R_OK | W_OK, AT_EACCESS) ||
	    (errno != EACCES && errno != EPERM))
		return 0;
	snprintf(why, len, "permission denied on %s", dev);
	return -EACCES;
}

int ibsys_open_port(struct mport **out, const char *ca, int port, char *why,
		    size_t len)
{
	struct ibsys_port p;
	int ret = ibsys_select(NULL, ca && *ca ? ca : NULL, port, &p, why, len);
	int picked = !ret;

	if (ret == -EPROTONOSUPPORT)
		return ret;
	if (ret)
		ret = mport_open(out, ca && *ca ? ca : NULL, port);
	else
		ret = mport_open(out, p.ca, p.port);
	/* libibumad's umad_open_port answers -EIO to any failed open(2)
	 * (umad.c), its errno lost: the device's mode says whether it was
	 * the caller's rights (umad is root's on distributions). */
	if (ret == -EIO && picked && ibsys_umad_denied(p.ca, p.port, why, len) == -EACCES)
		return -EACCES;
	if (ret)
		snprintf(why, len, "%s", strerror(-ret));
	return ret;
}

const char *ibsys_state_name(int state)
{
	/* infiniband-diags ibstat.c, port_state_str[]. */
	static const char *const names[] = { "Down", "Initializing", "Armed", "Active" };

	return state >= IBSYS_DOWN && state <= IBSYS_ACTIVE ? names[state - IBSYS_DOWN] : "Unknown";
}
