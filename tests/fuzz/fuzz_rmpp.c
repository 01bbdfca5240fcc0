/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* An RMPP receiver and sender (simhost/kernel/rmpp.h) fed any segments: each
 * input is a config byte then steps; a step is a clock tick and either
 * raw bytes (up to one MAD) or a segment of a fixed SA message with its
 * RMPP header fields chosen by the input, so a session gets deep within
 * the fuzzer's 512 bytes. What either side sends must be a well formed
 * RMPP MAD; a message they finish must fit the limits. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/mad.h"
#include "simhost/kernel/rmpp.h"
#include "core/sa.h"
#include "core/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NSEG 5
#define MSG_LEN (SA_OFF_DATA + NSEG * SA_DATA_SIZE - 30)

static void check_out(const uint8_t *out, size_t n, int sender)
{
	uint8_t type = out[MAD_RMPP_OFF_TYPE], st = out[MAD_RMPP_OFF_STATUS];

	if (n != MAD_SIZE || out[MAD_RMPP_OFF_VERSION] != MAD_RMPP_VERSION ||
	    !(out[MAD_RMPP_OFF_FLAGS] & MAD_RMPP_FLAG_ACTIVE))
		__builtin_trap();
	switch (type) {
	case MAD_RMPP_TYPE_DATA:
		if (!sender || st || !wire_get32(out + MAD_RMPP_OFF_DATA1) ||
		    wire_get32(out + MAD_RMPP_OFF_DATA1) > NSEG)
			__builtin_trap();
		break;
	case MAD_RMPP_TYPE_ACK:
		if (sender || st ||
		    wire_get32(out + MAD_RMPP_OFF_DATA2) < wire_get32(out + MAD_RMPP_OFF_DATA1))
			__builtin_trap();
		break;
	case MAD_RMPP_TYPE_STOP:
		if (sender || st != MAD_RMPP_STATUS_RESX)
			__builtin_trap();
		break;
	case MAD_RMPP_TYPE_ABORT:
		if (st < MAD_RMPP_STATUS_ABORT_MIN || st > MAD_RMPP_STATUS_ABORT_MAX)
			__builtin_trap();
		break;
	default:
		__builtin_trap();
	}
}

/* Sends what is due; each call gives one MAD, and a side never has more
 * than a window (here at most NSEG) and an answer due at once. */
static void drain(struct rmpp_rx *rx, struct rmpp_tx *tx, int64_t now)
{
	uint8_t out[MAD_SIZE];
	size_t n;
	int i;

	for (i = 0; (n = rmpp_rx_next(rx, now, out)); i++) {
		check_out(out, n, 0);
		if (i > 1)
			__builtin_trap();
	}
	for (i = 0; (n = rmpp_tx_next(tx, now, out)); i++) {
		check_out(out, n, 1);
		if (i > NSEG + 1)
			__builtin_trap();
	}
}

static void check_rx(const struct rmpp_rx *rx, int ret)
{
	const uint8_t *msg;
	size_t len;

	if (ret != 0 && ret != 1 && ret != -EPROTO && ret != -ENOBUFS && ret != -EINVAL &&
	    ret != -EMSGSIZE)
		__builtin_trap();
	msg = rmpp_rx_message(rx, &len);
	if (ret == 1 && !msg)
		__builtin_trap();
	if (msg && (len < rx->hdr_len || len > rx->cfg.max_len))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t msg[MSG_LEN];
	struct rmpp_cfg cfg;
	struct rmpp_rx rx;
	struct rmpp_tx tx;
	uint8_t seg[MAD_SIZE];
	size_t i = 1, n;
	int64_t now = 0;
	uint8_t ctl;

	if (!size)
		return 0;
	msg[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	msg[MAD_OFF_MGMT_CLASS] = SA_CLASS;
	msg[MAD_OFF_CLASS_VERSION] = SA_CLASS_VERSION;
	msg[MAD_OFF_METHOD] = SA_METHOD_GET_TABLE_RESP;
	msg[MAD_RMPP_OFF_FLAGS] = MAD_RMPP_FLAG_ACTIVE;
	for (n = SA_OFF_DATA; n < MSG_LEN; n++)
		msg[n] = (uint8_t)n;
	rmpp_cfg_default(&cfg);
	cfg.window = 1 + (data[0] & 7);
	cfg.max_len = data[0] & 0x10 ? 700 : 4096;
	cfg.ack_ms = 100;
	cfg.retries = data[0] >> 5;
	cfg.total_ms = 3000;
	cfg.linger_ms = 500;
	rmpp_rx_init(&rx, &cfg, 0);
	if (rmpp_tx_init(&tx, msg, MSG_LEN, SA_OFF_DATA, &cfg, 0))
		__builtin_trap();
	while (i < size) {
		ctl = data[i++];
		now += (ctl & 0x0f) * 37;
		if (ctl & 0x80) {
			/* Raw bytes, as many as are left up to a MAD. */
			n = size - i < MAD_SIZE ? size - i : MAD_SIZE;
			memcpy(seg, data + i, n);
			i += n;
		} else {
			/* Segment data[i] of msg with the header fields given:
			 * flags, type, version, status, PayloadLength. */
			uint32_t k;

			if (size - i < 7)
				break;
			k = data[i];
			memcpy(seg, msg, SA_OFF_DATA);
			memset(seg + SA_OFF_DATA, 0, SA_DATA_SIZE);
			if (k >= 1 && k <= NSEG) {
				size_t off = SA_OFF_DATA + (k - 1) * SA_DATA_SIZE;

				memcpy(seg + SA_OFF_DATA, msg + off,
				       MSG_LEN - off < SA_DATA_SIZE ? MSG_LEN - off : SA_DATA_SIZE);
			}
			wire_put32(seg + MAD_RMPP_OFF_DATA1, k);
			seg[MAD_RMPP_OFF_FLAGS] = data[i + 1];
			seg[MAD_RMPP_OFF_TYPE] = data[i + 2];
			seg[MAD_RMPP_OFF_VERSION] = data[i + 3];
			seg[MAD_RMPP_OFF_STATUS] = data[i + 4];
			wire_put32(seg + MAD_RMPP_OFF_DATA2, wire_get16(data + i + 5));
			/* An answer to the sender flips the method (ACK, STOP). */
			if (ctl & 0x40)
				seg[MAD_OFF_METHOD] ^= MAD_METHOD_RESP_BIT;
			n = MAD_SIZE;
			i += 7;
		}
		check_rx(&rx, rmpp_rx_recv(&rx, seg, n, now));
		rmpp_tx_recv(&tx, seg, n, now);
		drain(&rx, &tx, now);
	}
	/* Every state has a deadline: the clock at it ends what is left. */
	for (n = 0; n < 64 && (rmpp_rx_state(&rx) == RMPP_ACTIVE ||
			       rmpp_tx_state(&tx) == RMPP_ACTIVE); n++) {
		int64_t d = rmpp_rx_deadline(&rx) < rmpp_tx_deadline(&tx) ? rmpp_rx_deadline(&rx)
									    : rmpp_tx_deadline(&tx);
		if (rmpp_rx_state(&rx) != RMPP_ACTIVE)
			d = rmpp_tx_deadline(&tx);
		if (rmpp_tx_state(&tx) != RMPP_ACTIVE)
			d = rmpp_rx_deadline(&rx);
		now = d > now ? d : now;
		drain(&rx, &tx, now);
	}
	if (rmpp_rx_state(&rx) == RMPP_ACTIVE || rmpp_tx_state(&tx) == RMPP_ACTIVE)
		__builtin_trap();
	rmpp_rx_fini(&rx);
	rmpp_tx_fini(&tx);
	return 0;
}
