/* ibsim only: become the node's SM client, the one umad2sim hands
 * unsolicited MADs to. */
#ifndef IBATS_SIM_SM_H
#define IBATS_SIM_SM_H

#include "mport.h"

/* Register every class a peer may send (served or not: umad2sim crashes
 * on a MAD of an unregistered class) and open issm. The issm fd, to keep
 * open while serving, or -errno. */
int sim_sm_become(struct mport *port, int cm, int liveness, int ibping);

#endif
