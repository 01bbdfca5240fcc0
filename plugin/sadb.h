/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* OpenSM's SA database file (sa_db_file) against the copy a standby
 * installs when it takes over (standby.c). The first master sweep runs
 * osm_sa_db_file_load after HEAVY_SWEEP_START, where the copy went in
 * (osm_state_mgr.c do_sweep); the load adds every record of the file
 * whose RID is missing, so a record deleted while another SM was master
 * would come back from the older file. The copy is the master's list:
 * what the load added beside it is removed before the SA answers. */
#ifndef IBATS_SADB_H
#define IBATS_SADB_H

/* State manager thread (both events come from do_sweep) and delete(). */
void sadb_init(void);
void sadb_fini(void);

/* Exclusive lock held, the list just replaced by the installed copy:
 * remember its RIDs when OpenSM will load an SA database file. Out of
 * memory: WRN 7A49, and the load is left as OpenSM does it. */
void sadb_installed(void);

/* No lock held, after OpenSM's load in the sweep of an install (at
 * UCAST_ROUTING_DONE of a heavy sweep): remove every record whose RID
 * was not installed, say how many (WRN 7A49), and have sa_db_dump write
 * the list. Nothing when no copy was installed (a cold start loads the
 * file as OpenSM does). */
void sadb_after_load(void);

#endif
