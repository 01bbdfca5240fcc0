/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* Where atsctl's SM_Key comes from, so it never has to be on the command
 * line (ps(1) shows it there): "-k -" reads it from the terminal without
 * echo (as saquery's --smkey x prompts), --smkey-file from a file only
 * its owner can read (as ssh refuses a private key others can read),
 * IBATS_SMKEY from the environment. The key itself is never printed. */
#ifndef IBATS_SMKEY_H
#define IBATS_SMKEY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SMKEY_ENV "IBATS_SMKEY"

/* A key as -k or IBATS_SMKEY give it: decimal or 0x-hex, 64 bits. */
int smkey_parse(const char *s, uint64_t *key);

/* One line from f: when tty, the prompt "SM_Key: " on stderr and the
 * terminal's echo off while it is typed; else the line as piped. 0,
 * -EINVAL (not a key), -ENODATA (no line) or -errno of the terminal. */
int smkey_read_stream(FILE *f, int tty, uint64_t *key);

/* The first line of path. Refused (-EPERM, why in err) when group or
 * others may read or write it, or when neither the user nor root owns
 * it; -EINVAL not a key; -errno of open. err names the file. */
int smkey_read_file(const char *path, uint64_t *key, char *err, size_t errlen);

#endif
