/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Messages for the RMPP tests (test_rmpp, test_rmpp_tx): a SA
 * GetTableResp of ServiceRecords and the segments and ACKs of it. */
#ifndef IBATS_TEST_RMPP_MSG_H
#define IBATS_TEST_RMPP_MSG_H

#include <stdlib.h>

#include "core/mad.h"
#include "simhost/kernel/rmpp.h"
#include "core/sa.h"
#include "core/wire.h"

#define TID 0x0102030405060708ull
#define TID_BYTES 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08
#define REC 176 /* a ServiceRecord */

static inline void cfg_of(struct rmpp_cfg *c, uint32_t window)
{
	rmpp_cfg_default(c);
	c->window = window;
	c->ack_ms = 100;
	c->retries = 5;
	c->total_ms = 1000000;
	c->linger_ms = 1000;
	c->max_len = 1u << 20;
}

/* A GetTableResp of n ServiceRecords: SA header, then the records, each
 * byte a function of its position. */
static inline uint8_t *sa_table(size_t n, size_t *len)
{
	uint8_t *m;
	size_t i;

	*len = SA_OFF_DATA + n * REC;
	m = calloc(1, *len);
	assert_non_null(m);
	m[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	m[MAD_OFF_MGMT_CLASS] = SA_CLASS;
	m[MAD_OFF_CLASS_VERSION] = SA_CLASS_VERSION;
	m[MAD_OFF_METHOD] = SA_METHOD_GET_TABLE_RESP;
	wire_put64(m + MAD_OFF_TID, TID);
	wire_put16(m + MAD_OFF_ATTR_ID, SA_ATTR_SERVICE_RECORD);
	m[MAD_RMPP_OFF_VERSION] = MAD_RMPP_VERSION;
	m[MAD_RMPP_OFF_TYPE] = MAD_RMPP_TYPE_DATA;
	m[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE;
	wire_put64(m + SA_OFF_SM_KEY, 0xa1a2a3a4a5a6a7a8ull);
	wire_put16(m + SA_OFF_ATTR_OFFSET, REC / 8);
	wire_put64(m + SA_OFF_COMP_MASK, 0x0b0c);
	for (i = SA_OFF_DATA; i < *len; i++)
		m[i] = (uint8_t)(i * 7 + i / 251);
	return m;
}

/* The ACK a receiver would send for segment n with window newwin. */
static inline void ack_of(const uint8_t *seg, uint32_t n, uint32_t newwin, uint8_t out[MAD_SIZE])
{
	rmpp_reply(seg, SA_OFF_DATA, MAD_RMPP_TYPE_ACK, 0, out);
	wire_put32(out + MAD_RMPP_OFF_DATA1, n);
	wire_put32(out + MAD_RMPP_OFF_DATA2, newwin);
}

/* Every segment of m at once: an ACK of none opens the whole window. */
static inline uint32_t all_segments(const uint8_t *m, size_t len, uint8_t segs[][MAD_SIZE], size_t max)
{
	struct rmpp_cfg cfg;
	struct rmpp_tx tx;
	uint8_t ack[MAD_SIZE];
	uint32_t n = 0;

	cfg_of(&cfg, 64);
	assert_int_equal(rmpp_tx_init(&tx, m, len, SA_OFF_DATA, &cfg, 0), 0);
	assert_true(tx.nseg <= max);
	ack_of(m, 0, tx.nseg, ack);
	assert_int_equal(rmpp_tx_recv(&tx, ack, MAD_SIZE, 0), 0);
	while (rmpp_tx_next(&tx, 0, segs[n]))
		n++;
	assert_int_equal(n, tx.nseg);
	rmpp_tx_fini(&tx);
	return n;
}

#endif
