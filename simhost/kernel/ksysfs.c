/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The simulated node's sysfs: see ksysfs.h. Formats are the kernel's
 * (drivers/infiniband/core/sysfs.c, user_mad.c, uverbs_main.c,
 * net/core/net-sysfs.c, ulp/ipoib/ipoib_main.c) where libibumad or
 * ibsys.c parse them, umad2sim's otherwise. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "core/ipoib.h"
#include "kdriver.h"
#include "ksysfs.h"
#include "core/wire.h"

#define IB_UMAD_ABI_VERSION 5
#define IB_UVERBS_ABI_VERSION 6
#define ARPHRD_INFINIBAND_TYPE 32
/* IPoIB's default MTU in datagram mode: 2048 - the 4-byte header. */
#define IPOIB_UD_MTU 2044

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* ROOT/dir/name, whole: a temp file renamed over it. */
static int put(const struct ksysfs *s, const char *dir, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int put(const struct ksysfs *s, const char *dir, const char *name, const char *fmt, ...)
{
	char d[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX], val[256];
	va_list ap;
	int n, fd, ret;

	va_start(ap, fmt);
	n = vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(val))
		return -EOVERFLOW;
	if (snprintf(d, sizeof(d), "%s/%s", s->root, dir) >= (int)sizeof(d) ||
	    snprintf(path, sizeof(path), "%s/%s", d, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.tmp.%s", d, name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	ret = mkdirs(d);
	if (ret)
		return ret;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = write(fd, val, (size_t)n) == n ? 0 : -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

static void guid_str(char *out, size_t len, uint64_t g)
{
	snprintf(out, len, "%04x:%04x:%04x:%04x", (unsigned)(g >> 48) & 0xffff,
		 (unsigned)(g >> 32) & 0xffff, (unsigned)(g >> 16) & 0xffff, (unsigned)g & 0xffff);
}

static unsigned port_num(const uint8_t *pi)
{
	return pi[KSYSFS_PI_OFF_LOCAL_PORT] ? pi[KSYSFS_PI_OFF_LOCAL_PORT] : 1;
}

int ksysfs_init(struct ksysfs *s, const char *root, const char *node,
		const uint8_t nodeinfo[64])
{
	static const char *types[] = { "<unknown>", "CA", "SWITCH", "ROUTER" };
	const char *ca = "class/infiniband/" KSYSFS_CA;
	uint8_t t = nodeinfo[KSYSFS_NI_OFF_NODE_TYPE];
	char g[32];
	int ret = 0;

	memset(s, 0, sizeof(*s));
	if (snprintf(s->root, sizeof(s->root), "%s", root) >= (int)sizeof(s->root))
		return -ENAMETOOLONG;
	memcpy(s->nodeinfo, nodeinfo, 64);
	ret |= put(s, "class/infiniband_mad", "abi_version", "%d\n", IB_UMAD_ABI_VERSION);
	ret |= put(s, ca, "node_type", "%u: %s\n", t, types[t < 4 ? t : 0]);
	ret |= put(s, ca, "fw_ver", "1\n"); /* ibsim.c sim_ctl_get_vendor */
	ret |= put(s, ca, "hw_rev", "%x\n", wire_get32(nodeinfo + KSYSFS_NI_OFF_REVISION));
	ret |= put(s, ca, "hca_type", "simulator\n");
	ret |= put(s, ca, "board_id", "ibsim\n");
	ret |= put(s, ca, "node_desc", "%s\n", node);
	guid_str(g, sizeof(g), wire_get64(nodeinfo + KSYSFS_NI_OFF_NODE_GUID));
	ret |= put(s, ca, "node_guid", "%s\n", g);
	guid_str(g, sizeof(g), wire_get64(nodeinfo + KSYSFS_NI_OFF_SYS_GUID));
	ret |= put(s, ca, "sys_image_guid", "%s\n", g);
	ret |= put(s, "class/infiniband_mad/umad0", "ibdev", "%s\n", KSYSFS_CA);
	ret |= put(s, "class/infiniband_mad/umad0", "port", "1\n");
	ret |= put(s, "class/infiniband_mad/umad0", "dev", "231:0\n");
	ret |= put(s, "class/infiniband_mad/issm0", "ibdev", "%s\n", KSYSFS_CA);
	ret |= put(s, "class/infiniband_mad/issm0", "port", "1\n");
	ret |= put(s, "class/infiniband_mad/issm0", "dev", "231:64\n");
	ret |= put(s, "class/infiniband_verbs", "abi_version", "%d\n", IB_UVERBS_ABI_VERSION);
	ret |= put(s, "class/infiniband_verbs/uverbs0", "ibdev", "%s\n", KSYSFS_CA);
	ret |= put(s, "class/infiniband_verbs/uverbs0", "abi_version", "1\n");
	ret |= put(s, "class/infiniband_verbs/uverbs0", "dev", "231:192\n");
	s->next_ifindex = KSYSFS_IFINDEX_FIRST;
	return ret ? -EIO : 0;
}

/* ROOT/dir and the files in it (one level: all this tree has). */
static int rmtree(const struct ksysfs *s, const char *dir)
{
	char d[PATH_MAX], path[PATH_MAX + 256];
	struct dirent *e;
	DIR *dp;
	int ret = 0;

	if (snprintf(d, sizeof(d), "%s/%s", s->root, dir) >= (int)sizeof(d))
		return -ENAMETOOLONG;
	dp = opendir(d);
	if (!dp)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", d, e->d_name);
			if (unlink(path) < 0 && errno != ENOENT)
				ret = -errno;
		}
	closedir(dp);
	if (!ret && rmdir(d) < 0)
		ret = -errno;
	return ret;
}

static int rmtree_netdev(const struct ksysfs *s, const char *name)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "class/net/%s", name);
	return rmtree(s, dir);
}

int ksysfs_cm(struct ksysfs *s, int loaded)
{
	int ret;

	if (!loaded) {
		ret = rmtree(s, "class/misc/rdma_cm");
		return ret ? ret : rmtree(s, "module/ib_cm");
	}
	/* kernel/module/sysfs.c: a live module's initstate. */
	if ((ret = put(s, "module/ib_cm", "initstate", "live\n")) < 0)
		return ret;
	/* ucma.c registers misc device "rdma_cm" (MISC_DYNAMIC_MINOR; 10:58
	 * is what hosts get) and its abi_version attribute
	 * (RDMA_USER_CM_ABI_VERSION, <rdma/rdma_user_cm.h>): librdmacm's
	 * check_abi_version_sysfs reads it when RDMA netlink is absent. */
	if ((ret = put(s, "class/misc/rdma_cm", "abi_version", "%d\n", KSYSFS_UCMA_ABI)) < 0 ||
	    (ret = put(s, "class/misc/rdma_cm", "dev", "%d:%d\n", KSYSFS_UCMA_MAJOR,
		       KSYSFS_UCMA_MINOR)) < 0)
		return ret;
	return 0;
}


void ksysfs_gid(const struct ksysfs *s, uint8_t gid[16])
{
	/* ibsim: a CA port's GUID is the node GUID plus its number
	 * (sim_net.c). */
	memcpy(gid, s->pi + KSYSFS_PI_OFF_GID_PREFIX, 8);
	wire_put64(gid + 8, wire_get64(s->nodeinfo + KSYSFS_NI_OFF_NODE_GUID) + port_num(s->pi));
}

/* "%d%s Gb/sec (%dX%s)" as drivers/infiniband/core/sysfs.c rate_show. */
static int put_rate(const struct ksysfs *s, const char *dir, const uint8_t *pi)
{
	static const unsigned widths[] = { [1] = 1, [2] = 4, [4] = 8, [8] = 12 };
	unsigned w = pi[KSYSFS_PI_OFF_WIDTH_ACTIVE] < 9 ? widths[pi[KSYSFS_PI_OFF_WIDTH_ACTIVE]] : 0;
	unsigned ext = wire_get32(pi + KSYSFS_PI_OFF_CAP_MASK) & (1u << 14) ?
			       pi[KSYSFS_PI_OFF_SPEED_EXT_ACTIVE] >> 4 : 0;
	unsigned sp = pi[KSYSFS_PI_OFF_SPEED_ACTIVE] >> 4;
	unsigned tenths;
	const char *name;

	if (ext) {
		name = ext == 1 ? " FDR" : ext == 2 ? " EDR" : ext == 4 ? " HDR" : " NDR";
		tenths = (ext == 1 ? 140 : ext == 2 ? 250 : ext == 4 ? 500 : 1000) * w;
	} else {
		name = sp == 2 ? " DDR" : sp == 4 ? " QDR" : "";
		tenths = (sp == 2 ? 50 : sp == 4 ? 100 : 25) * w;
	}
	return put(s, dir, "rate", "%u%s Gb/sec (%uX%s)\n", tenths / 10,
		   tenths % 10 ? ".5" : "", w, name);
}

static int put_port(const struct ksysfs *s, const uint8_t *pi, const uint8_t *pk)
{
	static const char *states[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER" };
	static const char *phys[] = { "<unknown>", "Sleep", "Polling", "Disabled",
				      "PortConfigurationTraining", "LinkUp",
				      "LinkErrorRecovery", "Phy Test" };
	char dir[128], sub[160];
	unsigned st = pi[KSYSFS_PI_OFF_STATE] & 0xf, ph = pi[KSYSFS_PI_OFF_PHYS_STATE] >> 4;
	uint8_t gid[16];
	int ret = 0, i;

	snprintf(dir, sizeof(dir), "class/infiniband/%s/ports/%u", KSYSFS_CA, port_num(pi));
	ret |= put(s, dir, "lid", "0x%x\n", wire_get16(pi + KSYSFS_PI_OFF_LID));
	ret |= put(s, dir, "lid_mask_count", "%u\n", pi[KSYSFS_PI_OFF_LMC] & 0x7);
	ret |= put(s, dir, "sm_lid", "0x%x\n", wire_get16(pi + KSYSFS_PI_OFF_SM_LID));
	ret |= put(s, dir, "sm_sl", "%u\n", pi[KSYSFS_PI_OFF_SM_SL] & 0xf);
	ret |= put(s, dir, "cap_mask", "0x%08x\n", wire_get32(pi + KSYSFS_PI_OFF_CAP_MASK));
	ret |= put(s, dir, "state", "%u: %s\n", st, st < 6 ? states[st] : "<unknown>");
	ret |= put(s, dir, "phys_state", "%u: %s\n", ph, ph < 8 ? phys[ph] : "<unknown>");
	ret |= put(s, dir, "link_layer", "InfiniBand\n");
	ret |= put_rate(s, dir, pi);
	ksysfs_gid(s, gid);
	snprintf(sub, sizeof(sub), "%s/gids", dir);
	ret |= put(s, sub, "0", "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x\n",
		   gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7], gid[8], gid[9],
		   gid[10], gid[11], gid[12], gid[13], gid[14], gid[15]);
	snprintf(sub, sizeof(sub), "%s/pkeys", dir);
	for (i = 0; i < 32; i++) {
		char name[12];

		snprintf(name, sizeof(name), "%d", i);
		ret |= put(s, sub, name, "0x%04x\n", wire_get16(pk + 2 * i));
	}
	return ret ? -EIO : 0;
}

/* net-sysfs.c and ipoib_main.c: the 20-byte hardware address as
 * "QPN:GID" with the connected-mode flag ipoib_cm sets on HCAs that
 * have an SRQ (the usual case), the broadcast address of the P_Key's
 * IPv4 group. */
static int put_netdev(const struct ksysfs *s, const struct ksysfs_netdev *n, int up)
{
	struct ipoib_hwaddr a;
	uint8_t hw[IPOIB_HWADDR_LEN], bc[IPOIB_HWADDR_LEN];
	char dir[64], addr[3 * IPOIB_HWADDR_LEN], baddr[3 * IPOIB_HWADDR_LEN];
	int ret = 0, i;

	memset(&a, 0, sizeof(a));
	a.flags = IPOIB_FLAG_CM;
	a.qpn = n->qpn;
	ksysfs_gid(s, a.gid);
	ipoib_hwaddr_encode(hw, &a);
	memset(bc, 0, sizeof(bc));
	wire_put32(bc, IPOIB_QPN_BROADCAST);
	ipoib_bcast_mgid(n->pkey, bc + 4);
	for (i = 0; i < IPOIB_HWADDR_LEN; i++) {
		snprintf(addr + 3 * i, 4, "%02x%s", hw[i], i + 1 < IPOIB_HWADDR_LEN ? ":" : "");
		snprintf(baddr + 3 * i, 4, "%02x%s", bc[i], i + 1 < IPOIB_HWADDR_LEN ? ":" : "");
	}
	snprintf(dir, sizeof(dir), "class/net/%s", n->name);
	ret |= put(s, dir, "type", "%d\n", ARPHRD_INFINIBAND_TYPE);
	ret |= put(s, dir, "address", "%s\n", addr);
	ret |= put(s, dir, "broadcast", "%s\n", baddr);
	ret |= put(s, dir, "addr_len", "%d\n", IPOIB_HWADDR_LEN);
	ret |= put(s, dir, "pkey", "0x%04x\n", n->pkey);
	ret |= put(s, dir, "dev_id", "0x0\n");
	ret |= put(s, dir, "dev_port", "0\n");
	ret |= put(s, dir, "mode", "datagram\n");
	ret |= put(s, dir, "mtu", "%d\n", IPOIB_UD_MTU);
	ret |= put(s, dir, "ifindex", "%d\n", n->ifindex);
	ret |= put(s, dir, "carrier", "%d\n", up);
	ret |= put(s, dir, "operstate", "%s\n", up ? "up" : "down");
	return ret ? -EIO : 0;
}

static struct ksysfs_netdev *find_netdev(struct ksysfs *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nnd; i++)
		if (!strcmp(s->nd[i].name, name))
			return &s->nd[i];
	return NULL;
}

int ksysfs_add_netdev(struct ksysfs *s, const char *name, uint16_t pkey, uint32_t qpn)
{
	struct ksysfs_netdev *n;
	int ret;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) >= sizeof(n->name))
		return -EINVAL;
	if (find_netdev(s, name))
		return -EEXIST;
	if (s->nnd == KSYSFS_MAX_NETDEVS)
		return -ENOSPC;
	n = &s->nd[s->nnd];
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->pkey = pkey;
	n->qpn = qpn;
	n->ifindex = s->next_ifindex++;
	/* Before the first update the port is unknown: written then. */
	if (s->have &&
	    (ret = put_netdev(s, n, (s->pi[KSYSFS_PI_OFF_STATE] & 0xf) == KSYSFS_PI_STATE_ACTIVE)) < 0) {
		rmtree_netdev(s, name);
		return ret;
	}
	s->nnd++;
	return 0;
}

int ksysfs_del_netdev(struct ksysfs *s, const char *name, uint16_t *pkey)
{
	struct ksysfs_netdev *n = find_netdev(s, name);
	size_t at;

	if (!n)
		return -ENODEV;
	*pkey = n->pkey;
	at = (size_t)(n - s->nd);
	memmove(n, n + 1, (s->nnd - at - 1) * sizeof(*n));
	s->nnd--;
	return rmtree_netdev(s, name);
}

int ksysfs_update(struct ksysfs *s, const uint8_t pi[64], const uint8_t pk[64], uint32_t *ev)
{
	int first = !s->have, ret;
	size_t i;
	int was_active = !first && (s->pi[KSYSFS_PI_OFF_STATE] & 0xf) == KSYSFS_PI_STATE_ACTIVE;
	int active = (pi[KSYSFS_PI_OFF_STATE] & 0xf) == KSYSFS_PI_STATE_ACTIVE;
	struct kdriver_change c;

	if (!first && !memcmp(s->pi, pi, 64) && !memcmp(s->pk, pk, 64))
		return 0;
	memset(&c, 0, sizeof(c));
	if (!first) {
		c.down = was_active && !active;
		c.up = !was_active && active;
		c.lid = !!memcmp(s->pi + KSYSFS_PI_OFF_LID, pi + KSYSFS_PI_OFF_LID, 2);
		c.lmc = (s->pi[KSYSFS_PI_OFF_LMC] & 7) != (pi[KSYSFS_PI_OFF_LMC] & 7);
		c.sm_lid = !!memcmp(s->pi + KSYSFS_PI_OFF_SM_LID, pi + KSYSFS_PI_OFF_SM_LID, 2);
		c.sm_sl = (s->pi[KSYSFS_PI_OFF_SM_SL] & 0xf) != (pi[KSYSFS_PI_OFF_SM_SL] & 0xf);
		c.gid_prefix = !!memcmp(s->pi + KSYSFS_PI_OFF_GID_PREFIX, pi + KSYSFS_PI_OFF_GID_PREFIX, 8);
		c.pkeys = !!memcmp(s->pk, pk, 64);
		/* ibsim keeps no ClientReregister bit (sim_mad.c do_portinfo
		 * takes a Set field by field). OpenSM sets it when the port's
		 * SM LID is not its own and when a port comes up to it
		 * (osm_lid_mgr.c lid_mgr_set_physp_pi), on ports that advertise
		 * IsClientReregistrationSupported, as HCAs do: so a new SM LID,
		 * or the port up with an SM, is taken for it, unless the node
		 * says its SM sets none (ksysfs.no_rereg). */
		c.rereg = !s->no_rereg && active && wire_get16(pi + KSYSFS_PI_OFF_SM_LID) &&
			  (c.sm_lid || c.up);
	}
	memcpy(s->pi, pi, 64);
	memcpy(s->pk, pk, 64);
	s->have = 1;
	ret = put_port(s, pi, pk);
	for (i = 0; i < s->nnd && !ret; i++)
		ret = put_netdev(s, &s->nd[i], active);
	if (ret) {
		s->have = 0; /* written again, whole, next time */
		return ret;
	}
	return kdriver_events(s->driver, &c, ev);
}
