/* LD_PRELOAD shim, stacked before libumad2sim.so: umad_register() of the
 * management class in UMAD_BUSY_CLASS fails with -EPERM, as libibumad
 * answers when the kernel already serves that class on the port (the
 * kernel's ib_cm owns class 0x07 on a real host: ib_register_mad_agent
 * refuses a method in use). Every other registration goes through. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include <infiniband/umad.h>

typedef int (*register_fn)(int, int, int, uint8_t, long[16 / sizeof(long)]);

int umad_register(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
		  long method_mask[16 / sizeof(long)])
{
	static register_fn next;
	const char *busy = getenv("UMAD_BUSY_CLASS");

	if (busy && strtol(busy, NULL, 0) == mgmt_class)
		return -EPERM;
	if (!next)
		next = (register_fn)dlsym(RTLD_NEXT, "umad_register");
	return next ? next(fd, mgmt_class, mgmt_version, rmpp_version, method_mask) : -ENOSYS;
}
