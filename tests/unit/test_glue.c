/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* plugin/glue.c's layout canary (ERR 7A4A): glue_init takes an OpenSM
 * whose log object and event_plugin_name are where the headers put them,
 * and refuses one laid out otherwise, logging through OpenSM's log only
 * once that log is known to be in place (else syslog). The OpenSM is a
 * zeroed osm_opensm_t with a real log object writing to a file. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_sa.h>
#include <opensm/osm_service.h>

#include "plugin/glue.h"
#include "fixture.h"

/* glue.c's other doors into OpenSM (functions of the opensm binary,
 * not of libopensm): the canary must reach none of them. */
volatile unsigned int osm_exit_flag;
void osm_sr_rcv_process(void *context, void *data);

void osm_sr_rcv_process(void *context, void *data)
{
	(void)context, (void)data;
	fail();
}

struct osm_physp *osm_get_physp_by_mad_addr(struct osm_log *log, const osm_subn_t *subn,
					    struct osm_mad_addr *addr)
{
	(void)log, (void)subn, (void)addr;
	fail();
	return NULL;
}

struct osm_port *osm_get_port_by_alias_guid(const osm_subn_t *subn, ib_net64_t guid)
{
	(void)subn, (void)guid;
	fail();
	return NULL;
}

struct osm_port *osm_get_port_by_guid(const osm_subn_t *subn, ib_net64_t guid)
{
	(void)subn, (void)guid;
	fail();
	return NULL;
}

struct osm_port *osm_get_port_by_lid_ho(const osm_subn_t *subn, uint16_t lid)
{
	(void)subn, (void)lid;
	fail();
	return NULL;
}

boolean_t osm_physp_has_pkey(osm_log_t *log, ib_net16_t pkey, const struct osm_physp *physp)
{
	(void)log, (void)pkey, (void)physp;
	fail();
	return FALSE;
}

void osm_sa_respond(osm_sa_t *sa, osm_madw_t *madw, size_t attr_size, cl_qlist_t *list)
{
	(void)sa, (void)madw, (void)attr_size, (void)list;
	fail();
}

void osm_sa_send_error(osm_sa_t *sa, const osm_madw_t *madw, ib_net16_t status)
{
	(void)sa, (void)madw, (void)status;
	fail();
}

osm_svcr_t *osm_svcr_new(const ib_service_record_t *rec)
{
	(void)rec;
	fail();
	return NULL;
}

void osm_svcr_init(osm_svcr_t *svcr, const ib_service_record_t *rec)
{
	(void)svcr, (void)rec;
	fail();
}

void osm_svcr_delete(osm_svcr_t *svcr)
{
	(void)svcr;
	fail();
}

void osm_svcr_insert_to_db(osm_subn_t *subn, osm_log_t *log, osm_svcr_t *svcr)
{
	(void)subn, (void)log, (void)svcr;
	fail();
}

void osm_svcr_remove_from_db(osm_subn_t *subn, osm_log_t *log, osm_svcr_t *svcr)
{
	(void)subn, (void)log, (void)svcr;
	fail();
}

static osm_opensm_t osm;
static char log_path[64], sys_path[64];
static char log_file[64];  /* opt.log_file: the pointer both must hold */

/* How many lines of file contain what. */
static int lines_with(const char *file, const char *what)
{
	char line[1024];
	FILE *f = fopen(file, "r");
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, what) != NULL;
	fclose(f);
	return n;
}

/* An OpenSM as osm_opensm_init leaves it: opt.log_file handed to the
 * log object, which keeps the pointer. */
static int setup(void **state)
{
	(void)state;
	memset(&osm, 0, sizeof(osm));
	snprintf(log_path, sizeof(log_path), "/tmp/osmats-glue-test-log.%d", (int)getpid());
	snprintf(sys_path, sizeof(sys_path), "/tmp/osmats-glue-test-syslog.%d", (int)getpid());
	snprintf(log_file, sizeof(log_file), "%s", log_path);
	osm_log_construct(&osm.log);
	assert_int_equal(osm_log_init_v2(&osm.log, TRUE, OSM_LOG_ERROR | OSM_LOG_INFO, log_file,
					 0, FALSE), IB_SUCCESS);
	osm.subn.opt.log_file = log_file;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	osm_log_destroy(&osm.log);
	unlink(log_path);
	unlink(sys_path);
	return 0;
}

/* glue_init with syslog's copy on stderr (LOG_PERROR) sent to sys_path. */
static int init_capturing_syslog(const char *name)
{
	int fd = open(sys_path, O_WRONLY | O_CREAT | O_TRUNC, 0600), saved = dup(2), ret;

	assert_true(fd >= 0 && saved >= 0);
	openlog("test_glue", LOG_PERROR, LOG_USER);
	assert_int_equal(dup2(fd, 2), 2);
	ret = glue_init(&osm, name);
	assert_int_equal(dup2(saved, 2), 2);
	closelog();
	close(fd);
	close(saved);
	return ret;
}

static void t_named_loads(void **state)
{
	char list[] = "other, osmats\tthird";

	(void)state;
	osm.subn.opt.event_plugin_name = list;
	assert_int_equal(init_capturing_syslog("osmats"), 0);
	assert_int_equal(lines_with(log_path, "7A4A"), 0);
	assert_int_equal(lines_with(sys_path, "7A4A"), 0);
	/* The log object is glue's now. */
	GLUE_LOG(GLUE_LOG_INFO, "glue logs here\n");
	assert_int_equal(lines_with(log_path, "t_named_loads: glue logs here"), 1);
}

/* A layout that moves event_plugin_name reads another string: only a
 * whole name counts. */
static void t_other_name_refused(void **state)
{
	char list[] = "osmatsx,xosmats";

	(void)state;
	osm.subn.opt.event_plugin_name = list;
	assert_int_equal(init_capturing_syslog("osmats"), -EPROTO);
	assert_int_equal(lines_with(log_path, "ERR 7A4A: osmats refused: event_plugin_name reads "
				    "\"osmatsx,xosmats\""), 1);
	assert_int_equal(lines_with(sys_path, "7A4A"), 0);
}

static void t_no_name_refused(void **state)
{
	(void)state;
	osm.subn.opt.event_plugin_name = NULL;
	assert_int_equal(init_capturing_syslog("osmats"), -EPROTO);
	assert_int_equal(lines_with(log_path, "ERR 7A4A: osmats refused: event_plugin_name reads "
				    "\"(null)\""), 1);
}

/* The log object elsewhere than the headers say (its log_file_name is
 * not opt.log_file there): refused before event_plugin_name is read, and
 * said in syslog, never through that log. */
static void t_log_moved_refused(void **state)
{
	char list[] = "osmats", other[sizeof(log_file)];

	(void)state;
	memcpy(other, log_file, sizeof(other));
	osm.subn.opt.event_plugin_name = list;
	osm.subn.opt.log_file = other;
	assert_int_equal(init_capturing_syslog("osmats"), -EPROTO);
	assert_int_equal(lines_with(sys_path, "ERR 7A4A: osmats refused: OpenSM's log object "
				    "is not where"), 1);
	assert_int_equal(lines_with(log_path, "7A4A"), 0);
	osm.subn.opt.log_file = NULL;
	assert_int_equal(init_capturing_syslog("osmats"), -EPROTO);
	assert_int_equal(lines_with(sys_path, "ERR 7A4A"), 1);
	assert_int_equal(lines_with(log_path, "7A4A"), 0);
}

/* "log_file (null)" in opensm.conf (osm_subnet.c opts_parse_charp
 * special-cases the string): opt.log_file is NULL and osm_log_init_v2
 * logs to stdout. A legitimate OpenSM: it loads. */
static void t_null_log_file_loads(void **state)
{
	char list[] = "osmats";

	(void)state;
	osm_log_destroy(&osm.log);
	osm_log_construct(&osm.log);
	assert_int_equal(osm_log_init_v2(&osm.log, TRUE, OSM_LOG_ERROR, NULL, 0, FALSE),
			 IB_SUCCESS);
	osm.subn.opt.log_file = NULL;
	osm.subn.opt.event_plugin_name = list;
	assert_int_equal(init_capturing_syslog("osmats"), 0);
	assert_int_equal(lines_with(sys_path, "7A4A"), 0);
	/* ... but a log object elsewhere still fails: its output is not
	 * stdout there. */
	osm.log.out_port = stderr;
	assert_int_equal(init_capturing_syslog("osmats"), -EPROTO);
	assert_int_equal(lines_with(sys_path, "ERR 7A4A"), 1);
	osm.log.out_port = stdout; /* teardown's osm_log_destroy closes any other */
}

TEST_MAIN(
	FIXTURE_TEST(t_named_loads),
	FIXTURE_TEST(t_other_name_refused),
	FIXTURE_TEST(t_no_name_refused),
	FIXTURE_TEST(t_log_moved_refused),
	FIXTURE_TEST(t_null_log_file_loads))
