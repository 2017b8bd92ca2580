/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_common.h - shared by the libFuzzer harnesses of tests/fuzz.
 *
 * Each harness feeds one of spank-ibnet's parsers the bytes libFuzzer
 * makes, as the plugin would meet them in srun, sbatch or slurmstepd.
 * Built with ASan and UBSan (make fuzz); a crash, leak, sanitizer report
 * or an input slower than 1 s is a finding.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The input as a C string (NUL bytes end it, as they would in argv or environ). */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#endif
