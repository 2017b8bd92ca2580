/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_config.c - plugstack.conf arguments: ibnet_config_parse, and the site default alone. */
#include "fuzz_common.h"

#include "ibnet_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibnet_strvec args = { 0 };
	struct ibnet_config cfg;
	struct ibnet_err err = { "" };
	enum ibnet_transport t;
	char *s = fuzz_cstring(data, size);

	if (!s || ibnet_strvec_split(&args, s, " \t\n") < 0 || args.n > 64)
		goto out;
	ibnet_config_default_transport((int)args.n, args.v, &t);
	if (ibnet_config_parse(&cfg, (int)args.n, args.v, &err) == 0) {
		for (t = 0; t < IBNET_TRANSPORT_COUNT; t++)
			ibnet_transport_check_allowed(&cfg, t, "--transport", &err);
		ibnet_config_free(&cfg);
	}
out:
	ibnet_strvec_free(&args);
	free(s);
	return 0;
}
