/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_rule.c - the hostname rule: the first line is an ib_hostname rule
 * (s/REGEX/REPLACEMENT/; file: rules read files and are left to the unit
 * tests), each further line a node name to map.
 */
#include "fuzz_common.h"

#include "ibnet_rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibnet_err err = { "" };
	struct ibnet_rule *rule;
	char *s = fuzz_cstring(data, size), *line, *save = NULL;

	if (!s)
		return 0;
	line = strtok_r(s, "\n", &save);
	if (line && strncmp(line, "s/", 2) == 0 && (rule = ibnet_rule_parse(line, &err))) {
		int n = 0;

		while ((line = strtok_r(NULL, "\n", &save)) && n++ < 64)
			free(ibnet_rule_apply(rule, line, &err));
		ibnet_rule_free(rule);
	}
	free(s);
	return 0;
}
