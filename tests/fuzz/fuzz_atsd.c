/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The atsd socket protocol's readers (lib/host/atsd_proto.h), which
 * libibats and atsctl run on whatever arrives on atsd's socket, and
 * atsd's own readers of a request's words: the input as one line. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/atsd_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct atsd_proto_field f[16];
	struct atsd_proto_status st;
	struct atsd_proto_resync rs;
	struct atsd_proto_hold ho;
	struct sr_record r;
	char *line, name[32];
	const char *value;
	uint64_t guid;
	uint16_t lid, pkey;
	size_t n;

	if (size >= ATSD_PROTO_LINE_MAX)
		return 0;
	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	atsd_proto_ok_parse(line, &n);
	atsd_proto_parse_record(line, &r);
	atsd_proto_record_local(line);
	atsd_proto_status_parse(line, &st);
	atsd_proto_resync_parse(line, &rs);
	atsd_proto_hold_parse(line, &ho);
	atsd_proto_stats_split(line, name, sizeof(name), &value);
	atsd_proto_verb_find(line);
	atsd_proto_pkey_arg(line, &pkey);
	if (!atsd_proto_lid_arg(line, &lid) && (!lid || lid > ATSD_PROTO_LID_UNICAST_MAX))
		abort();
	if (!atsd_proto_lid_parse(line, &guid, &lid) && (!lid || lid > ATSD_PROTO_LID_UNICAST_MAX))
		abort();
	atsd_proto_line_fields(line, size & 1 ? ATSD_PROTO_LINE_GROUP : ATSD_PROTO_LINE_CONN, f, 16);
	free(line);
	return 0;
}
