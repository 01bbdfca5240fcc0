#include <string.h>

#include "policy.h"
#include "sa.h"

static const struct {
	const char *name;
	const char *code;
} pol_rules[POL_NRULES] = {
	[POL_PASS] = { "pass", "" },
	[POL_SID_BLOCK] = { "sid-block", "7A01" },
	[POL_NAME] = { "service-name", "7A02" },
	[POL_ADDR] = { "address", "7A03" },
};

void pol_check_set(const uint8_t *mad, size_t len, struct pol_decision *d)
{
	enum ats_verdict v;

	memset(d, 0, sizeof(*d));
	if (len < SA_OFF_DATA + SR_SIZE ||
	    sr_decode(mad + SA_OFF_DATA, len - SA_OFF_DATA, &d->rec))
		return;
	v = ats_record_check(&d->rec, &d->why);
	d->is_ats = v != ATS_NOT_ATS;
	switch (v) {
	case ATS_NOT_ATS:
	case ATS_VALID:
		d->rule = POL_PASS;
		break;
	case ATS_BAD_SID:
		d->rule = POL_SID_BLOCK;
		break;
	case ATS_BAD_NAME:
		d->rule = POL_NAME;
		break;
	case ATS_BAD_ADDR:
		d->rule = POL_ADDR;
		break;
	}
}

const char *pol_rule_name(enum pol_rule r)
{
	return r < POL_NRULES ? pol_rules[r].name : "?";
}

const char *pol_rule_code(enum pol_rule r)
{
	return r < POL_NRULES ? pol_rules[r].code : "7AFF";
}
