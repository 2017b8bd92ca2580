/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_wdef.c - a user's GAUSS_WDEF, rewritten to IB names with the
 * paper's rule, for a job whose hosts are the second line.
 */
#include "fuzz_common.h"

#include "ibnet_gaussian.h"
#include "ibnet_hostlist.h"
#include "ibnet_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibnet_rule *rule;
	struct ibnet_strvec hosts = { 0 };
	struct ibnet_err err = { "" };
	char *s = fuzz_cstring(data, size), *nl, *out;

	if (!rule)
		rule = ibnet_rule_parse("s/^c([0-9]+-[0-9]+)$/cib\\1/", &err);
	if (!s || !rule)
		goto done;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		if (ibnet_hostlist_expand_max(nl + 1, 2000, &hosts, &err) < 0)
			goto done;
	}
	out = ibnet_wdef_rewrite(rule, s, &hosts, &err);
	free(out);
done:
	ibnet_strvec_free(&hosts);
	free(s);
	return 0;
}
