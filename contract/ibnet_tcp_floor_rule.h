/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tcp_floor_rule.h - the floor as the kernel takes it through
 * bpf_setsockopt(TCP_BPF_RTO_MIN): in whole jiffies (usecs_to_jiffies
 * rounds up), and at least 2 of them (TCP_TIMEOUT_MIN: the kernel refuses
 * less, and the socket would keep Linux's 200 ms). One rule for the program
 * (tcp-floor-bpf/ibnet_tcp_floor.bpf.c, which sets it) and its loader
 * (spank-ibnet/ibnet_bpf_floor.c, which says it in the step's log line):
 * both include this file. hz is the kernel's CONFIG_HZ, 0 where unknown
 * (the request is then passed as it is).
 */
#ifndef IBNET_TCP_FLOOR_RULE_H
#define IBNET_TCP_FLOOR_RULE_H

#define IBNET_FLOOR_LEAST_JIFFIES 2

static inline unsigned int ibnet_floor_as_kernel_takes(unsigned int want_us, unsigned int hz)
{
	unsigned long long jiffies;

	if (!hz)
		return want_us;
	jiffies = ((unsigned long long)want_us * hz + 999999ull) / 1000000ull;
	if (jiffies < IBNET_FLOOR_LEAST_JIFFIES)
		jiffies = IBNET_FLOOR_LEAST_JIFFIES;
	/*
	 * The most microseconds that are still that many jiffies (the kernel
	 * rounds up): at an HZ that does not divide a million (300), the least
	 * microseconds at or above them, 13,334 for 4 jiffies, were 4.0002
	 * jiffies, so the program, applying this rule again, set 5 and the
	 * kernel took 16.7 ms for 12 ms asked (issue 50). Applied twice, this
	 * gives what it gave once.
	 */
	return (unsigned int)(jiffies * 1000000ull / hz);
}

#endif
