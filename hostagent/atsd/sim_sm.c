/* Under ibsim only a node's "SM" client receives unsolicited MADs. Become
 * one without SIM_SET_ISSM: every class that may arrive must have an agent
 * first. OpenSM probes the IsSM capability with SMInfo: the responder
 * refuses it as a port without an SM does, as ibsim would leave an
 * unanswered probe, and OpenSM's sweep, pending. umad2sim's sysfs never
 * changes: port polls read PortInfo from the SMA. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cm.h"
#include "log.h"
#include "sim_sm.h"
#include "smp.h"
#include "vmad.h"

int sim_sm_become(struct mport *port, int cm, int liveness, int ibping)
{
	int ret, dr, fd;

	ret = mport_register_serve(port, SMP_CLASS_LID, 1, MAD_METHOD_GET);
	if (ret < 0)
		return ret;
	dr = mport_register_serve(port, SMP_CLASS_DR, 1, MAD_METHOD_GET);
	if (dr < 0)
		return dr;
	mport_use_sma(port, dr);
	if ((ret = mport_refresh(port)))
		log_warn("ibsim mode: no PortInfo from the port's SMA: %s", strerror(-ret));
	/* Classes a peer may send us although we do not serve them. The CM
	 * class may be refused, as the kernel's CM refuses it on a real host. */
	if (!cm && (ret = mport_register_serve(port, CM_CLASS, CM_CLASS_VERSION, 0x03)) < 0 &&
	    ret != -EIO)
		return ret;
	if (!liveness &&
	    (ret = mport_register_oui(port, VMAD_CLASS_LIVENESS, 1, VMAD_OUI_OPENIB, 1)) < 0)
		return ret;
	if (!ibping &&
	    (ret = mport_register_oui(port, VMAD_CLASS_IBPING, 0, VMAD_OUI_OPENIB, 1)) < 0)
		return ret;
	fd = open("/dev/infiniband/issm0", O_RDWR);
	return fd < 0 ? -errno : fd;
}
