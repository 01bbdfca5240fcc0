/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The replication credential (plugin/replauth.h): nettle's HMAC-SHA-256
 * truncated as the tag truncates it (RFC 4231), a golden tagged MAD
 * whose tag was computed apart (Python's hmac over the bytes replauth.c
 * names), every covered bit, the TID's high half, and the key file's
 * rules, each refusal with its reason. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <nettle/hmac.h>

#include "core/keyfile.h"

#include "core/mad.h"
#include "core/repl.h"
#include "plugin/replauth.h"
#include "core/wire.h"

#include "tmpconf.h"
#include "fixture.h"

#define KEY_HEX "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"

static char path[64], link_path[64];

/* The pull of test_repl.c's pull_golden. */
static const struct repl_pull pull_sample = {
	.epoch = 0x1122334455667788ull, .next = 0x10000002aull,
	.pos = 0x0a0b0c0d, .flags = REPL_FLAG_SNAPSHOT,
};
#define TID 0x0102030405060708ull

/* HMAC-SHA-256 with key 00 01 .. 1f over "ibats-repl-v2", method 0x01,
 * modifier 00 00 00 01, TID low 05 06 07 08, bytes 40..63 and 80..255
 * of pull_golden, first 16 bytes. */
static const uint8_t golden_tag[REPL_TAG_SIZE] = {
	0xcc, 0xab, 0xa5, 0x3f, 0xe7, 0x88, 0x98, 0x4f,
	0x9d, 0x00, 0x2b, 0xcd, 0x7b, 0xab, 0x41, 0x20,
};

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/ibats-replauth.%d", (int)getpid());
	snprintf(link_path, sizeof(link_path), "/tmp/ibats-replauth-link.%d", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	replauth_fini();
	unlink(path);
	unlink(link_path);
	return 0;
}

static void key_file(const char *text, mode_t mode)
{
	tmpconf_put(path, text);
	assert_int_equal(chmod(path, mode), 0);
}

static void load(const char *text)
{
	char err[256] = "";

	key_file(text, 0600);
	assert_int_equal(replauth_init(path, err, sizeof(err)), 0);
}

/* The key file is refused with ret, its reason holding why. */
static void refused(int ret, const char *why)
{
	char err[256] = "";

	assert_int_equal(replauth_init(path, err, sizeof(err)), ret);
	assert_non_null(strstr(err, why));
	assert_non_null(strstr(err, "/tmp/ibats-replauth"));
	/* And no key is left loaded. */
	{
		uint8_t mad[MAD_SIZE];

		repl_pull_encode(mad, TID, &pull_sample);
		replauth_sign(mad);
		assert_int_equal(replauth_verify(mad, MAD_SIZE), -EBADMSG);
	}
}

/* RFC 4231 4.3 test case 2 in full, and 4.6 test case 5, truncated to
 * 128 bits as the tag is: nettle's digest of a shorter length is the
 * leftmost bytes. The keys are shorter than a key file may hold, so
 * nettle is asked directly. */
static void test_rfc4231(void **state)
{
	static const uint8_t tc2[32] = {
		0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24, 0x26,
		0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27, 0x39, 0x83,
		0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
	};
	static const uint8_t tc5[16] = {
		0xa3, 0xb6, 0x16, 0x74, 0x73, 0x10, 0x0e, 0xe0,
		0x6e, 0x0c, 0x79, 0x6c, 0x29, 0x55, 0x55, 0x2b,
	};
	struct hmac_sha256_ctx c;
	uint8_t key5[20], out[32];

	(void)state;
	hmac_sha256_set_key(&c, 4, (const uint8_t *)"Jefe");
	hmac_sha256_update(&c, 28, (const uint8_t *)"what do ya want for nothing?");
	hmac_sha256_digest(&c, 32, out);
	assert_memory_equal(out, tc2, 32);
	memset(key5, 0x0c, sizeof(key5));
	hmac_sha256_set_key(&c, sizeof(key5), key5);
	hmac_sha256_update(&c, 20, (const uint8_t *)"Test With Truncation");
	hmac_sha256_digest(&c, 16, out);
	assert_memory_equal(out, tc5, 16);
}

static void test_golden(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct repl_pull q;

	(void)state;
	load(KEY_HEX "\n");
	repl_pull_encode(mad, TID, &pull_sample);
	replauth_sign(mad);
	assert_memory_equal(mad + REPL_OFF_TAG, golden_tag, REPL_TAG_SIZE);
	assert_int_equal(replauth_verify(mad, MAD_SIZE), 0);
	/* The tag does not disturb the decoder. */
	assert_int_equal(repl_pull_decode(mad, MAD_SIZE, &q), 0);
	assert_true(q.epoch == pull_sample.epoch && q.pos == pull_sample.pos);
	/* Uppercase digits, no newline: the same key. */
	load("000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F");
	assert_int_equal(replauth_verify(mad, MAD_SIZE), 0);
	assert_int_equal(replauth_verify(mad, MAD_SIZE - 1), -EMSGSIZE);
	/* Another key, one bit apart. */
	load("800102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n");
	assert_int_equal(replauth_verify(mad, MAD_SIZE), -EBADMSG);
	/* None. */
	replauth_fini();
	assert_int_equal(replauth_verify(mad, MAD_SIZE), -EBADMSG);
}

/* Bytes the tag covers: method, modifier, TID's low half, class data. */
static int covered(size_t i)
{
	return i == MAD_OFF_METHOD || (i >= MAD_OFF_ATTR_MOD && i < MAD_OFF_ATTR_MOD + 4) ||
	       (i >= MAD_OFF_TID + 4 && i < MAD_OFF_TID + 8) || i >= REPL_OFF_EPOCH;
}

static void flips(const uint8_t *signed_mad)
{
	uint8_t mad[MAD_SIZE];
	size_t i;
	unsigned bit;

	for (i = 0; i < MAD_SIZE; i++)
		for (bit = 0; bit < 8; bit++) {
			memcpy(mad, signed_mad, MAD_SIZE);
			mad[i] ^= (uint8_t)(1u << bit);
			if (covered(i))
				assert_int_equal(replauth_verify(mad, MAD_SIZE), -EBADMSG);
			else /* the decoder's to refuse (header, OUI) */
				assert_int_equal(replauth_verify(mad, MAD_SIZE), 0);
		}
}

static void test_bit_flips(void **state)
{
	struct repl_answer a = { .epoch = 7, .seq = 8, .kind = REPL_SET, .lease_left = 60,
				 .pos = 1 };
	uint8_t mad[MAD_SIZE];
	size_t i;

	(void)state;
	load(KEY_HEX "\n");
	repl_pull_encode(mad, TID, &pull_sample);
	replauth_sign(mad);
	flips(mad);
	for (i = 0; i < SR_SIZE; i++)
		a.rec[i] = (uint8_t)i;
	repl_answer_encode(mad, TID, &a);
	replauth_sign(mad);
	assert_int_equal(replauth_verify(mad, MAD_SIZE), 0);
	flips(mad);
}

/* The kernel puts its agent's hi_tid into the TID's high half of a
 * request it sends (user_mad.c): the tag must not depend on it. */
static void test_tid_high_half(void **state)
{
	uint8_t mad[MAD_SIZE];

	(void)state;
	load(KEY_HEX "\n");
	repl_pull_encode(mad, 0x12345678u, &pull_sample);
	replauth_sign(mad);
	wire_put64(mad + MAD_OFF_TID, 0xdeadbeef12345678ull);
	assert_int_equal(replauth_verify(mad, MAD_SIZE), 0);
	wire_put64(mad + MAD_OFF_TID, 0xdeadbeef12345679ull);
	assert_int_equal(replauth_verify(mad, MAD_SIZE), -EBADMSG);
}

static void test_key_accepted(void **state)
{
	char longest[2 * KEYFILE_MAX + 2];

	(void)state;
	load(KEY_HEX);
	memset(longest, 'a', sizeof(longest) - 2);
	longest[sizeof(longest) - 2] = '\n';
	longest[sizeof(longest) - 1] = '\0';
	load(longest);
}

static void test_key_mode(void **state)
{
	static const struct {
		mode_t mode;
		const char *why;
	} cases[] = {
		{ 0640, "mode 0640 lets group or others at the key" },
		{ 0604, "mode 0604" },
		{ 0620, "mode 0620" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		key_file(KEY_HEX "\n", cases[i].mode);
		refused(-EPERM, cases[i].why);
	}
}

static void test_key_symlink(void **state)
{
	char err[256] = "";

	(void)state;
	key_file(KEY_HEX "\n", 0600);
	assert_int_equal(symlink(path, link_path), 0);
	assert_int_equal(replauth_init(link_path, err, sizeof(err)), -ELOOP);
	assert_string_equal(strstr(err, ": "), ": a symbolic link (the key file must be the file itself)");
	/* The file it points to is fine. */
	assert_int_equal(replauth_init(path, err, sizeof(err)), 0);
}

static void test_key_owner(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	key_file(KEY_HEX "\n", 0600);
	assert_int_equal(chown(path, 65534, 65534), 0);
	refused(-EPERM, "owned by uid 65534, neither root nor OpenSM's user (uid 0)");
}

/* atsctl check-config judges for OpenSM's root whoever runs it: a key
 * file its runner owns passes keyfile_read, not keyfile_read_as(0). */
static void test_key_owner_as(void **state)
{
	uint8_t key[KEYFILE_MAX];
	char err[256] = "";
	size_t len = 0;

	(void)state;
	key_file(KEY_HEX "\n", 0600);
	assert_int_equal(keyfile_read_as(path, 0, key, &len, err, sizeof(err)),
			 geteuid() ? -EPERM : 0);
	if (geteuid() != 0)
		skip();
	assert_int_equal(len, 32);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(keyfile_read_as(path, 65534, key, &len, err, sizeof(err)), 0);
	assert_int_equal(keyfile_read_as(path, 0, key, &len, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, ": owned by uid 65534, neither root nor OpenSM's user (uid 0)"));
	assert_int_equal(keyfile_read_as(path, 1000, key, &len, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "(uid 1000)"));
	/* Refused, the key is zeroed. */
	assert_int_equal(key[0] | key[31], 0);
}

/* A directory, an empty file and a world-readable one, each named. */
static void test_key_careless(void **state)
{
	uint8_t key[KEYFILE_MAX];
	char err[256] = "";
	size_t len;

	(void)state;
	assert_int_equal(keyfile_read_as("/", 0, key, &len, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/: not a regular file");
	key_file("", 0600);
	assert_int_equal(keyfile_read_as(path, 0, key, &len, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1: 0 hex digits"));
	key_file(KEY_HEX "\n", 0644);
	assert_int_equal(keyfile_read_as(path, 0, key, &len, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, ": mode 0644 lets group or others at the key (chmod 600)"));
	key_file(KEY_HEX "\n", 0400);
	assert_int_equal(keyfile_read_as(path, geteuid(), key, &len, err, sizeof(err)), 0);
}

static void test_key_text(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "", ":1: 0 hex digits" },
		{ "0001 " KEY_HEX "\n", ":1: character 5 is not a hex digit" },
		{ "0x" KEY_HEX "\n", ":1: character 2 is not a hex digit" },
		{ KEY_HEX "\r\n", ":1: character 65 is not a hex digit" },
		{ KEY_HEX "0\n", ":1: 65 hex digits" },
		{ KEY_HEX "\n\n", ":2: more than one line" },
		{ KEY_HEX "\n" KEY_HEX "\n", ":2: more than one line" },
	};
	char longer[2 * KEYFILE_MAX + 3];
	size_t i;

	(void)state;
	key_file(KEY_HEX "\n", 0600);
	assert_int_equal(truncate(path, 62), 0);
	refused(-EINVAL, ":1: 62 hex digits: the key is 32 to 64 bytes");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		key_file(bad[i].text, 0600);
		refused(-EINVAL, bad[i].why);
	}
	memset(longer, 'f', sizeof(longer) - 3);
	strcpy(longer + sizeof(longer) - 3, "ff");
	key_file(longer, 0600);
	refused(-EINVAL, ":1: 130 hex digits");
}

static void test_key_not_a_file(void **state)
{
	char err[256] = "";

	(void)state;
	assert_int_equal(replauth_init("/tmp", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/tmp: not a regular file");
	unlink(path);
	refused(-ENOENT, "No such file or directory");
}

TEST_MAIN(
	cmocka_unit_test(test_rfc4231),
	FIXTURE_TEST(test_golden),
	FIXTURE_TEST(test_bit_flips),
	FIXTURE_TEST(test_tid_high_half),
	FIXTURE_TEST(test_key_accepted),
	FIXTURE_TEST(test_key_mode),
	FIXTURE_TEST(test_key_symlink),
	FIXTURE_TEST(test_key_owner),
	FIXTURE_TEST(test_key_owner_as),
	FIXTURE_TEST(test_key_careless),
	FIXTURE_TEST(test_key_text),
	FIXTURE_TEST(test_key_not_a_file))
