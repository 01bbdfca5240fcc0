/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* ib_umad's synchronous answers to read() and write() (shim_mad.h). */
#include <errno.h>
#include <string.h>

#include "core/mad.h"
#include "shim_mad.h"

/* IB_MGMT_RMPP_HDR: ib_umad_write reads this much of every MAD. */
#define SHIM_MAD_MIN_MAD MAD_RMPP_HDR_END

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
		      (mad[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE);
	if (!rmpp_active && count - SHIM_MAD_UMAD_HDR > MAD_SIZE)
		return -EINVAL;
	return 0;
}

/* ib_response_mad (mad.c): the response bit, TrapRepress, or a BM MAD
 * with the response bit of its AttributeModifier. */
static int shim_mad_is_response(const uint8_t *mad)
{
	return (mad[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) || mad[MAD_OFF_METHOD] == 0x07 ||
	       (mad[MAD_OFF_MGMT_CLASS] == 0x05 && (mad[MAD_OFF_ATTR_MOD] & 0x80));
}

static int shim_mad_sent_find(const struct shim_mad_sent *s, uint32_t agent, uint32_t tid,
			      uint8_t mgmt_class)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (s->e[i].agent == agent && s->e[i].tid == tid && s->e[i].mgmt_class == mgmt_class)
			return (int)i;
	return -1;
}

static uint32_t shim_mad_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v)); /* the umad header is in host order */
	return v;
}

/* The low 32 bits of the TID: the kernel owns the upper half (hi_tid). */
static uint32_t shim_mad_tid(const uint8_t *mad)
{
	return (uint32_t)mad[MAD_OFF_TID + 4] << 24 | (uint32_t)mad[MAD_OFF_TID + 5] << 16 |
	       (uint32_t)mad[MAD_OFF_TID + 6] << 8 | mad[MAD_OFF_TID + 7];
}

/* struct ib_user_mad: agent_id, status, timeout_ms, retries. */
#define SHIM_MAD_OFF_STATUS 4
#define SHIM_MAD_OFF_TIMEOUT 8
#define SHIM_MAD_OFF_RETRIES 12
/* Beyond the kernel's own timeouts, what its work queue may lag. */
#define SHIM_MAD_SENT_SLACK_MS 10000

int shim_mad_sent_ask(const struct shim_mad_sent *s, const uint8_t *buf, size_t count,
		      const struct shim_mad_agent *agents, int64_t now)
{
	const uint8_t *mad = buf + SHIM_MAD_UMAD_HDR;
	uint32_t id = shim_mad_u32(buf);
	int rmpp_active;

	if (count < SHIM_MAD_UMAD_HDR + SHIM_MAD_MIN_MAD || id >= SHIM_MAD_MAX_AGENTS)
		return 0;
	rmpp_active = shim_mad_class_rmpp(mad[MAD_OFF_MGMT_CLASS]) &&
		      (mad[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE);
	if (shim_mad_is_response(mad))
		return rmpp_active && agents[id].rmpp_version;
	/* ib_umad_write: no check for an agent doing its own RMPP (the
	 * shim's agents all leave RMPP to the kernel: libibumad asks for
	 * user RMPP only through umad_register2's flags). */
	return now < s->blind_until ||
	       shim_mad_sent_find(s, id, shim_mad_tid(mad), mad[MAD_OFF_MGMT_CLASS]) >= 0;
}

void shim_mad_sent_add(struct shim_mad_sent *s, const uint8_t *buf, size_t count, int64_t now)
{
	const uint8_t *mad = buf + SHIM_MAD_UMAD_HDR;
	uint32_t timeout, retries, i;
	int64_t until;

	if (count < SHIM_MAD_UMAD_HDR + SHIM_MAD_MIN_MAD || shim_mad_is_response(mad))
		return;
	timeout = shim_mad_u32(buf + SHIM_MAD_OFF_TIMEOUT);
	retries = shim_mad_u32(buf + SHIM_MAD_OFF_RETRIES);
	if (!timeout)
		return;
	until = now + (int64_t)timeout * ((int64_t)(retries > 100 ? 100 : retries) + 1) +
		SHIM_MAD_SENT_SLACK_MS;
	if (s->n == SHIM_MAD_SENT_MAX) {
		/* Room from entries the kernel is surely done with. */
		for (i = 0; i < s->n;)
			if (s->e[i].until <= now)
				s->e[i] = s->e[--s->n];
			else
				i++;
	}
	if (s->n == SHIM_MAD_SENT_MAX) {
		if (until > s->blind_until)
			s->blind_until = until;
		return;
	}
	s->e[s->n].agent = (uint8_t)shim_mad_u32(buf);
	s->e[s->n].tid = shim_mad_tid(mad);
	s->e[s->n].mgmt_class = mad[MAD_OFF_MGMT_CLASS];
	s->e[s->n].until = until;
	s->n++;
}

static void shim_mad_sent_drop(struct shim_mad_sent *s, const uint8_t *buf)
{
	const uint8_t *mad = buf + SHIM_MAD_UMAD_HDR;
	int i = shim_mad_sent_find(s, shim_mad_u32(buf), shim_mad_tid(mad), mad[MAD_OFF_MGMT_CLASS]);

	if (i >= 0)
		s->e[i] = s->e[--s->n];
}

void shim_mad_sent_forget(struct shim_mad_sent *s, const uint8_t *buf, size_t count)
{
	if (count >= SHIM_MAD_UMAD_HDR + MAD_HDR_SIZE && !shim_mad_is_response(buf + SHIM_MAD_UMAD_HDR))
		shim_mad_sent_drop(s, buf);
}

void shim_mad_sent_read(struct shim_mad_sent *s, const uint8_t *buf, size_t len)
{
	const uint8_t *mad = buf + SHIM_MAD_UMAD_HDR;

	if (len < SHIM_MAD_UMAD_HDR + MAD_HDR_SIZE)
		return;
	/* user_mad.c: a response the kernel matched (recv_handler), or the
	 * send back with ETIMEDOUT (send_handler): either way the send
	 * left the file's send list. */
	if (shim_mad_u32(buf + SHIM_MAD_OFF_STATUS) || shim_mad_is_response(mad))
		shim_mad_sent_drop(s, buf);
}

void shim_mad_sent_agent_gone(struct shim_mad_sent *s, uint32_t agent)
{
	uint32_t i;

	for (i = 0; i < s->n;)
		if (s->e[i].agent == agent)
			s->e[i] = s->e[--s->n];
		else
			i++;
}
