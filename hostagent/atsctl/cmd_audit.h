/* atsctl audit: collect every ATS record of the fabric and check it
 * (lib/host/ats_audit.h), like osmtest -f c / -f v for inventories. */
#ifndef IBATS_CMD_AUDIT_H
#define IBATS_CMD_AUDIT_H

#include "sa_client.h"

struct cmd_audit_opts {
	int json;
	const char *save;       /* write the records found to this file */
	const char *inventory;  /* compare with a file --save wrote */
	const char *state;      /* the plugin's state file */
};

/* Exit status: 0 clean, 1 findings, 3 could not query. */
int cmd_audit(struct sa_client *sa, const struct cmd_audit_opts *o);

#endif
