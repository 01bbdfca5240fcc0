/* Subnet management packets (IBTA Vol 1 14.2.1.1 LID-routed, 14.2.1.2
 * directed-route), for what a host agent needs of them under ibsim:
 * - refusing them as a port without an SM. A host agent must become its
 *   node's "SM" client to receive unsolicited MADs (ibsim delivers them
 *   to that client only); ibsim then sets IsSM, and OpenSM probes the
 *   port with SubnGet(SMInfo). ibsim never times out a request a client swallows, so an unanswered
 *   probe stalls OpenSM's sweep for good: the agent answers it the
 *   way an SMA without an SM does;
 * - reading its own PortInfo from the SMA: umad2sim writes the port's
 *   sysfs files once, at process start, so a long-running agent would never
 *   see a new SM LID there. */
#ifndef IBATS_SMP_H
#define IBATS_SMP_H

#include <stddef.h>
#include <stdint.h>

#include "mad.h"

#define SMP_CLASS_LID 0x01
#define SMP_CLASS_DR 0x81
#define SMP_ATTR_PORTINFO 0x0015
#define SMP_ATTR_SMINFO 0x0020
#define SMP_PERMISSIVE_LID 0xFFFF

enum {
	SMP_OFF_STATUS = 4,        /* directed route: D bit 15, status 0..14 */
	SMP_OFF_HOP_PTR = 6,       /* directed route */
	SMP_OFF_HOP_COUNT = 7,     /* directed route */
	SMP_OFF_MKEY = 24,
	SMP_OFF_DR_SLID = 32,      /* directed route */
	SMP_OFF_DR_DLID = 34,      /* directed route */
	SMP_OFF_DATA = 64,
	SMP_DATA_SIZE = 64,
	SMP_OFF_INITIAL_PATH = 128, /* directed route */
	SMP_OFF_RETURN_PATH = 192,  /* directed route */
};

/* PortInfo, 14.2.5.6, at SMP_OFF_DATA. */
enum {
	PI_OFF_LID = 16,
	PI_OFF_SM_LID = 18,        /* MasterSMLID */
	PI_OFF_STATE = 32,         /* LinkSpeedSupported 7..4, PortState 3..0 */
	PI_OFF_LMC = 34,           /* M_KeyProtectBits 7..6, LMC 2..0 */
	PI_OFF_SM_SL = 36,         /* NeighborMTU 7..4, MasterSMSL 3..0 */
};

#define SMP_DIRECTION 0x8000
/* IBTA Table 146 code 3: method/attribute combination not supported. */
#define SMP_STATUS_UNSUPPORTED 0x000C

/* Refuse the Get or Set SMP in req (len bytes): the answer in resp
 * (cap >= MAD_SIZE) is the request with method GetResp, status
 * "not supported", the D bit set for directed route, path, TID and M_Key
 * untouched and no data. Returns its length, or 0 when req is nothing to
 * answer: another class, a response, trap or trap repress, a directed-route
 * packet on its way back, a short MAD or another base version. */
size_t smp_refuse(const uint8_t *req, size_t len, uint8_t *resp, size_t cap);

struct smp_portinfo {
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t sm_sl;
	uint8_t lmc;
	int state; /* 4 = Active */
};

/* A directed-route SubnGet(PortInfo) of hop count 0, the port it is sent
 * from (portnum): MAD_SIZE bytes into mad, TID left 0 for the sender. */
void smp_portinfo_request(uint8_t *mad, int portnum);
/* Decode the answer: 0, -EMSGSIZE (short), -EPROTO (not a directed-route
 * GetResp of PortInfo) or -EREMOTEIO (a MAD status). */
int smp_portinfo_parse(const uint8_t *mad, size_t len, struct smp_portinfo *pi);

#endif
