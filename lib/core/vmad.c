/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmad.h"
#include "wire.h"

_Static_assert(VMAD_OFF_DATA == MAD_RMPP_HDR_END + 4, "OUI word after RMPP");
_Static_assert(VMAD_LIV_OFF_TS_XMIT + 4 <= MAD_SIZE, "timestamps fit");
_Static_assert(VMAD_LIV_OFF_GUID + 8 <= MAD_SIZE, "info fits");
_Static_assert(VMAD_LIV_OFF_GUID + 8 <= VMAD_LIV_OFF_TS_XMIT + 4, "vmad_liv_parse reads up to 60");

uint32_t vmad_get_oui(const uint8_t *mad)
{
	return (uint32_t)mad[VMAD_OFF_OUI] << 16 | (uint32_t)mad[VMAD_OFF_OUI + 1] << 8 |
	       mad[VMAD_OFF_OUI + 2];
}

void vmad_put_oui(uint8_t *mad, uint32_t oui)
{
	mad[VMAD_OFF_RESV] = 0;
	mad[VMAD_OFF_OUI] = (uint8_t)(oui >> 16);
	mad[VMAD_OFF_OUI + 1] = (uint8_t)(oui >> 8);
	mad[VMAD_OFF_OUI + 2] = (uint8_t)oui;
}

void vmad_hdr_encode(uint8_t *mad, uint8_t mgmt_class, uint8_t class_version, uint8_t method,
		     uint64_t tid, uint16_t attr_id, uint32_t attr_mod)
{
	const struct mad_hdr h = {
		.base_version = MAD_BASE_VERSION,
		.mgmt_class = mgmt_class,
		.class_version = class_version,
		.method = method,
		.tid = tid,
		.attr_id = attr_id,
		.attr_mod = attr_mod,
	};

	mad_hdr_encode(mad, &h);
	memset(mad + MAD_RMPP_OFF_VERSION, 0, MAD_RMPP_HDR_END - MAD_RMPP_OFF_VERSION);
	vmad_put_oui(mad, VMAD_OUI_OPENIB);
	memset(mad + VMAD_OFF_DATA, 0, VMAD_DATA_SIZE);
}

int vmad_hdr_check(const uint8_t *mad, size_t len, uint8_t mgmt_class, uint8_t class_version,
		   uint8_t method, struct mad_hdr *h)
{
	if (len < MAD_SIZE || mad_hdr_decode(mad, len, h))
		return -EMSGSIZE;
	if (h->base_version != MAD_BASE_VERSION || h->mgmt_class != mgmt_class ||
	    h->class_version != class_version || h->method != method ||
	    vmad_get_oui(mad) != VMAD_OUI_OPENIB)
		return -EPROTO;
	return 0;
}

void vmad_respond(uint8_t *resp, const uint8_t *req, size_t len, uint16_t status)
{
	memcpy(resp, req, len);
	resp[MAD_OFF_METHOD] = MAD_METHOD_GET | MAD_METHOD_RESP_BIT;
	wire_put16(resp + MAD_OFF_STATUS, status);
	memset(resp + MAD_RMPP_OFF_VERSION, 0, MAD_RMPP_HDR_END - MAD_RMPP_OFF_VERSION);
}

void vmad_host_name(char *buf, size_t len)
{
	size_t n;

	if (gethostname(buf, len) < 0)
		snprintf(buf, len, "?hostname?");
	buf[len - 1] = '\0';
	n = strlen(buf);
	if (n + 2 < len && !getdomainname(buf + n + 1, len - n - 1) &&
	    buf[n + 1] && strcmp(buf + n + 1, "(none)")) {
		buf[n] = '.';
		buf[len - 1] = '\0';
	}
}

uint32_t vmad_liv_timestamp(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts))
		return VMAD_LIV_TS_NONSTANDARD;
	return (uint32_t)((ts.tv_sec % 86400) * 1000 + ts.tv_nsec / 1000000);
}

/* RMPP version 1, DATA, Active: the kernel segments and numbers it. */
static void rmpp_active(uint8_t *mad)
{
	mad[MAD_RMPP_OFF_VERSION] = 1;
	mad[MAD_RMPP_OFF_TYPE] = 1;
	mad[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE;
}

int vmad_liv_build(uint8_t *mad, size_t cap, enum vmad_liv_type type, uint16_t id,
	      uint16_t seq, const uint8_t *data, size_t len, uint32_t now_ts)
{
	size_t total = VMAD_LIV_OFF_DATA + len < MAD_SIZE ? MAD_SIZE : VMAD_LIV_OFF_DATA + len;

	if (type != VMAD_LIV_ECHO_REQ && type != VMAD_LIV_TS_REQ && type != VMAD_LIV_INFO_REQ)
		return -EINVAL;
	if (len > VMAD_LIV_ECHO_RMPP_MAX || total > cap || (len && type != VMAD_LIV_ECHO_REQ))
		return -EMSGSIZE;
	memset(mad + MAD_SIZE, 0, total - MAD_SIZE);
	vmad_hdr_encode(mad, VMAD_CLASS_LIVENESS, VMAD_LIVENESS_VERSION, MAD_METHOD_GET, 0, 0, 0);
	if (total > MAD_SIZE)
		rmpp_active(mad);
	mad[VMAD_LIV_OFF_TYPE] = (uint8_t)type;
	wire_put16(mad + VMAD_LIV_OFF_ID, id);
	wire_put16(mad + VMAD_LIV_OFF_SEQ, seq);
	if (type == VMAD_LIV_ECHO_REQ && len)
		memcpy(mad + VMAD_LIV_OFF_DATA, data, len);
	if (type == VMAD_LIV_TS_REQ)
		wire_put32(mad + VMAD_LIV_OFF_TS_ORIG, now_ts);
	return (int)total;
}

/* A one-MAD answer: no RMPP. */
static size_t respond(const uint8_t *req, uint8_t *resp, uint16_t status)
{
	vmad_respond(resp, req, MAD_SIZE, status);
	return MAD_SIZE;
}

/* An echo that came as an RMPP transfer goes back the same way. */
static size_t respond_rmpp(const uint8_t *req, size_t len, uint8_t *resp)
{
	vmad_respond(resp, req, len, 0);
	rmpp_active(resp);
	resp[VMAD_LIV_OFF_TYPE] = VMAD_LIV_ECHO_RESP;
	return len;
}

size_t vmad_answer(const uint8_t *req, size_t len, const struct vmad_identity *id,
		   uint32_t now_ts, uint8_t *resp, size_t cap)
{
	uint8_t cls;

	if (len < MAD_SIZE || cap < MAD_SIZE || req[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION ||
	    (req[MAD_OFF_METHOD] & MAD_METHOD_RESP_BIT) ||
	    vmad_get_oui(req) != VMAD_OUI_OPENIB)
		return 0;
	cls = req[MAD_OFF_MGMT_CLASS];
	if (cls == VMAD_CLASS_IBPING && id->ibping) {
		/* infiniband-diags' ibping server answers any method with its
		 * host name in the vendor data. */
		respond(req, resp, 0);
		memset(resp + VMAD_OFF_DATA, 0, VMAD_DATA_SIZE);
		memcpy(resp + VMAD_OFF_DATA, id->host, strnlen(id->host, VMAD_DATA_SIZE - 1));
		return MAD_SIZE;
	}
	if (cls != VMAD_CLASS_LIVENESS || !id->liveness)
		return 0;
	if (req[MAD_OFF_CLASS_VERSION] != VMAD_LIVENESS_VERSION)
		return respond(req, resp, VMAD_STATUS_BAD_VERSION);
	if (req[MAD_OFF_METHOD] != MAD_METHOD_GET)
		return respond(req, resp, VMAD_STATUS_BAD_METHOD);
	switch (req[VMAD_LIV_OFF_TYPE]) {
	case VMAD_LIV_ECHO_REQ:
		if (len > MAD_SIZE)
			return len <= cap ? respond_rmpp(req, len, resp) : 0;
		respond(req, resp, 0);
		break;
	case VMAD_LIV_TS_REQ:
		respond(req, resp, 0);
		wire_put32(resp + VMAD_LIV_OFF_TS_RECV, now_ts);
		wire_put32(resp + VMAD_LIV_OFF_TS_XMIT, now_ts);
		break;
	case VMAD_LIV_INFO_REQ:
		respond(req, resp, 0);
		memset(resp + VMAD_LIV_OFF_DATA, 0, MAD_SIZE - VMAD_LIV_OFF_DATA);
		wire_put16(resp + VMAD_LIV_OFF_LID, id->lid);
		wire_put64(resp + VMAD_LIV_OFF_GUID, id->port_guid);
		break;
	default:
		/* Unknown (or a response type sent as a request): say so. */
		return respond(req, resp, VMAD_STATUS_BAD_ATTR);
	}
	resp[VMAD_LIV_OFF_TYPE] = (uint8_t)(req[VMAD_LIV_OFF_TYPE] + 1);
	return MAD_SIZE;
}

int vmad_liv_parse(const uint8_t *mad, size_t len, struct vmad_liv_reply *r)
{
	struct mad_hdr h;

	memset(r, 0, sizeof(*r));
	if (mad_hdr_decode(mad, len, &h) || len < VMAD_LIV_OFF_TS_XMIT + 4)
		return -EMSGSIZE;
	if (h.mgmt_class != VMAD_CLASS_LIVENESS || vmad_get_oui(mad) != VMAD_OUI_OPENIB)
		return -EPROTO;
	r->status = h.status;
	r->type = mad[VMAD_LIV_OFF_TYPE];
	r->id = wire_get16(mad + VMAD_LIV_OFF_ID);
	r->seq = wire_get16(mad + VMAD_LIV_OFF_SEQ);
	r->ts_orig = wire_get32(mad + VMAD_LIV_OFF_TS_ORIG);
	r->ts_recv = wire_get32(mad + VMAD_LIV_OFF_TS_RECV);
	r->ts_xmit = wire_get32(mad + VMAD_LIV_OFF_TS_XMIT);
	r->lid = wire_get16(mad + VMAD_LIV_OFF_LID);
	r->port_guid = wire_get64(mad + VMAD_LIV_OFF_GUID);
	return 0;
}

int vmad_liv_check(const uint8_t *resp, size_t len, enum vmad_liv_type type, uint16_t seq,
	      const uint8_t *data, size_t size, struct vmad_liv_reply *r)
{
	if (vmad_liv_parse(resp, len, r) || r->status || r->type != type + 1 || r->seq != seq)
		return -EPROTO;
	if (type == VMAD_LIV_ECHO_REQ &&
	    (len < VMAD_LIV_OFF_DATA + size || memcmp(resp + VMAD_LIV_OFF_DATA, data, size)))
		return -EBADMSG;
	return 0;
}
