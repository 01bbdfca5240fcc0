/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* IB Communication Management MADs (IBTA Vol 1 chapter 12, Tables 106-113).
 * Each message is a table of fields (byte offset, bit offset, width)
 * relative to the data after the 24-byte MAD header, encoded and decoded
 * by one routine. Test code: the simulated kernel's ib_cm (kcm*.c) speaks
 * it, and the tests and tools that forge CM MADs; the product leaves the
 * CM to the kernel (librdmacm), so nothing under lib/, plugin/ or
 * hostagent/ includes this. */
#ifndef IBATS_SIMHOST_CMWIRE_H
#define IBATS_SIMHOST_CMWIRE_H

#include <stddef.h>
#include <stdint.h>

#define CMWIRE_CLASS 0x07
#define CMWIRE_CLASS_VERSION 2
#define CMWIRE_DATA_OFF 24
#define CMWIRE_DATA_SIZE 232

enum cmwire_attr {
	CMWIRE_ATTR_REQ = 0x0010,
	CMWIRE_ATTR_MRA = 0x0011,
	CMWIRE_ATTR_REJ = 0x0012,
	CMWIRE_ATTR_REP = 0x0013,
	CMWIRE_ATTR_RTU = 0x0014,
	CMWIRE_ATTR_DREQ = 0x0015,
	CMWIRE_ATTR_DREP = 0x0016,
};

struct cmwire_path {
	uint16_t local_lid, remote_lid;
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;
	uint8_t packet_rate, traffic_class, hop_limit, sl, subnet_local;
	uint8_t local_ack_timeout;
};

#define CMWIRE_REQ_PDATA 92
#define CMWIRE_MRA_PDATA 222
#define CMWIRE_REJ_ARI 72
#define CMWIRE_REJ_PDATA 148
#define CMWIRE_REP_PDATA 196
#define CMWIRE_RTU_PDATA 224
#define CMWIRE_DREQ_PDATA 220
#define CMWIRE_DREP_PDATA 224

struct cmwire_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey, local_qpn, local_eecn, remote_eecn, starting_psn;
	uint8_t responder_resources, initiator_depth;
	uint8_t remote_cm_response_timeout, transport_service_type, e2e_flow_control;
	uint8_t local_cm_response_timeout, retry_count;
	uint16_t pkey;
	uint8_t path_mtu, rdc_exists, rnr_retry_count, max_cm_retries, srq;
	uint8_t ext_transport_type, sap_supported;
	struct cmwire_path primary, alternate;
	uint8_t private_data[CMWIRE_REQ_PDATA];
};

struct cmwire_mra {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_mraed, service_timeout;
	uint8_t private_data[CMWIRE_MRA_PDATA];
};

enum cmwire_rej_reason {
	CMWIRE_REJ_NO_QP = 1,
	CMWIRE_REJ_TIMEOUT = 15,
	CMWIRE_REJ_INVALID_SERVICE_ID = 8,
	CMWIRE_REJ_CONSUMER = 28,
};

struct cmwire_rej {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_rejected, ari_length;
	uint16_t reason;
	uint8_t ari[CMWIRE_REJ_ARI];
	uint8_t private_data[CMWIRE_REJ_PDATA];
};

struct cmwire_rep {
	uint32_t local_comm_id, remote_comm_id, local_qkey, local_qpn, local_eecn;
	uint32_t starting_psn;
	uint8_t responder_resources, initiator_depth, target_ack_delay;
	uint8_t failover_accepted, e2e_flow_control, rnr_retry_count, srq;
	uint64_t local_ca_guid;
	uint8_t private_data[CMWIRE_REP_PDATA];
};

struct cmwire_rtu {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[CMWIRE_RTU_PDATA];
};

struct cmwire_dreq {
	uint32_t local_comm_id, remote_comm_id, remote_qpn_eecn;
	uint8_t private_data[CMWIRE_DREQ_PDATA];
};

struct cmwire_drep {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[CMWIRE_DREP_PDATA];
};

/* data: the CMWIRE_DATA_SIZE bytes after the MAD header. Decoders return
 * -EMSGSIZE when len < CMWIRE_DATA_SIZE. */
void cmwire_req_encode(uint8_t *data, const struct cmwire_req *m);
int cmwire_req_decode(const uint8_t *data, size_t len, struct cmwire_req *m);
void cmwire_mra_encode(uint8_t *data, const struct cmwire_mra *m);
int cmwire_mra_decode(const uint8_t *data, size_t len, struct cmwire_mra *m);
void cmwire_rej_encode(uint8_t *data, const struct cmwire_rej *m);
int cmwire_rej_decode(const uint8_t *data, size_t len, struct cmwire_rej *m);
void cmwire_rep_encode(uint8_t *data, const struct cmwire_rep *m);
int cmwire_rep_decode(const uint8_t *data, size_t len, struct cmwire_rep *m);
void cmwire_rtu_encode(uint8_t *data, const struct cmwire_rtu *m);
int cmwire_rtu_decode(const uint8_t *data, size_t len, struct cmwire_rtu *m);
void cmwire_dreq_encode(uint8_t *data, const struct cmwire_dreq *m);
int cmwire_dreq_decode(const uint8_t *data, size_t len, struct cmwire_dreq *m);
void cmwire_drep_encode(uint8_t *data, const struct cmwire_drep *m);
int cmwire_drep_decode(const uint8_t *data, size_t len, struct cmwire_drep *m);

#endif
