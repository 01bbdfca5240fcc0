/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_umad's synchronous answers to read() and write() (shim_mad.h). */
#include <errno.h>
#include <string.h>

#include "core/mad.h"
#include "shim_mad.h"

/* IB_MGMT_RMPP_HDR: ib_umad_write reads this much of every MAD. */
#define SHIM_MAD_MIN_MAD RMPP_HDR_END

ssize_t shim_mad_read_verdict(size_t plen, uint32_t status, size_t count)
{
	size_t len = plen > SHIM_MAD_UMAD_HDR ? plen - SHIM_MAD_UMAD_HDR : 0;

	/* ib_umad_read: before anything else. */
	if (count < SHIM_MAD_UMAD_HDR)
		return -EINVAL;
	/* A send that came back (status set: timed out) is copy_send_mad's:
	 * all or nothing. */
	if (status || len <= MAD_SIZE)
		return count < plen ? -EINVAL : (ssize_t)plen;
	/* copy_recv_mad: the first segment must fit; the rest of an RMPP
	 * message may not, then -ENOSPC tells the reader its length. */
	if (count < SHIM_MAD_UMAD_HDR + MAD_SIZE)
		return -EINVAL;
	return count < plen ? -ENOSPC : (ssize_t)plen;
}

/* ib_is_mad_class_rmpp (mad.c): the classes the kernel does RMPP for. */
static int shim_mad_class_rmpp(uint8_t mgmt_class)
{
	return mgmt_class == 0x03 || mgmt_class == 0x06 || mgmt_class == 0x10 ||
	       mgmt_class == 0x12 || (mgmt_class >= 0x30 && mgmt_class <= 0x4f);
}

int shim_mad_write_check(const uint8_t *buf, size_t count, const struct shim_mad_agent *agents)
{
	const uint8_t *mad = buf + SHIM_MAD_UMAD_HDR;
	uint32_t id;
	int rmpp_active;

	if (count < SHIM_MAD_UMAD_HDR + SHIM_MAD_MIN_MAD)
		return -EINVAL;
	memcpy(&id, buf, sizeof(id)); /* ib_user_mad.agent_id, host order */
	if (id >= SHIM_MAD_MAX_AGENTS || !agents[id].used)
		return -EINVAL;
	/* ib_umad_write: RMPP is the kernel's only for an RMPP class on an
	 * agent registered with rmpp_version and a MAD that says Active;
	 * ib_create_send_mad refuses anything else longer than one MAD. */
	rmpp_active = shim_mad_class_rmpp(mad[MAD_OFF_MGMT_CLASS]) && agents[id].rmpp_version &&
		      (mad[RMPP_OFF_FLAGS] & RMPP_FLAG_ACTIVE);
	if (!rmpp_active && count - SHIM_MAD_UMAD_HDR > MAD_SIZE)
		return -EINVAL;
	return 0;
}
