/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_linda.c - a whole Gaussian input (any bytes, NULs and CRs included)
 * through gaussian-ib-input's rewrite with the paper's rule. Checks what
 * must hold: an input without a %LindaWorkers line comes out byte for
 * byte, and nothing crashes, leaks or runs long on any bytes.
 */
#include "fuzz_common.h"

#include <assert.h>

#include "ibnet_gaussian.h"
#include "ibnet_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibnet_rule *rule;
	static const struct ibnet_strvec none = { 0 };
	struct ibnet_err err = { "" };
	struct ibnet_buf out = { 0 };
	const char *in = (const char *)data;

	if (!rule)
		rule = ibnet_rule_parse("s/^c([0-9]+-[0-9]+)$/cib\\1/", &err);
	if (!rule)
		return 0;
	if (ibnet_linda_input_rewrite(rule, &none, in, size, &out, &err) == 0) {
		if (!ibnet_linda_input_has_workers(in, size))
			assert(out.len == size && (size == 0 || memcmp(out.s, in, size) == 0));
	}
	ibnet_buf_free(&out);
	return 0;
}
