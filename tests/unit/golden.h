/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Golden wire images built by hand from the spec tables, not by the code
 * under test: ATS Table 1 laid out as IBTA Vol 1 Table 207. */
#ifndef IBATS_GOLDEN_H
#define IBATS_GOLDEN_H

#include <stdint.h>

/* Registration of 192.168.1.10 for GID fe80::2:c903:a:b1c2, PKey 0xFFFF,
 * lease infinite, primary SID. */
static const uint8_t golden_sr_v4[176] = {
	/* 0: ServiceID 0x10000CE100415453 */
	0x10, 0x00, 0x0c, 0xe1, 0x00, 0x41, 0x54, 0x53,
	/* 8: ServiceGID */
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xb1, 0xc2,
	/* 24: ServiceP_Key, 26: reserved */
	0xff, 0xff, 0x00, 0x00,
	/* 28: ServiceLease infinite */
	0xff, 0xff, 0xff, 0xff,
	/* 32: ServiceKey 0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 48: ServiceName, zero padded to 64 bytes */
	'D', 'A', 'P', 'L', ' ', 'A', 'd', 'd', 'r', 'e', 's', 's', ' ',
	'T', 'r', 'a', 'n', 's', 'l', 'a', 't', 'i', 'o', 'n', ' ',
	'S', 'e', 'r', 'v', 'i', 'c', 'e',
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	/* 112: ServiceData8: IPv4 in octets 12..15 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 1, 10,
	/* 128: ServiceData16, 144: ServiceData32, 160: ServiceData64 unused */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* SA header of a SubnAdmSet(ServiceRecord) as OpenSM and saquery lay it
 * out: base 1, class 3, version 2, method 2, TID 0x0000000012345678,
 * attribute 0x0031, no RMPP, SM_Key 0, ComponentMask SID|GID|PKey|Name|
 * Data8[0..15] = 0x00000000007fffc7. */
static const uint8_t golden_sa_set_hdr[56] = {
	0x01, 0x03, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78,
	0x00, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 24: RMPP header */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
	/* 36: SM_Key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	/* 44: AttributeOffset, reserved */
	0x00, 0x00, 0x00, 0x00,
	/* 48: ComponentMask */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x7f, 0xff, 0xc7,
};

/* NodeRecord (IBTA Vol 1 Table 193; NodeInfo Table 132, NodeDescription
 * Table 133) of LID 0x0107: a CA, base 1 class 1, 2 ports, SystemImageGUID
 * 0x0002c90300001110, NodeGUID ...1111, PortGUID ...1112, PartitionCap
 * 128, DeviceID 0x1017, Revision 0, LocalPortNum 1, VendorID 0x0002c9,
 * NodeDescription "h1 mlx5_0". */
static const uint8_t golden_nr[108] = {
	/* 0: LID, 2: reserved */
	0x01, 0x07, 0x00, 0x00,
	/* 4: BaseVersion, ClassVersion, NodeType, NumPorts */
	0x01, 0x01, 0x01, 0x02,
	/* 8: SystemImageGUID, 16: NodeGUID, 24: PortGUID */
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x11, 0x10,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x11, 0x11,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x11, 0x12,
	/* 32: PartitionCap, 34: DeviceID, 36: Revision */
	0x00, 0x80, 0x10, 0x17, 0x00, 0x00, 0x00, 0x00,
	/* 40: LocalPortNum, 41: VendorID */
	0x01, 0x00, 0x02, 0xc9,
	/* 44: NodeDescription, NUL padded to 64 bytes */
	'h', '1', ' ', 'm', 'l', 'x', '5', '_', '0', 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#endif
