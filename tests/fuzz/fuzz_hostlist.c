/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_hostlist.c - Slurm hostlist expressions, as SLURM_JOB_NODELIST or
 * ibnet-hosts give them. Expressions of more than 20,000 hosts are
 * refused by the harness's own bound (ibnet_hostlist_expand_max): the
 * global cap of a million is tested apart, and would only measure memcpy.
 */
#include "fuzz_common.h"

#include "ibnet_hostlist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibnet_strvec hosts = { 0 };
	struct ibnet_err err = { "" };
	char *s = fuzz_cstring(data, size);

	if (!s)
		return 0;
	if (ibnet_hostlist_expand_max(s, 20000, &hosts, &err) == 0) {
		char *joined = ibnet_strvec_join(&hosts, ",");
		struct ibnet_strvec again = { 0 };

		/* The expansion of an expansion is itself: a plain list is a hostlist. */
		if (joined && hosts.n && ibnet_hostlist_expand_max(joined, 20000, &again, &err) == 0 &&
		    again.n != hosts.n)
			abort();
		ibnet_strvec_free(&again);
		free(joined);
	}
	ibnet_strvec_free(&hosts);
	free(s);
	return 0;
}
