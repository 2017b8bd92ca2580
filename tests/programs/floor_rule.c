/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor_rule.c - the BPF floor's rounding (contract/ibnet_tcp_floor_rule.h)
 * against the kernel's: for every request from 1 to 200 ms and HZ of 100,
 * 250, 300, 1000 and 1024, the floor said is a whole number of jiffies the
 * kernel keeps as it is (usecs_to_jiffies rounds up), at least 2 and no
 * fewer than asked, and the rule applied again (as the program does on
 * what the loader wrote) gives it back unchanged. Prints the first broken
 * case of each HZ, and "RULE ok" or "RULE broken N".
 */
#include <stdio.h>

#include "ibnet_tcp_floor_rule.h"

/* The kernel's usecs_to_jiffies for these HZ: the microseconds' jiffies, rounded up. */
static unsigned long long kernel_jiffies(unsigned long long us, unsigned int hz)
{
	return (us * hz + 999999ull) / 1000000ull;
}

int main(void)
{
	static const unsigned int hzs[] = { 100, 250, 300, 1000, 1024 };
	unsigned int i, want, broken = 0;

	for (i = 0; i < sizeof(hzs) / sizeof(hzs[0]); i++) {
		unsigned int hz = hzs[i];
		int said = 0;

		for (want = 1000; want <= 200000; want += 1000) {
			unsigned int got = ibnet_floor_as_kernel_takes(want, hz);
			unsigned long long asked = kernel_jiffies(want, hz), kept = kernel_jiffies(got, hz);

			if (asked < IBNET_FLOOR_LEAST_JIFFIES)
				asked = IBNET_FLOOR_LEAST_JIFFIES;
			if (kept == asked && ibnet_floor_as_kernel_takes(got, hz) == got)
				continue;
			broken++;
			if (!said++)
				printf("HZ %u: %u us asked, %u us said, which the kernel keeps as %llu "
				       "jiffies (%llu asked); again: %u us\n", hz, want, got, kept, asked,
				       ibnet_floor_as_kernel_takes(got, hz));
		}
	}
	if (broken)
		printf("RULE broken %u\n", broken);
	else
		printf("RULE ok\n");
	return broken ? 1 : 0;
}
