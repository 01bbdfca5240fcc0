/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
#include <errno.h>
#include <string.h>

#include "sa.h"
#include "wire.h"

_Static_assert((int)SA_OFF_SM_KEY == (int)MAD_RMPP_HDR_END, "SA header follows RMPP header");
_Static_assert(SA_OFF_DATA == SA_OFF_COMP_MASK + 8, "SA data after mask");
_Static_assert(SA_DATA_SIZE == 200, "SA MAD carries 200 bytes of data");

void sa_hdr_encode(uint8_t *mad, const struct sa_hdr *h)
{
	mad_hdr_encode(mad, &h->mad);
	mad[MAD_RMPP_OFF_VERSION] = h->rmpp_version;
	mad[MAD_RMPP_OFF_TYPE] = h->rmpp_type;
	mad[MAD_RMPP_OFF_FLAGS] = h->rmpp_flags & 0x7;
	mad[MAD_RMPP_OFF_STATUS] = h->rmpp_status;
	wire_put32(mad + MAD_RMPP_OFF_DATA1, h->rmpp_data1);
	wire_put32(mad + MAD_RMPP_OFF_DATA2, h->rmpp_data2);
	wire_put64(mad + SA_OFF_SM_KEY, h->sm_key);
	wire_put16(mad + SA_OFF_ATTR_OFFSET, h->attr_offset);
	memset(mad + SA_OFF_RESERVED, 0, 2);
	wire_put64(mad + SA_OFF_COMP_MASK, h->comp_mask);
}

int sa_hdr_decode(const uint8_t *mad, size_t len, struct sa_hdr *h)
{
	int ret = mad_hdr_decode(mad, len, &h->mad);

	if (ret)
		return ret;
	if (len < SA_OFF_DATA)
		return -EMSGSIZE;
	h->rmpp_version = mad[MAD_RMPP_OFF_VERSION];
	h->rmpp_type = mad[MAD_RMPP_OFF_TYPE];
	h->rmpp_flags = mad[MAD_RMPP_OFF_FLAGS] & 0x7;
	h->rmpp_status = mad[MAD_RMPP_OFF_STATUS];
	h->rmpp_data1 = wire_get32(mad + MAD_RMPP_OFF_DATA1);
	h->rmpp_data2 = wire_get32(mad + MAD_RMPP_OFF_DATA2);
	h->sm_key = wire_get64(mad + SA_OFF_SM_KEY);
	h->attr_offset = wire_get16(mad + SA_OFF_ATTR_OFFSET);
	h->comp_mask = wire_get64(mad + SA_OFF_COMP_MASK);
	return 0;
}

int sa_status_to_errno(uint16_t mad_status)
{
	static const int class_errno[] = {
		[SA_STATUS_SUCCESS] = 0,
		[SA_STATUS_NO_RESOURCES] = -ENOBUFS,
		[SA_STATUS_REQ_INVALID] = -EINVAL,
		[SA_STATUS_NO_RECORDS] = -ENOENT,
		[SA_STATUS_TOO_MANY_RECORDS] = -E2BIG,
		[SA_STATUS_INVALID_GID] = -EADDRNOTAVAIL,
		[SA_STATUS_INSUF_COMPS] = -EDOM,
		[SA_STATUS_REQ_DENIED] = -EACCES,
	};
	unsigned cls = MAD_STATUS_CLASS(mad_status);

	if (cls)
		return cls < sizeof(class_errno) / sizeof(class_errno[0]) ?
			class_errno[cls] : -EPROTO;
	if (MAD_STATUS_CODE(mad_status))
		return -EOPNOTSUPP;
	if (mad_status & MAD_STATUS_BUSY)
		return -EBUSY;
	/* Not followed: its data is where to ask, no record. */
	if (mad_status & MAD_STATUS_REDIRECT)
		return -EREMOTE;
	return 0;
}

const char *sa_status_str(uint16_t mad_status)
{
	static const char *const cls_str[] = {
		[SA_STATUS_SUCCESS] = "success",
		[SA_STATUS_NO_RESOURCES] = "SA out of resources (ERR_NO_RESOURCES)",
		[SA_STATUS_REQ_INVALID] = "request rejected as invalid (ERR_REQ_INVALID)",
		[SA_STATUS_NO_RECORDS] = "no matching record (ERR_NO_RECORDS)",
		[SA_STATUS_TOO_MANY_RECORDS] = "more than one record matches (ERR_TOO_MANY_RECORDS)",
		[SA_STATUS_INVALID_GID] = "invalid GID (ERR_REQ_INVALID_GID)",
		[SA_STATUS_INSUF_COMPS] = "insufficient components (ERR_REQ_INSUFFICIENT_COMPONENTS)",
		[SA_STATUS_REQ_DENIED] = "request denied (ERR_REQ_DENIED)",
	};
	unsigned cls = MAD_STATUS_CLASS(mad_status);

	if (cls)
		return cls < sizeof(cls_str) / sizeof(cls_str[0]) ?
			cls_str[cls] : "unknown SA status";
	if (MAD_STATUS_CODE(mad_status))
		return mad_status_str(mad_status);
	if (mad_status & MAD_STATUS_BUSY)
		return "SA busy";
	if (mad_status & MAD_STATUS_REDIRECT)
		return "SA redirects elsewhere (not followed)";
	return "success";
}

int sa_table_shape(const struct sa_hdr *h, size_t payload_len,
		   size_t min_rec_size, struct sa_table_shape *shape)
{
	size_t rec_size = (size_t)h->attr_offset * 8;

	memset(shape, 0, sizeof(*shape));
	/* One whole segment (Active, First, Last) that did not get RMPP
	 * reassembly keeps its padding, which the kernel trims from what it
	 * reassembles (mad_rmpp.c get_mad_len): its PayloadLength (13.6.2.3),
	 * the SA header included, says where the data ends. */
	if (h->rmpp_version && h->rmpp_type == MAD_RMPP_TYPE_DATA &&
	    (h->rmpp_flags & MAD_RMPP_FLAGS_MASK) ==
		    (MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST | MAD_RMPP_FLAG_LAST) &&
	    h->rmpp_data2 >= SA_OFF_DATA - MAD_RMPP_HDR_END &&
	    h->rmpp_data2 - (SA_OFF_DATA - MAD_RMPP_HDR_END) < payload_len)
		payload_len = h->rmpp_data2 - (SA_OFF_DATA - MAD_RMPP_HDR_END);
	if (payload_len == 0)
		return 0;
	if (rec_size < min_rec_size)
		return -EPROTO;
	shape->rec_size = rec_size;
	shape->nrec = payload_len / rec_size;
	/* The kernel trims RMPP padding from a reassembled table (ib_mad_rmpp
	 * get_mad_len), so a complete answer is a whole number of records.
	 * A table that did not get RMPP reassembly (an agent registered
	 * without RMPP, a broken RMPP path) arrives as its first 200-byte
	 * segment: whole records followed by part of one. */
	if (payload_len % rec_size)
		shape->truncated = 1;
	/* A reassembled message keeps its first segment's header (13.6.2.1
	 * Table 168: Active and First, Last only when it was the one
	 * segment); one segment's worth of data under a header that says
	 * more follow is a first segment that reached us alone. */
	if ((h->rmpp_flags & MAD_RMPP_FLAGS_MASK) == (MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST) &&
	    payload_len <= SA_DATA_SIZE)
		shape->truncated = 1;
	/* An SA without RMPP (OpenSM built without VENDOR_RMPP_SUPPORT,
	 * osm_sa_respond) keeps the records one MAD holds and calls that the
	 * only segment, Active, First and Last, under the request's RMPP
	 * version 0: so many records may be the first of more. */
	if (!h->rmpp_version &&
	    (h->rmpp_flags & MAD_RMPP_FLAGS_MASK) == (MAD_RMPP_FLAG_ACTIVE | MAD_RMPP_FLAG_FIRST | MAD_RMPP_FLAG_LAST) &&
	    shape->nrec == SA_DATA_SIZE / rec_size)
		shape->truncated = 1;
	return 0;
}
