/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The CM message codec of the simulated kernel's ib_cm (cmwire.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cmwire.h"

/* One field of a CM message: where it sits in the struct and on the wire.
 * Bit offsets count from the most significant bit of the first byte, as
 * the IBTA tables do; width 0 marks a byte array of len bytes. */
struct cmwire_field {
	size_t off;      /* in the struct */
	size_t len;      /* struct member size, or array length */
	unsigned byte;   /* on the wire, from the end of the MAD header */
	unsigned bit;
	unsigned width;
};

#define U(type, m, b, bo, w) { offsetof(type, m), sizeof(((type *)0)->m), b, bo, w }
#define A(type, m, b) { offsetof(type, m), sizeof(((type *)0)->m), b, 0, 0 }

static uint64_t get_bits(const uint8_t *d, unsigned byte, unsigned bit, unsigned width)
{
	unsigned n = (bit + width + 7) / 8, i;
	uint64_t v = 0;

	for (i = 0; i < n; i++)
		v = v << 8 | d[byte + i];
	v >>= n * 8 - bit - width;
	return width == 64 ? v : v & ((1ull << width) - 1);
}

static void put_bits(uint8_t *d, unsigned byte, unsigned bit, unsigned width, uint64_t val)
{
	unsigned n = (bit + width + 7) / 8, i, shift = n * 8 - bit - width;
	uint64_t mask = (width == 64 ? ~0ull : (1ull << width) - 1) << shift, v = 0;

	for (i = 0; i < n; i++)
		v = v << 8 | d[byte + i];
	v = (v & ~mask) | ((val << shift) & mask);
	for (i = n; i-- > 0; v >>= 8)
		d[byte + i] = (uint8_t)v;
}

static uint64_t load(const void *s, const struct cmwire_field *f)
{
	const uint8_t *p = (const uint8_t *)s + f->off;

	switch (f->len) {
	case 1: return *p;
	case 2: return *(const uint16_t *)p;
	case 4: return *(const uint32_t *)p;
	default: return *(const uint64_t *)p;
	}
}

static void store(void *s, const struct cmwire_field *f, uint64_t v)
{
	uint8_t *p = (uint8_t *)s + f->off;

	switch (f->len) {
	case 1: *p = (uint8_t)v; break;
	case 2: *(uint16_t *)p = (uint16_t)v; break;
	case 4: *(uint32_t *)p = (uint32_t)v; break;
	default: *(uint64_t *)p = v; break;
	}
}

static void encode(uint8_t *data, const void *s, const struct cmwire_field *f, size_t n)
{
	size_t i;

	memset(data, 0, CMWIRE_DATA_SIZE);
	for (i = 0; i < n; i++) {
		if (f[i].width)
			put_bits(data, f[i].byte, f[i].bit, f[i].width, load(s, &f[i]));
		else
			memcpy(data + f[i].byte, (const uint8_t *)s + f[i].off, f[i].len);
	}
}

static int decode(const uint8_t *data, size_t len, void *s, size_t size,
		  const struct cmwire_field *f, size_t n)
{
	size_t i;

	if (len < CMWIRE_DATA_SIZE)
		return -EMSGSIZE;
	memset(s, 0, size);
	for (i = 0; i < n; i++) {
		if (f[i].width)
			store(s, &f[i], get_bits(data, f[i].byte, f[i].bit, f[i].width));
		else
			memcpy((uint8_t *)s + f[i].off, data + f[i].byte, f[i].len);
	}
	return 0;
}

#define P(m, base) \
	U(struct cmwire_req, m.local_lid, base, 0, 16), \
	U(struct cmwire_req, m.remote_lid, base + 2, 0, 16), \
	A(struct cmwire_req, m.local_gid, base + 4), \
	A(struct cmwire_req, m.remote_gid, base + 20), \
	U(struct cmwire_req, m.flow_label, base + 36, 0, 20), \
	U(struct cmwire_req, m.packet_rate, base + 39, 2, 6), \
	U(struct cmwire_req, m.traffic_class, base + 40, 0, 8), \
	U(struct cmwire_req, m.hop_limit, base + 41, 0, 8), \
	U(struct cmwire_req, m.sl, base + 42, 0, 4), \
	U(struct cmwire_req, m.subnet_local, base + 42, 4, 1), \
	U(struct cmwire_req, m.local_ack_timeout, base + 43, 0, 5)

/* Table 106 REQ. */
static const struct cmwire_field req_fields[] = {
	U(struct cmwire_req, local_comm_id, 0, 0, 32),
	U(struct cmwire_req, service_id, 8, 0, 64),
	U(struct cmwire_req, local_ca_guid, 16, 0, 64),
	U(struct cmwire_req, local_qkey, 28, 0, 32),
	U(struct cmwire_req, local_qpn, 32, 0, 24),
	U(struct cmwire_req, responder_resources, 35, 0, 8),
	U(struct cmwire_req, local_eecn, 36, 0, 24),
	U(struct cmwire_req, initiator_depth, 39, 0, 8),
	U(struct cmwire_req, remote_eecn, 40, 0, 24),
	U(struct cmwire_req, remote_cm_response_timeout, 43, 0, 5),
	U(struct cmwire_req, transport_service_type, 43, 5, 2),
	U(struct cmwire_req, e2e_flow_control, 43, 7, 1),
	U(struct cmwire_req, starting_psn, 44, 0, 24),
	U(struct cmwire_req, local_cm_response_timeout, 47, 0, 5),
	U(struct cmwire_req, retry_count, 47, 5, 3),
	U(struct cmwire_req, pkey, 48, 0, 16),
	U(struct cmwire_req, path_mtu, 50, 0, 4),
	U(struct cmwire_req, rdc_exists, 50, 4, 1),
	U(struct cmwire_req, rnr_retry_count, 50, 5, 3),
	U(struct cmwire_req, max_cm_retries, 51, 0, 4),
	U(struct cmwire_req, srq, 51, 4, 1),
	U(struct cmwire_req, ext_transport_type, 51, 5, 3),
	P(primary, 52),
	P(alternate, 96),
	U(struct cmwire_req, sap_supported, 139, 5, 1),
	A(struct cmwire_req, private_data, 140),
};

/* Table 107 MRA. */
static const struct cmwire_field mra_fields[] = {
	U(struct cmwire_mra, local_comm_id, 0, 0, 32),
	U(struct cmwire_mra, remote_comm_id, 4, 0, 32),
	U(struct cmwire_mra, message_mraed, 8, 0, 2),
	U(struct cmwire_mra, service_timeout, 9, 0, 5),
	A(struct cmwire_mra, private_data, 10),
};

/* Table 108 REJ. */
static const struct cmwire_field rej_fields[] = {
	U(struct cmwire_rej, local_comm_id, 0, 0, 32),
	U(struct cmwire_rej, remote_comm_id, 4, 0, 32),
	U(struct cmwire_rej, message_rejected, 8, 0, 2),
	U(struct cmwire_rej, ari_length, 9, 0, 7),
	U(struct cmwire_rej, reason, 10, 0, 16),
	A(struct cmwire_rej, ari, 12),
	A(struct cmwire_rej, private_data, 84),
};

/* Table 110 REP. */
static const struct cmwire_field rep_fields[] = {
	U(struct cmwire_rep, local_comm_id, 0, 0, 32),
	U(struct cmwire_rep, remote_comm_id, 4, 0, 32),
	U(struct cmwire_rep, local_qkey, 8, 0, 32),
	U(struct cmwire_rep, local_qpn, 12, 0, 24),
	U(struct cmwire_rep, local_eecn, 16, 0, 24),
	U(struct cmwire_rep, starting_psn, 20, 0, 24),
	U(struct cmwire_rep, responder_resources, 24, 0, 8),
	U(struct cmwire_rep, initiator_depth, 25, 0, 8),
	U(struct cmwire_rep, target_ack_delay, 26, 0, 5),
	U(struct cmwire_rep, failover_accepted, 26, 5, 2),
	U(struct cmwire_rep, e2e_flow_control, 26, 7, 1),
	U(struct cmwire_rep, rnr_retry_count, 27, 0, 3),
	U(struct cmwire_rep, srq, 27, 3, 1),
	U(struct cmwire_rep, local_ca_guid, 28, 0, 64),
	A(struct cmwire_rep, private_data, 36),
};

/* Tables 111-113 RTU, DREQ, DREP. */
static const struct cmwire_field rtu_fields[] = {
	U(struct cmwire_rtu, local_comm_id, 0, 0, 32),
	U(struct cmwire_rtu, remote_comm_id, 4, 0, 32),
	A(struct cmwire_rtu, private_data, 8),
};

static const struct cmwire_field dreq_fields[] = {
	U(struct cmwire_dreq, local_comm_id, 0, 0, 32),
	U(struct cmwire_dreq, remote_comm_id, 4, 0, 32),
	U(struct cmwire_dreq, remote_qpn_eecn, 8, 0, 24),
	A(struct cmwire_dreq, private_data, 12),
};

static const struct cmwire_field drep_fields[] = {
	U(struct cmwire_drep, local_comm_id, 0, 0, 32),
	U(struct cmwire_drep, remote_comm_id, 4, 0, 32),
	A(struct cmwire_drep, private_data, 8),
};

_Static_assert(140 + CMWIRE_REQ_PDATA == CMWIRE_DATA_SIZE, "REQ fills the MAD");
_Static_assert(10 + CMWIRE_MRA_PDATA == CMWIRE_DATA_SIZE, "MRA fills the MAD");
_Static_assert(84 + CMWIRE_REJ_PDATA == CMWIRE_DATA_SIZE, "REJ fills the MAD");
_Static_assert(36 + CMWIRE_REP_PDATA == CMWIRE_DATA_SIZE, "REP fills the MAD");
_Static_assert(8 + CMWIRE_RTU_PDATA == CMWIRE_DATA_SIZE, "RTU fills the MAD");
_Static_assert(12 + CMWIRE_DREQ_PDATA == CMWIRE_DATA_SIZE, "DREQ fills the MAD");

#define N(t) (sizeof(t) / sizeof(t[0]))
#define CODEC(name, type, table) \
	void cmwire_##name##_encode(uint8_t *data, const type *m) \
	{ \
		encode(data, m, table, N(table)); \
	} \
	int cmwire_##name##_decode(const uint8_t *data, size_t len, type *m) \
	{ \
		return decode(data, len, m, sizeof(*m), table, N(table)); \
	}

CODEC(req, struct cmwire_req, req_fields)
CODEC(mra, struct cmwire_mra, mra_fields)
CODEC(rej, struct cmwire_rej, rej_fields)
CODEC(rep, struct cmwire_rep, rep_fields)
CODEC(rtu, struct cmwire_rtu, rtu_fields)
CODEC(dreq, struct cmwire_dreq, dreq_fields)
CODEC(drep, struct cmwire_drep, drep_fields)
