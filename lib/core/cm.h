/* IB Communication Management MADs (IBTA Vol 1 chapter 12, Tables 106-113).
 * Each message is a table of fields (byte offset, bit offset, width)
 * relative to the data after the 24-byte MAD header, encoded and decoded
 * by one routine. */
#ifndef IBATS_CM_H
#define IBATS_CM_H

#include <stddef.h>
#include <stdint.h>

#define CM_CLASS 0x07
#define CM_CLASS_VERSION 2
#define CM_DATA_OFF 24
#define CM_DATA_SIZE 232

enum cm_attr {
	CM_ATTR_REQ = 0x0010,
	CM_ATTR_MRA = 0x0011,
	CM_ATTR_REJ = 0x0012,
	CM_ATTR_REP = 0x0013,
	CM_ATTR_RTU = 0x0014,
	CM_ATTR_DREQ = 0x0015,
	CM_ATTR_DREP = 0x0016,
};

struct cm_path {
	uint16_t local_lid, remote_lid;
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;
	uint8_t packet_rate, traffic_class, hop_limit, sl, subnet_local;
	uint8_t local_ack_timeout;
};

#define CM_REQ_PDATA 92
#define CM_MRA_PDATA 222
#define CM_REJ_ARI 72
#define CM_REJ_PDATA 148
#define CM_REP_PDATA 196
#define CM_RTU_PDATA 224
#define CM_DREQ_PDATA 220
#define CM_DREP_PDATA 224

struct cm_req {
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
	struct cm_path primary, alternate;
	uint8_t private_data[CM_REQ_PDATA];
};

struct cm_mra {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_mraed, service_timeout;
	uint8_t private_data[CM_MRA_PDATA];
};

enum cm_rej_reason {
	CM_REJ_NO_QP = 1,
	CM_REJ_TIMEOUT = 15,
	CM_REJ_INVALID_SERVICE_ID = 8,
	CM_REJ_CONSUMER = 28,
};

struct cm_rej {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t message_rejected, ari_length;
	uint16_t reason;
	uint8_t ari[CM_REJ_ARI];
	uint8_t private_data[CM_REJ_PDATA];
};

struct cm_rep {
	uint32_t local_comm_id, remote_comm_id, local_qkey, local_qpn, local_eecn;
	uint32_t starting_psn;
	uint8_t responder_resources, initiator_depth, target_ack_delay;
	uint8_t failover_accepted, e2e_flow_control, rnr_retry_count, srq;
	uint64_t local_ca_guid;
	uint8_t private_data[CM_REP_PDATA];
};

struct cm_rtu {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[CM_RTU_PDATA];
};

struct cm_dreq {
	uint32_t local_comm_id, remote_comm_id, remote_qpn_eecn;
	uint8_t private_data[CM_DREQ_PDATA];
};

struct cm_drep {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t private_data[CM_DREP_PDATA];
};

/* data: the CM_DATA_SIZE bytes after the MAD header. Decoders return
 * -EMSGSIZE when len < CM_DATA_SIZE. */
void cm_req_encode(uint8_t *data, const struct cm_req *m);
int cm_req_decode(const uint8_t *data, size_t len, struct cm_req *m);
void cm_mra_encode(uint8_t *data, const struct cm_mra *m);
int cm_mra_decode(const uint8_t *data, size_t len, struct cm_mra *m);
void cm_rej_encode(uint8_t *data, const struct cm_rej *m);
int cm_rej_decode(const uint8_t *data, size_t len, struct cm_rej *m);
void cm_rep_encode(uint8_t *data, const struct cm_rep *m);
int cm_rep_decode(const uint8_t *data, size_t len, struct cm_rep *m);
void cm_rtu_encode(uint8_t *data, const struct cm_rtu *m);
int cm_rtu_decode(const uint8_t *data, size_t len, struct cm_rtu *m);
void cm_dreq_encode(uint8_t *data, const struct cm_dreq *m);
int cm_dreq_decode(const uint8_t *data, size_t len, struct cm_dreq *m);
void cm_drep_encode(uint8_t *data, const struct cm_drep *m);
int cm_drep_decode(const uint8_t *data, size_t len, struct cm_drep *m);

#endif
