/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor_spread.c - the floor spread per socket (contract/ibnet_tcp_floor_rule.h,
 * issue 49) against the kernel's rounding. For HZ of 100, 250, 300, 1000 and
 * 1024 and every floor from 1 to 200 ms, over 65,536 evenly spaced draws:
 * never below the floor (as given, and as the kernel takes it), never above
 * twice the floor's jiffies nor the kernel's 200 ms; a whole number of
 * jiffies the kernel keeps as it is, the rule applied again changing
 * nothing; draw 0 gives the floor as the kernel takes it; and each jiffy
 * from the floor's to twice it drawn within 5% of its share. The draws the
 * tiers make (the preload's seeded sequence, the BPF tier's connections
 * over 16,384 neighbouring ports to 64 hosts) spread as evenly, for every
 * floor to 20 ms and for 50 ms (at least 19,000 draws a jiffy, so 5% is
 * over 7 standard deviations: a failure is the rule's, not chance). Prints the first broken
 * case of each kind, and "SPREAD ok: ..." or "SPREAD broken N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_tcp_floor_rule.h"

#define EVEN_DRAWS 65536u
#define CONNECTIONS (16384u * 64u)
#define HASHED_FLOOR_EVERY_US 20000u	/* the tiers' draws at every floor to this (those jobs ask) */
#define HASHED_FLOOR_MOST_US 50000u	/* and at this, the most jiffies 1M draws still tell apart */
#define MOST_JIFFIES 1024u	/* beyond 2 x 205, the most at HZ=1024 */
#define KERNEL_MOST_US 200000u	/* TCP_RTO_MIN, which the kernel refuses more than */

static unsigned int broken;

/* The kernel's usecs_to_jiffies for these HZ: the microseconds' jiffies, rounded up. */
static unsigned long long kernel_jiffies(unsigned long long us, unsigned int hz)
{
	return (us * hz + 999999ull) / 1000000ull;
}

static void fail(const char *kind, unsigned int hz, unsigned int floor_us, unsigned int r,
		 unsigned int got, const char *why)
{
	static char said[8][16];
	unsigned int i;

	broken++;
	for (i = 0; i < 8 && said[i][0]; i++)
		if (!strcmp(said[i], kind))
			return;	/* one line per kind */
	if (i < 8)
		snprintf(said[i], sizeof(said[i]), "%s", kind);
	printf("%s: HZ %u, floor %u us, draw %#x: %u us (%llu jiffies): %s\n", kind, hz,
	       floor_us, r, got, kernel_jiffies(got, hz), why);
}

/* One draw's spread floor, checked; its jiffies, which the kernel keeps. */
static unsigned long long check_one(unsigned int hz, unsigned int floor_us, unsigned int r)
{
	unsigned int kept = ibnet_floor_as_kernel_takes(floor_us, hz);
	unsigned int got = ibnet_floor_spread(floor_us, hz, r);
	unsigned long long j0 = ibnet_floor_jiffies(floor_us, hz), j = kernel_jiffies(got, hz);
	unsigned long long most = hz / 5 > j0 ? hz / 5 : j0;

	if (got < floor_us || got < kept)
		fail("below", hz, floor_us, r, got, "less than the floor");
	if (j < IBNET_FLOOR_LEAST_JIFFIES)
		fail("least", hz, floor_us, r, got, "fewer than the kernel's 2 jiffies");
	if (j > 2 * j0)
		fail("above", hz, floor_us, r, got, "more than twice the floor's jiffies");
	if (j > most || (got > KERNEL_MOST_US && got > kept))
		fail("kernel", hz, floor_us, r, got, "more than the kernel's 200 ms");
	if (ibnet_floor_as_kernel_takes(got, hz) != got || ibnet_floor_spread(got, hz, 0) != got)
		fail("again", hz, floor_us, r, got, "not kept as it is by the rule applied again");
	return j;
}

/*
 * Each jiffy's count against its share: 1 / (j0 + 1) of the draws, and the
 * capped jiffy those of every jiffy above the kernel's most as well.
 */
static void check_even(const char *kind, unsigned int hz, unsigned int floor_us,
		       const unsigned int *count, unsigned int draws)
{
	unsigned long long j0 = ibnet_floor_jiffies(floor_us, hz), j;
	unsigned long long most = hz / 5 > j0 ? hz / 5 : j0, top = 2 * j0 < most ? 2 * j0 : most;

	for (j = j0; j <= top; j++) {
		double share = (j < top ? 1.0 : (double)(2 * j0 - top + 1)) / (double)(j0 + 1);
		double want = share * draws;

		if (count[j] < want * 0.95 || count[j] > want * 1.05) {
			char why[96];

			snprintf(why, sizeof(why), "drawn %u times of %u, %.0f expected", count[j],
				 draws, want);
			fail(kind, hz, floor_us, 0, ibnet_floor_jiffies_us(j, hz), why);
		}
	}
}

int main(void)
{
	static const unsigned int hzs[] = { 100, 250, 300, 1000, 1024 };
	static unsigned int count[MOST_JIFFIES];
	unsigned int *flows = malloc(CONNECTIONS * sizeof(*flows));
	unsigned int *sequence = malloc(CONNECTIONS * sizeof(*flows));
	unsigned int i, k, floor_us, cases = 0;

	if (!flows || !sequence) {
		printf("SPREAD broken: no memory for the draws\n");
		return 1;
	}
	/* The BPF tier's words (ibnet_tcp_floor.bpf.c): 10.0.0.1 to 64 hosts, neighbouring ports. */
	for (i = 0; i < CONNECTIONS; i++) {
		unsigned int words[] = { 2 /* AF_INET */, 0x0a000001u, 0x0a000100u + i / 16384,
					 0, 0, 0, 0, 0, 0, 0, 0, 32768 + i % 16384, 0x3930 };

		flows[i] = ibnet_floor_flow_draw(words, sizeof(words) / sizeof(words[0]));
		sequence[i] = ibnet_floor_sequence_draw(0x1234567890abcdefull, i + 1);
	}
	for (k = 0; k < sizeof(hzs) / sizeof(hzs[0]); k++) {
		unsigned int hz = hzs[k];

		for (floor_us = 1000; floor_us <= 200000; floor_us += 1000) {
			if (ibnet_floor_spread(floor_us, hz, 0) != ibnet_floor_as_kernel_takes(floor_us, hz))
				fail("zero", hz, floor_us, 0, ibnet_floor_spread(floor_us, hz, 0),
				     "draw 0 is not the floor as the kernel takes it");
			/* The delayed-ACK bound: one jiffy under the floor's, as the
			 * kernel keeps it, whatever the draw. */
			{
				unsigned int d = ibnet_floor_delack_us(floor_us, hz);
				unsigned long long j0 = ibnet_floor_jiffies(floor_us, hz);

				if (!d || ((unsigned long long)d * hz + 999999ull) / 1000000ull != j0 - 1 ||
				    d >= ibnet_floor_as_kernel_takes(floor_us, hz))
					fail("delack", hz, floor_us, 0, d,
					     "the delayed-ACK bound is not the floor's jiffies less one");
				cases++;
			}
			check_one(hz, floor_us, 0xffffffffu);
			memset(count, 0, sizeof(count));
			for (i = 0; i < EVEN_DRAWS; i++)
				count[check_one(hz, floor_us, i * (0x100000000ull / EVEN_DRAWS))]++;
			check_even("even", hz, floor_us, count, EVEN_DRAWS);
			cases += EVEN_DRAWS + 2;
			if (floor_us > HASHED_FLOOR_EVERY_US && floor_us != HASHED_FLOOR_MOST_US)
				continue;
			memset(count, 0, sizeof(count));
			for (i = 0; i < CONNECTIONS; i++)
				count[check_one(hz, floor_us, flows[i])]++;
			check_even("connections", hz, floor_us, count, CONNECTIONS);
			memset(count, 0, sizeof(count));
			for (i = 0; i < CONNECTIONS; i++)
				count[check_one(hz, floor_us, sequence[i])]++;
			check_even("sequence", hz, floor_us, count, CONNECTIONS);
			cases += 2 * CONNECTIONS;
		}
	}
	if (ibnet_floor_delack_us(12345, 0) != 0)
		fail("delack", 0, 12345, 0, ibnet_floor_delack_us(12345, 0), "HZ unknown, but bounded");
	if (ibnet_floor_spread(12345, 0, 0xffffffffu) != 12345)
		fail("unknown", 0, 12345, 0xffffffffu, ibnet_floor_spread(12345, 0, 0xffffffffu),
		     "HZ unknown, but spread");
	free(flows);
	free(sequence);
	if (broken)
		printf("SPREAD broken %u\n", broken);
	else
		printf("SPREAD ok: %u draws at HZ 100, 250, 300, 1000 and 1024, floors 1-200 ms\n",
		       cases);
	return broken ? 1 : 0;
}
