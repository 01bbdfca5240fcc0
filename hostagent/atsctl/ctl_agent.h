/* atsctl's requests to atsd's local resolver socket (hostagent/atsd),
 * and the commands atsd alone answers. */
#ifndef IBATS_CTL_AGENT_H
#define IBATS_CTL_AGENT_H

#include <stdint.h>

struct ctl;
struct ctl_args;

/* agent_call()'s answer when no atsd listens: ask the SA. */
#define NO_AGENT (-1)

enum {
	AGENT_RECORDS = 1 << 0,  /* the answer is ATS records: print them so */
	AGENT_FALLBACK = 1 << 1, /* a busy or failing atsd is NO_AGENT too */
};

/* Send req, print the answer: an exit status, or NO_AGENT. */
int agent_call(const struct ctl *c, const char *req, unsigned flags);
/* A lookup (resolve, reverse, primary) from atsd's cache, or NO_AGENT. */
int agent_lookup(const struct ctl *c, const char *cmd, const char *arg, uint16_t pkey);

/* The commands atsd answers; exit status 3 when it does not run. */
int cmd_hold(struct ctl *c, const struct ctl_args *a);
int cmd_release(struct ctl *c, const struct ctl_args *a);
int cmd_status(struct ctl *c, const struct ctl_args *a);
int cmd_stats(struct ctl *c, const struct ctl_args *a);
int cmd_ipoib(struct ctl *c, const struct ctl_args *a);
int cmd_resync(struct ctl *c, const struct ctl_args *a);
int cmd_connections(struct ctl *c, const struct ctl_args *a);
int cmd_connect(struct ctl *c, const struct ctl_args *a);
int cmd_disconnect(struct ctl *c, const struct ctl_args *a);

#endif
