/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/sa_client.h"
#include "core/wire.h"
#include "host/ats_query.h"
#include "rcm_peer.h"

int rcm_peer_decide(const struct rcm_conf *conf, const uint8_t *our_gid, const uint8_t *gid,
		    uint16_t lid, int owner_ret, uint64_t owner, struct rcm_peer *peer,
		    char *why, size_t len)
{
	uint64_t claimed = wire_get64(gid + 8);

	memset(peer, 0, sizeof(*peer));
	peer->off_subnet = memcmp(gid, our_gid, 8) != 0;
	if (peer->off_subnet && conf->policy == RCM_CONF_ACCEPT_AGREE) {
		snprintf(why, len, "ibats: the requester's GID is off this subnet: "
			 "its claim cannot be verified");
		return -EACCES;
	}
	if (owner_ret == -ENOENT) {
		snprintf(why, len, "ibats: no port holds the requester's LID 0x%04x", lid);
		return -EACCES;
	}
	if (owner_ret) {
		snprintf(why, len, "ibats: the requester's LID 0x%04x could not be verified (%s)",
			 lid, strerror(-owner_ret));
		return owner_ret;
	}
	if (!peer->off_subnet && owner != claimed) {
		snprintf(why, len, "ibats: spoofed requester: LID 0x%04x is port 0x%016" PRIx64
			 ", not the claimed GID's 0x%016" PRIx64, lid, owner, claimed);
		return -EACCES;
	}
	peer->port_guid = owner;
	return 0;
}

int rcm_peer_verify(struct sa_client *sa, const struct rcm_conf *conf, const uint8_t *gid,
		    uint16_t lid, struct rcm_peer *peer, char *why, size_t len)
{
	uint64_t owner = 0;
	int ret = -ENOENT;

	/* Unicast LIDs only: 0, the multicast range and the permissive LID
	 * name no port (IBTA Vol 1 4.1.3). */
	if (lid && lid < 0xc000)
		ret = sa_client_port_guid(sa, lid, &owner);
	return rcm_peer_decide(conf, sa_client_port(sa)->gid, gid, lid, ret, owner, peer, why,
			       len);
}

int rcm_peer_judge(const struct rcm_conf *conf, const struct ats_ip *src,
		   const struct ats_ip *primary, char *why, size_t len)
{
	char s[ATS_IP_STRLEN], p[ATS_IP_STRLEN];
	size_t i;

	ats_ip_format(src, s, sizeof(s));
	switch (conf->policy) {
	case RCM_CONF_ACCEPT_ANY:
		return 0;
	case RCM_CONF_ACCEPT_LIST:
		for (i = 0; i < conf->naccept; i++)
			if (ats_ip_equal(&conf->accept[i], src))
				return 0;
		snprintf(why, len, "ibats: source IP %s is not on the accept list", s);
		return -EACCES;
	case RCM_CONF_ACCEPT_AGREE:
		break;
	}
	if (!primary) {
		snprintf(why, len, "ibats: the requester's GID has no ATS primary IP");
		return -EACCES;
	}
	if (!ats_ip_equal(primary, src)) {
		ats_ip_format(primary, p, sizeof(p));
		snprintf(why, len, "ibats: spoofed source: IP %s is not the requester's ATS primary %s",
			 s, p);
		return -EACCES;
	}
	return 0;
}

int rcm_peer_check(struct sa_client *sa, const struct rcm_conf *conf, const uint8_t *gid,
		   uint16_t pkey, const struct ats_ip *src, char *why, size_t len)
{
	struct sr_record rec;
	struct ats_ip ip;
	int ret;

	if (conf->policy != RCM_CONF_ACCEPT_AGREE)
		return rcm_peer_judge(conf, src, NULL, why, len);
	ret = ats_query_primary(sa, gid, pkey | 0x8000, &rec);
	if (ret && ret != -ENOENT) {
		snprintf(why, len, "ibats: ATS lookup of the requester failed (%s)",
			 strerror(-ret));
		return ret;
	}
	if (!ret && ats_ip_decode(rec.data8, &ip, NULL))
		ret = -ENOENT;
	return rcm_peer_judge(conf, src, ret ? NULL : &ip, why, len);
}

int rcm_peer_admit(size_t established, unsigned of_peer, char *why, size_t len)
{
	if (of_peer >= RCM_PEER_MAX_PER_PEER) {
		snprintf(why, len, "ibats: too many connections from this requester's port (%d)",
			 RCM_PEER_MAX_PER_PEER);
		return -EDQUOT;
	}
	if (established >= RCM_PEER_MAX_ESTABLISHED) {
		snprintf(why, len, "ibats: too many connections to this listener (%d)",
			 RCM_PEER_MAX_ESTABLISHED);
		return -ENOSPC;
	}
	return 0;
}
