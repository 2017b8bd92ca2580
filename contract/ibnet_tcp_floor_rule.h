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
 *
 * And the floor spread per socket (issue 49): a floor the same for every
 * socket makes the flows a shallow switch port dropped together time out on
 * the same jiffy tick, resend together and be dropped together again
 * (incast). Each socket gets a whole number of jiffies drawn uniformly from
 * the floor's to twice the floor's (Vasudevan et al., SIGCOMM 2009,
 * randomise the timeout per flow). The socket-option tier
 * (alltoall/ibnet_tcp_floor.c) draws per socket from a seeded sequence, the
 * BPF tier from the connection's addresses and ports; both spread with
 * ibnet_floor_spread.
 */
#ifndef IBNET_TCP_FLOOR_RULE_H
#define IBNET_TCP_FLOOR_RULE_H

#define IBNET_FLOOR_LEAST_JIFFIES 2

/*
 * The jiffies the kernel keeps for want_us (usecs_to_jiffies rounds up),
 * and at least its least. hz must not be 0.
 */
static inline unsigned long long ibnet_floor_jiffies(unsigned int want_us, unsigned int hz)
{
	unsigned long long jiffies = ((unsigned long long)want_us * hz + 999999ull) / 1000000ull;

	return jiffies < IBNET_FLOOR_LEAST_JIFFIES ? IBNET_FLOOR_LEAST_JIFFIES : jiffies;
}

/* That many jiffies in microseconds, as the floor is said and set. */
static inline unsigned int ibnet_floor_jiffies_us(unsigned long long jiffies, unsigned int hz)
{
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

static inline unsigned int ibnet_floor_as_kernel_takes(unsigned int want_us, unsigned int hz)
{
	if (!hz)
		return want_us;
	return ibnet_floor_jiffies_us(ibnet_floor_jiffies(want_us, hz), hz);
}

/*
 * splitmix64's finaliser (Steele, Lea and Flood, OOPSLA 2014), its top 32
 * bits: consecutive inputs (a counter, neighbouring ports) come out
 * unrelated, so their spread floors are too. Multiplies and shifts only.
 */
#define IBNET_FLOOR_GOLDEN 0x9e3779b97f4a7c15ull	/* splitmix64's increment */

static inline unsigned long long ibnet_floor_mix64(unsigned long long x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline unsigned int ibnet_floor_mix32(unsigned long long x)
{
	return (unsigned int)(ibnet_floor_mix64(x) >> 32);
}

/*
 * The n-th draw of a process's sequence from its seed: splitmix64 itself
 * (the socket-option tier draws at socket(), before the connection's ports
 * are known).
 */
static inline unsigned int ibnet_floor_sequence_draw(unsigned long long seed, unsigned long long n)
{
	return ibnet_floor_mix32(seed + n * IBNET_FLOOR_GOLDEN);
}

/*
 * One connection's draw from the words that name it (addresses and ports),
 * the same whenever it is asked: the BPF tier sets the floor at connect and
 * again at establishment, and a draw that changed between the two would
 * give one socket two floors.
 */
static inline unsigned int ibnet_floor_flow_draw(const unsigned int *words, unsigned int n)
{
	unsigned long long h = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		h = ibnet_floor_mix64(h + words[i] + IBNET_FLOOR_GOLDEN);
	return (unsigned int)(h >> 32);
}

/*
 * The floor spread by the draw r (uniform over 32 bits): j0, the floor's
 * jiffies as the kernel takes it, plus r's share of j0 + 1, so each of
 * j0 .. 2 x j0 jiffies is as likely (multiply and shift, no division, for
 * the BPF target). Never less than the floor as the kernel takes it (r = 0
 * gives it), never more than the kernel takes, hz / 5 jiffies (200 ms: it
 * refuses more on TCP_RTO_MIN_US and TCP_BPF_RTO_MIN), unless the floor
 * itself was. Said as ibnet_floor_as_kernel_takes says it, so the kernel,
 * or the rule applied again, keeps it as it is. hz 0 (unknown): the floor
 * unspread, since a spread in microseconds would round unevenly.
 */
static inline unsigned int ibnet_floor_spread(unsigned int floor_us, unsigned int hz, unsigned int r)
{
	unsigned long long j0, j, most;

	if (!hz)
		return floor_us;
	j0 = ibnet_floor_jiffies(floor_us, hz);
	j = j0 + (((unsigned long long)r * (j0 + 1)) >> 32);
	most = hz / 5;
	if (most < j0)
		most = j0;
	if (j > most)
		j = most;
	return ibnet_floor_jiffies_us(j, hz);
}

/*
 * The most a socket with a spread floor may hold back an ACK: the floor's
 * own jiffies less one, said as the floor is. Linux 6.11 and later bound a
 * floored socket's delayed ACK by its own floor less a jiffy
 * (tcp_delack_max), so between two sockets with one floor a lone segment's
 * ACK always comes before its sender's timeout; with floors spread, a
 * receiver whose draw was twice its sender's would hold that ACK past it,
 * and the sender would resend the segment for nothing. Each tier therefore
 * sets this beside the spread floor (TCP_DELACK_MAX_US, TCP_BPF_DELACK_MAX),
 * which keeps every socket's ACKs as one floor for all kept them. hz 0: 0
 * (nothing is spread then, and nothing set).
 */
static inline unsigned int ibnet_floor_delack_us(unsigned int floor_us, unsigned int hz)
{
	if (!hz)
		return 0;
	return ibnet_floor_jiffies_us(ibnet_floor_jiffies(floor_us, hz) - 1, hz);
}

#endif
