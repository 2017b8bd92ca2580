/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * window_ctl.c - drives the window's controller (alltoall/ibnet_a2a_window.c)
 * with a fake clock and a fake switch port, call after call, and checks where
 * it settles, within how many calls, and that it never passes its cap or a
 * window that lost packets. Prints each scenario's path; exits non-zero on
 * the first broken expectation.
 *
 * The port: a link of `rate` bytes/s behind a queue of `buffer` bytes. A
 * call puts `fanin` bytes towards the node; the window lets at most W of
 * them be in flight. In flight above buffer + rate x round trip is dropped
 * (what the wire drains during a round trip plus what the queue holds); the
 * call's delivery rate is min(rate, W / round trip) times `efficiency` (what
 * the hosts' CPUs let through).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_window.h"

struct port {
	const char *name;
	double rate;		/* bytes/s of the link */
	double buffer;		/* bytes the port queues before it drops */
	double round_trip;	/* seconds, the credit's, no data */
	double efficiency;	/* fraction of the link the hosts reach */
	double fanin;		/* bytes one call makes converge on the port */
	double told_rate;	/* what the node's interface says (0: nothing) */
	double hosts;		/* bytes/s the hosts carry at most, whatever the window (0: no bound) */
};

/*
 * What the hosts add to a port's calls (every figure 0: nothing): segments
 * retransmitted that the port did not drop (late ACKs, other sockets), in
 * every lost_every-th call (1: every call); and every slow_every-th call
 * received at slow_rate, the host busy elsewhere. Calls count from 1.
 */
struct noise {
	unsigned long lost;
	int lost_every;
	int slow_every;
	double slow_rate;
};

static int failures;

static void expect(int ok, const char *what, const char *scenario)
{
	printf("%s: %s: %s\n", ok ? "ok" : "FAIL", scenario, what);
	if (!ok)
		failures++;
}

/* One call on the port with window w: the sample the exchange would take. */
static struct window_sample call_on(const struct port *p, unsigned long w, double round_trip)
{
	struct window_sample s = { 0 };
	double in_flight = (double)w < p->fanin ? (double)w : p->fanin;
	double holds = p->buffer + p->rate * round_trip, by_window = (double)w / round_trip;

	s.filled = (double)w < p->fanin;
	s.lost = in_flight > holds ? (unsigned long)((in_flight - holds) / 1448 + 1) : 0;
	s.round_trip = round_trip;
	s.delivered = (by_window < p->rate ? by_window : p->rate) * p->efficiency;
	if (p->hosts > 0 && s.delivered > p->hosts)
		s.delivered = p->hosts;
	s.peak = (unsigned long)in_flight;
	s.received = (unsigned long)p->fanin;
	return s;
}

/*
 * Run `calls` calls, with the hosts' noise n (NULL: none); the round trip
 * becomes rt_after from call `change`. Returns the window at the end;
 * *settled_at: the call after which the window last changed; *losses: calls
 * with loss by themselves; *most: the largest window. Fails any call whose
 * window reached the loss ceiling (above the start), passed the cap, or went
 * below the start.
 */
static unsigned long run(const struct port *p, const struct noise *n, struct window_ctl *c,
			 int calls, int change, double rt_after, int *settled_at,
			 unsigned long *losses, unsigned long *most, unsigned long *most_after_loss)
{
	unsigned long before, first_ceiling = 0;
	int i;
	char line[400];

	*settled_at = 0, *losses = 0, *most = c->window, *most_after_loss = 0;
	printf("# %s\n", p->name);
	for (i = 1; i <= calls; i++) {
		double rt = i >= change ? rt_after : p->round_trip;
		struct window_sample s = call_on(p, c->window, rt);

		if (n && n->lost_every && i % n->lost_every == 0)
			s.lost += n->lost;
		if (n && n->slow_every && i % n->slow_every == 0)
			s.delivered = n->slow_rate;
		before = c->window;
		*losses += window_sample_lossy(&s);
		window_ctl_update(c, &s);
		if (c->window != before)
			*settled_at = i;
		if (c->window > *most)
			*most = c->window;
		if (c->ceiling && !first_ceiling)
			first_ceiling = c->ceiling;
		if (first_ceiling && c->window > *most_after_loss)
			*most_after_loss = c->window;
		if (c->window != before || i == 1 || i == calls)
			printf("#   call %2d: window %8lu -> %8lu  filled %d lost %4lu  (%s)\n", i,
			       before, c->window, s.filled, s.lost, window_reason_text[c->reason]);
		/* At its start the window stays, loss or not (never below it). */
		if (c->ceiling && c->window >= c->ceiling && c->window > c->least)
			expect(0, "the window reached the loss ceiling", p->name);
		if (c->window > c->cap)
			expect(0, "the window passed its cap", p->name);
		if (!c->fixed && c->window < c->least)
			expect(0, "the window went below its start", p->name);
	}
	window_ctl_describe(c, line, sizeof(line));
	printf("# %s\n", line);
	return c->window;
}

#define KiB 1024ul
#define MiB (1024ul * 1024)
#define GBIT (1e9 / 8)
#define MBIT (1e6 / 8)

/*
 * The rules issue 48 mended (window_ctl --mends; tests/unit/route-choice.bats):
 * a loss that cost no time at a window that had carried calls without one
 * holds the window; a growth is judged on the best of the calls at the new
 * window, not on its first (a slow call on a busy host undid it for good).
 */
static int mends(void)
{
	struct window_ctl c;
	unsigned long w, losses, most, most_after, least = 0;
	int settled, i;

	{
		/* A busy host: 5 segments retransmitted every 7th call (late ACKs,
		 * tail loss probes), which the rule counts as loss, on a port that
		 * drops nothing; the calls lose no time to them. The window has
		 * settled by then (within 6 calls, above): a loss at a window's
		 * first call still backs off, as the probe of a port's depth. */
		struct port p = { "deep port, rate unknown, 4 x 1 MiB per pair, 5 spurious "
				  "retransmissions every 7th call", 4.5 * GBIT, 64.0 * MiB, 150e-6,
				  0.9, 3.0 * MiB, 0, 0 };
		struct noise n = { 5, 7, 0, 0 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, &n, &c, 6, 999, 0, &settled, &losses, &most, &most_after);
		least = w;
		for (i = 0; i < 8; i++) {
			w = run(&p, &n, &c, 7, 999, 0, &settled, &losses, &most, &most_after);
			if (w < least)
				least = w;
		}
		expect(least >= 3 * MiB, "after its first 6 calls the window never falls below "
		       "the call in 56 more, 8 of them with retransmissions", p.name);
		expect(w >= 3 * MiB, "and holds the whole call at the end", p.name);
	}
	{
		/* Every other call received at 100 MB/s (the host busy elsewhere). */
		struct port p = { "512 KB port, 10 Gbit/s, rate told, every other call slow",
				  10 * GBIT, 512e3, 100e-6, 0.9, 12.0 * MiB, 10 * GBIT, 0 };
		struct noise n = { 0, 0, 2, 100e6 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, &n, &c, 40, 999, 0, &settled, &losses, &most, &most_after);
		expect(w >= 100 * KiB, "grows to cover most of rate x round trip (125 KB)", p.name);
		expect(losses == 0, "no call lost packets", p.name);
	}
	printf("%s\n", failures ? "FAILED" : "all expectations held");
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct window_ctl c;
	unsigned long w, losses, most, most_after;
	int settled;

	if (argc > 1 && !strcmp(argv[1], "--mends"))
		return mends();

	/* 1. Deep port, a few Gbit/s, the interface's rate unknown (veth as the
	 * test cluster's unshaped nodes): grows until the window holds the call. */
	{
		struct port p = { "deep port, rate unknown, 4 x 1 MiB per pair", 4.5 * GBIT,
				  64.0 * MiB, 150e-6, 0.9, 3.0 * MiB, 0, 0 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, NULL, &c, 20, 999, 0, &settled, &losses, &most, &most_after);
		expect(w >= 3 * MiB, "settles at a window that holds the whole call", p.name);
		expect(settled <= 6, "within 6 calls", p.name);
		expect(c.proven >= 3 * MiB, "the port has taken the whole call unpaced", p.name);
		expect(losses == 0, "no call lost packets", p.name);
		expect(c.reason == WINDOW_NOT_FILLED, "stops because the calls no longer fill it",
		       p.name);
	}
	/* 2. The same with the cap at 1 MiB: never past it. */
	{
		struct port p = { "deep port, cap 1 MiB", 4.5 * GBIT, 64.0 * MiB, 150e-6, 0.9,
				  12.0 * MiB, 0, 0 };

		window_ctl_init(&c, 16 * KiB, 1 * MiB, p.told_rate, false);
		w = run(&p, NULL, &c, 20, 999, 0, &settled, &losses, &most, &most_after);
		expect(w == 1 * MiB && most == 1 * MiB, "settles at the cap, never above", p.name);
		expect(c.reason == WINDOW_AT_CAP, "says it is at the cap", p.name);
	}
	/* 3. A port that loses above 96 KB at 1 Gbit/s, rate unknown: backs off
	 * below the loss, never returns to where loss began. */
	{
		struct port p = { "96 KB port, 1 Gbit/s, rate unknown", 1 * GBIT, 96e3, 300e-6, 0.9,
				  7.0 * MiB, 0, 0 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, NULL, &c, 30, 999, 0, &settled, &losses, &most, &most_after);
		expect(w <= 96e3 + 1 * GBIT * 300e-6, "settles where the port holds it", p.name);
		expect(w >= 32 * KiB, "and above the start", p.name);
		expect(losses <= 3, "at most 3 calls with loss", p.name);
		expect(settled <= 8, "within 8 calls", p.name);
	}
	/* 4. The same port with the link's rate told: twice rate x round trip at
	 * once, below the port's loss, no call lost. */
	{
		struct port p = { "96 KB port, 1 Gbit/s, rate told", 1 * GBIT, 96e3, 300e-6, 0.9,
				  7.0 * MiB, 1 * GBIT, 0 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, NULL, &c, 20, 999, 0, &settled, &losses, &most, &most_after);
		expect(losses == 0, "no call lost packets", p.name);
		expect(w >= 1 * GBIT * 300e-6, "covers rate x round trip", p.name);
		expect(settled <= 4, "within 4 calls (3 judge the start)", p.name);
		expect(c.reason == WINDOW_WIRE_BUSY, "stops because the wire is busy", p.name);
	}
	/* 5. The test cluster's lossy switch: 100 Mbit/s, 24 KB, rate told. The
	 * start (16 KiB) already keeps the wire busy: nothing moves, nothing lost. */
	{
		struct port p = { "24 KB port, 100 Mbit/s, rate told", 100 * MBIT, 24e3, 500e-6, 0.7,
				  112.0 * KiB, 100 * MBIT, 0 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, NULL, &c, 20, 999, 0, &settled, &losses, &most, &most_after);
		expect(w == 16 * KiB && losses == 0, "stays at 16 KiB, no loss", p.name);
	}
	/* 6. A round trip that grows 10x mid-run (a loaded node): the window
	 * grows again to keep the wire busy, below the port's loss. */
	{
		struct port p = { "512 KB port, 10 Gbit/s, round trip 50 us then 500 us", 10 * GBIT,
				  512e3, 50e-6, 0.9, 12.0 * MiB, 10 * GBIT, 0 };
		unsigned long before;

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		run(&p, NULL, &c, 10, 999, 0, &settled, &losses, &most, &most_after);
		before = c.window;
		p.name = "512 KB port, 10 Gbit/s, the round trip now 500 us";
		p.round_trip = 500e-6;
		w = run(&p, NULL, &c, 15, 0, 500e-6, &settled, &losses, &most, &most_after);
		expect(before >= 10 * GBIT * 50e-6, "covered rate x round trip before", p.name);
		expect(w > before && w >= 10 * GBIT * 500e-6, "grows after the round trip grew, "
		       "to cover it again", p.name);
		expect(c.ceiling == 0 || w < c.ceiling, "stays below the loss ceiling", p.name);
	}
	/* 7. A fixed window (alltoall_window=64k): never moves, loss or not. */
	{
		struct port p = { "fixed 64 KiB on a 24 KB port", 100 * MBIT, 24e3, 500e-6, 0.9,
				  1.0 * MiB, 0, 0 };

		window_ctl_init(&c, 64 * KiB, 64 * KiB, 0, true);
		w = run(&p, NULL, &c, 5, 999, 0, &settled, &losses, &most, &most_after);
		expect(w == 64 * KiB && settled == 0 && c.losses == 5,
		       "keeps 64 KiB and counts the losses", p.name);
	}
	/* 9. Busy hosts behind a 10 Gbit/s port of 512 KB (16 cores here: the
	 * token bucket delivered 2-3 Gbit/s whatever the window): the window
	 * stops where more bought nothing, below where the port drops. */
	{
		struct port p = { "512 KB port, 10 Gbit/s, hosts that carry 2.5 Gbit/s", 10 * GBIT,
				  512e3, 30e-6, 1.0, 12.0 * MiB, 10 * GBIT, 2.5 * GBIT };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		w = run(&p, NULL, &c, 20, 999, 0, &settled, &losses, &most, &most_after);
		expect(losses == 0 && most < 512e3, "no loss, never past the port", p.name);
		expect(c.reason == WINDOW_NO_GAIN, "stops because more bought nothing", p.name);
		expect(w >= 2.5 * GBIT * 30e-6, "still covers what the hosts carry", p.name);
	}
	/* 10. Losses not of the window's making, every call (a closing socket's,
	 * the MPI's own calls'): the window backs off, never below the start. */
	{
		struct port p = { "deep port, 50 retransmissions every call", 4.5 * GBIT, 64.0 * MiB,
				  150e-6, 0.9, 3.0 * MiB, 0, 0 };
		struct noise n = { .lost = 50, .lost_every = 1 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, 0, false);
		w = run(&p, &n, &c, 12, 999, 0, &settled, &losses, &most, &most_after);
		/* run() fails any call below the start: 16 KiB is the least. */
		expect(w == 16 * KiB && c.losses == 12, "never below 16 KiB", p.name);
	}
	/* 11. What goes unpaced: the port's proven level while nothing was ever
	 * lost; nothing once calls that went to the MPI's own lost packets. */
	{
		struct port p = { "deep port, then the MPI's own calls lose", 4.5 * GBIT, 64.0 * MiB,
				  150e-6, 0.9, 3.0 * MiB, 0, 0 };
		unsigned long before;

		window_ctl_init(&c, 16 * KiB, 16 * MiB, 0, false);
		run(&p, NULL, &c, 10, 999, 0, &settled, &losses, &most, &most_after);
		before = window_ctl_unpaced(&c);
		window_ctl_unpaced_loss(&c);
		expect(before >= 3 * MiB && window_ctl_unpaced(&c) == 0,
		       "3 MiB unpaced before, nothing after", p.name);
	}
	/* 12. The test cluster's 24 KB port at 100 Mbit/s under Quantum ESPRESSO on
	 * 2 cores: one call in four is slow (the host, not the link: 20% of the
	 * rate), and the port drops a segment every other call even at 16 KiB.
	 * The window must stay at 16 KiB: a slow call is no reason to grow, and
	 * the drops, a few per call, add up to loss. */
	{
		struct port p = { "24 KB port, 100 Mbit/s, a slow call in four, a drop every other call",
				  100 * MBIT, 24e3, 500e-6, 0.9, 77.0 * KiB, 100 * MBIT, 0 };
		struct noise n = { .lost = 1, .lost_every = 2, .slow_every = 4,
				   .slow_rate = 0.2 * 100 * MBIT };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, p.told_rate, false);
		run(&p, &n, &c, 40, 999, 0, &settled, &losses, &most, &most_after);
		expect(most == 16 * KiB, "never above 16 KiB", p.name);
		expect(c.losses >= 1 && c.ceiling == 16 * KiB, "the drops add up to loss at 16 KiB",
		       p.name);
	}
	/* 8. A busy host: two segments retransmitted every call on a deep port
	 * (late ACKs, no drop): not loss; the window grows as on a quiet one. */
	{
		struct port p = { "deep port, 2 spurious retransmissions a call", 4.5 * GBIT,
				  64.0 * MiB, 150e-6, 0.9, 3.0 * MiB, 0, 0 };
		struct noise n = { .lost = 2, .lost_every = 1 };

		window_ctl_init(&c, 16 * KiB, 16 * MiB, 0, false);
		run(&p, &n, &c, 12, 999, 0, &settled, &losses, &most, &most_after);
		expect(c.losses == 0 && c.window >= 3 * MiB,
		       "no loss counted, the window holds the whole call", p.name);
	}
	printf("%s\n", failures ? "FAILED" : "all expectations held");
	return failures ? 1 : 0;
}
