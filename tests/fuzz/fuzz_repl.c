/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The replication pull and answer (lib/core/repl.h) from any bytes: what
 * a decoder accepts holds only known flags and kinds, and encodes back to
 * the same bytes in every field the MAD carries; and their tag
 * (plugin/replauth.h): any bytes signed verify, and fail with one bit of
 * the class data changed. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/mad.h"
#include "core/repl.h"
#include "plugin/replauth.h"
#include "core/vmad.h"
#include "core/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The header bytes both MADs define (IBTA Vol 1 13.4.2 Table 145): not
 * the status (checked apart), the class specific or reserved bytes. */
static void same_header(const uint8_t *a, const uint8_t *b)
{
	if (memcmp(a, b, MAD_OFF_STATUS) ||
	    memcmp(a + MAD_OFF_TID, b + MAD_OFF_TID, MAD_OFF_ATTR_ID + 2 - MAD_OFF_TID) ||
	    memcmp(a + MAD_OFF_ATTR_MOD, b + MAD_OFF_ATTR_MOD, 4) ||
	    memcmp(a + VMAD_OFF_OUI, b + VMAD_OFF_OUI, 3))
		__builtin_trap();
}

static void pull(const uint8_t *data, size_t size)
{
	struct repl_pull p, q;
	uint8_t mad[MAD_SIZE];

	if (repl_pull_decode(data, size, &p))
		return;
	if (p.flags & ~REPL_FLAGS ||
	    (p.flags & REPL_FLAG_NOACK && p.flags != REPL_FLAG_NOACK))
		__builtin_trap();
	repl_pull_encode(mad, wire_get64(data + MAD_OFF_TID), &p);
	same_header(mad, data);
	if (memcmp(mad + REPL_OFF_EPOCH, data + REPL_OFF_EPOCH, 16) ||
	    memcmp(mad + REPL_OFF_POS, data + REPL_OFF_POS, 4))
		__builtin_trap();
	if (repl_pull_decode(mad, sizeof(mad), &q) || q.epoch != p.epoch ||
	    q.next != p.next || q.pos != p.pos || q.flags != p.flags)
		__builtin_trap();
}

static void answer(const uint8_t *data, size_t size)
{
	struct repl_answer a, b;
	uint8_t mad[MAD_SIZE];
	int rec;

	if (repl_answer_decode(data, size, &a))
		return;
	if ((unsigned)a.kind >= REPL_KINDS || wire_get16(data + MAD_OFF_STATUS))
		__builtin_trap();
	rec = repl_kind_has_record(a.kind);
	repl_answer_encode(mad, wire_get64(data + MAD_OFF_TID), &a);
	same_header(mad, data);
	/* epoch to pos (the tag is the signer's), then the record or head,
	 * ack_ms and caps. */
	if (memcmp(mad + REPL_OFF_EPOCH, data + REPL_OFF_EPOCH, REPL_OFF_TAG - REPL_OFF_EPOCH) ||
	    memcmp(mad + REPL_OFF_RECORD, data + REPL_OFF_RECORD, rec ? SR_SIZE : 16))
		__builtin_trap();
	if (repl_answer_decode(mad, sizeof(mad), &b) || b.kind != a.kind ||
	    b.epoch != a.epoch || b.head != a.head || b.seq != a.seq ||
	    b.lease_left != a.lease_left || b.pos != a.pos || b.ack_ms != a.ack_ms ||
	    b.caps != a.caps || (rec && a.caps) || memcmp(b.rec, a.rec, SR_SIZE))
		__builtin_trap();
}

/* A key file of this process, read once and removed. */
static void key_once(void)
{
	static const char hex[] =
		"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff\n";
	static int done;
	char path[64], err[256];
	int fd;

	if (done)
		return;
	done = 1;
	snprintf(path, sizeof(path), "/tmp/ibats-fuzz-repl.%d", (int)getpid());
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || write(fd, hex, sizeof(hex) - 1) != (ssize_t)(sizeof(hex) - 1) ||
	    close(fd) || replauth_init(path, err, sizeof(err)))
		__builtin_trap();
	unlink(path);
}

static void tag(const uint8_t *data, size_t size)
{
	uint8_t mad[MAD_SIZE];
	size_t i;

	key_once();
	if (!replauth_verify(data, size) && size < MAD_SIZE)
		__builtin_trap();
	if (size < MAD_SIZE)
		return;
	memcpy(mad, data, MAD_SIZE);
	replauth_sign(mad);
	if (replauth_verify(mad, MAD_SIZE))
		__builtin_trap();
	i = REPL_OFF_EPOCH + data[MAD_OFF_TID] % (MAD_SIZE - REPL_OFF_EPOCH);
	mad[i] ^= (uint8_t)(1u << (data[MAD_OFF_TID + 1] & 7));
	if (!replauth_verify(mad, MAD_SIZE))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pull(data, size);
	answer(data, size);
	tag(data, size);
	return 0;
}
