/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* repltool LID [--key-file F] [--epoch E] [--next N] [--pos P] [--flags F]
 *          [--count C] [--raw-mod M] [--len L] [--stay] [--interval MS]
 * Send replication pulls (class 0x35, lib/core/repl.h) to LID, as a host
 * or a broken standby would, and print each answer:
 *   "answer kind K epoch E head H seq S pos P lease L sid 0x... tag T" or
 *   "no answer". --key-file signs the pulls with the key in F, as an SM
 *   does (plugin/replauth.h), and checks the answers' tags (T: ok, bad);
 *   without it the tag is zero and T is "unchecked". --count C pulls C
 *   times, pos counting up (snapshot) or next following the answers
 *   (stream). --raw-mod sets the attribute modifier as is (after the
 *   signature); --len sends a MAD cut to L bytes. --stay asks for the same
 *   change every time, never acking it (a lying or deaf standby),
 *   --interval waits MS between pulls. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/mad.h"
#include "core/mport.h"
#include "core/repl.h"
#include "plugin/replauth.h"
#include "core/vmad.h"
#include "core/wire.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "epoch", required_argument, NULL, 'e' },
		{ "next", required_argument, NULL, 'n' },
		{ "pos", required_argument, NULL, 'p' },
		{ "flags", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'c' },
		{ "raw-mod", required_argument, NULL, 'm' },
		{ "len", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "stay", no_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	struct repl_pull p = { 0 };
	struct mport_rpc_opts o = { 600, 0, 0, 0 };
	struct mport_dest d = { .qpn = 1, .qkey = 0x80010000u };
	unsigned long count = 1, i, answered = 0, interval_ms = 0;
	int stay = 0;
	long raw_mod = -1;
	size_t len = MAD_SIZE;
	struct mport *port;
	const char *key_file = NULL;
	char err[600];
	int opt, agent;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'k': key_file = optarg; break;
		case 'e': p.epoch = strtoull(optarg, NULL, 0); break;
		case 'n': p.next = strtoull(optarg, NULL, 0); break;
		case 'p': p.pos = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'f': p.flags = (uint8_t)strtoul(optarg, NULL, 0); break;
		case 'c': count = strtoul(optarg, NULL, 0); break;
		case 'm': raw_mod = strtol(optarg, NULL, 0); break;
		case 'l': len = strtoul(optarg, NULL, 0); break;
		case 't': o.timeout_ms = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': stay = 1; break;
		case 'i': interval_ms = strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (optind != argc - 1 || len < MAD_HDR_SIZE || len > MAD_SIZE)
		return 2;
	d.lid = (uint16_t)strtoul(argv[optind], NULL, 0);
	if (key_file && replauth_init(key_file, err, sizeof(err))) {
		fprintf(stderr, "repltool: %s\n", err);
		return 2;
	}
	if (mport_open(&port, NULL, 0))
		return 3;
	agent = mport_register_oui(port, REPL_CLASS, REPL_CLASS_VERSION, 0, VMAD_OUI_OPENIB, 0);
	if (agent < 0)
		return 3;
	for (i = 0; i < count; i++) {
		uint8_t req[MAD_SIZE], *resp = NULL;
		struct repl_answer a;
		size_t rlen = 0;

		if (i && interval_ms) {
			struct timespec ts = { .tv_sec = (time_t)(interval_ms / 1000),
					       .tv_nsec = (long)(interval_ms % 1000) * 1000000 };

			nanosleep(&ts, NULL);
		}
		repl_pull_encode(req, mport_new_tids(port, 1), &p);
		if (key_file)
			replauth_sign(req);
		if (raw_mod >= 0)
			wire_put32(req + REPL_OFF_MOD, (uint32_t)raw_mod);
		if (mport_rpc_tid(port, agent, &d, req, len, &o, &resp, &rlen)) {
			printf("no answer\n");
			if (p.flags & REPL_FLAG_SNAPSHOT)
				p.pos++;
			continue;
		}
		answered++;
		if (repl_answer_decode(resp, rlen, &a)) {
			printf("undecodable answer, %zu bytes, status 0x%04x\n", rlen,
			       wire_get16(resp + MAD_OFF_STATUS));
		} else {
			printf("answer kind %d epoch 0x%016" PRIx64 " head %" PRIu64 " seq %" PRIu64
			       " pos %u lease %u sid 0x%016" PRIx64 " tag %s\n",
			       a.kind, a.epoch, a.head, a.seq, a.pos, a.lease_left,
			       repl_kind_has_record(a.kind) ? wire_get64(a.rec) : 0,
			       !key_file ? "unchecked" : replauth_verify(resp, rlen) ? "bad" : "ok");
			if (p.flags & REPL_FLAG_SNAPSHOT) {
				p.next = a.seq;
				p.pos++;
			} else {
				p.epoch = a.epoch;
				if (!stay && (a.kind == REPL_SET || a.kind == REPL_DELETE))
					p.next = a.seq + 1;
			}
		}
		free(resp);
	}
	printf("answered %lu of %lu\n", answered, count);
	mport_close(port);
	replauth_fini();
	return 0;
}
