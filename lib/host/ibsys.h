/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* CA ports and IPoIB interfaces as the kernel shows them in sysfs
 * (Documentation/ABI/stable/sysfs-class-infiniband, sysfs-class-net).
 * Every function takes the sysfs root ("/sys" when NULL) so that the
 * unit tests run against fixture trees. */
#ifndef IBATS_IBSYS_H
#define IBATS_IBSYS_H

#include <stddef.h>
#include <stdint.h>

#define IBSYS_NAME_MAX 64

/* PortInfo PortState as sysfs prints it ("4: ACTIVE"), IBTA Vol 1
 * 14.2.5.6 Table 155. */
enum ibsys_state {
	IBSYS_DOWN = 1,
	IBSYS_INIT = 2,
	IBSYS_ARMED = 3,
	IBSYS_ACTIVE = 4,
};

/* The state's name as ibstat prints it (Down, Initializing, Armed,
 * Active); "Unknown" for any other value. */
const char *ibsys_state_name(int state);

struct ibsys_port {
	char ca[IBSYS_NAME_MAX];
	int port;
	int ib;          /* link_layer InfiniBand (or absent: kernels before
			  * 2.6.37 had IB only); 0 for Ethernet (RoCE) */
	int state;       /* enum ibsys_state, 0 when unreadable */
	int link_up;     /* phys_state 5: LinkUp */
	uint16_t lid, sm_lid;
	uint8_t gid[16]; /* gids/0: subnet prefix + port GUID */
};

/* One port of one CA. -ENOENT when it does not exist. */
int ibsys_port_read(const char *root, const char *ca, int port,
		    struct ibsys_port *p);

/* The port to use: ca and port as given (NULL / 0: any), otherwise the
 * first InfiniBand port that is ACTIVE, else the first whose link is up,
 * else the first InfiniBand port, in CA name and port order (libibumad's
 * order, without its RoCE ports). -ENODEV when there is none, and
 * -EPROTONOSUPPORT when the port asked for is RoCE or sysfs shows RoCE
 * ports alone; why names the reason. */
int ibsys_select(const char *root, const char *ca, int port,
		 struct ibsys_port *out, char *why, size_t len);

/* The port whose GID table holds gid. -ENOENT when none. */
int ibsys_find_gid(const char *root, const uint8_t *gid, struct ibsys_port *out);

/* An IPoIB interface: its port's GID (bytes 4..19 of the 20-byte hardware
 * address, RFC 4391 9.1.1) and its P_Key. -ENOENT when the interface does
 * not exist, -EPROTOTYPE when it is no IPoIB interface (type is not
 * ARPHRD_INFINIBAND). */
struct ibsys_netdev {
	uint8_t gid[16];
	uint32_t qpn;
	uint16_t pkey;
};
int ibsys_netdev_read(const char *root, const char *ifname,
		      struct ibsys_netdev *nd);

/* Whether a kernel IPoIB interface of the port with GID gid is in
 * partition pkey (the membership bit ignored): the kernel then holds the
 * port's membership of that partition's broadcast group. Its name goes
 * into name. */
int ibsys_ipoib_on_port(const char *root, const uint8_t *gid, uint16_t pkey,
			char *name, size_t len);

/* The umad device of a CA port ("/dev/infiniband/umadN", named from its
 * class/infiniband_mad entry). -ENOENT when sysfs has none. */
int ibsys_umad_path(const char *root, const char *ca, int port, char *path, size_t len);

/* -EACCES, why "permission denied on /dev/infiniband/umadN", when the
 * caller may not open the umad device of the port ibsys_select picks
 * (ca NULL or "", port 0: any) for reading and writing (distributions
 * make it root's, mode 0600); 0 otherwise. */
int ibsys_umad_denied(const char *ca, int port, char *why, size_t len);

/* Open the port to use (ibsys_select), through libibumad. When sysfs
 * shows no port at all, libibumad's own choice is taken. -EPROTONOSUPPORT
 * (a RoCE port asked for), -EACCES (ibsys_umad_denied) or mport_open's
 * error; why says which. */
struct mport;
int ibsys_open_port(struct mport **out, const char *ca, int port, char *why,
		    size_t len);

#endif
