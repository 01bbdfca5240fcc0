/* Shared pieces of the strict config parsers (osmats.conf, atsd.conf). */
#ifndef IBATS_CFG_H
#define IBATS_CFG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* yes/no, true/false, on/off, 1/0 (any case). -EINVAL otherwise. */
int cfg_parse_bool(const char *v, int *out);
/* Decimal or 0x-hex, no sign, at most max. */
int cfg_parse_u64(const char *v, uint64_t max, uint64_t *out);
/* Strip leading and trailing blanks in place. */
char *cfg_trim(char *s);

/* Reads the next meaningful line: comments (#) and blank lines skipped,
 * blanks trimmed. Returns 1 with *line set, 0 at the end, -EINVAL for an
 * overlong line (msg says so). *lineno counts every line read. */
int cfg_next_line(FILE *f, char *buf, size_t len, unsigned *lineno,
		  char **line, char *msg, size_t msglen);

/* Split "key value" or "key = value": *key and *val point into line. */
void cfg_split(char *line, char **key, char **val);

#endif
