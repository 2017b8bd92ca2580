/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_window.c - the window's controller (ibnet_a2a_window.h says the
 * rule; docs/architecture.md, "The window", says why this one).
 */
#include "ibnet_a2a_window.h"

#include <stdio.h>

#include "ibnet_a2a_settings.h"

const char *const window_reason_text[WINDOW_REASONS] = {
	[WINDOW_START] = "no paced call yet",
	[WINDOW_FIXED] = "alltoall_window is fixed",
	[WINDOW_GREW] = "the window limited the last call",
	[WINDOW_NOT_FILLED] = "the calls did not fill it",
	[WINDOW_WIRE_BUSY] = "the link was busy (half its rate or more)",
	[WINDOW_LOSS] = "packets were lost: backed off",
	[WINDOW_AT_CEILING] = "within 4x of the window that lost packets",
	[WINDOW_AT_CAP] = "at alltoall_window_max",
	[WINDOW_NO_GAIN] = "more window bought no more throughput",
	[WINDOW_SAMPLING] = "too few calls at this window yet",
	[WINDOW_LOSS_HELD] = "packets were lost at a window that had lost none, at no cost in "
			     "time: held",
};

/* What a growth must buy: the next call receives this much more. */
#define WINDOW_GAIN_LEAST 1.25
/* Calls in a row at under half the plateau's rate that end it. */
#define WINDOW_PLATEAU_LEFT 3
/*
 * The wire counts as busy from half the link's rate (the best of
 * WINDOW_SAMPLES calls at the window). Issue 48 asked for more; 0.7 was
 * tried: on the test cluster's 1 Gbit/s ports of 96 KB the paced call at
 * 16 KiB received 587-880 Mbit/s (2 cores), and the growth to 32 KiB that
 * 0.7 let through overflowed the port (a 10-call job's report: loss
 * ceiling 32 KiB, 402 drops with one trial of the MPI's own), and on the
 * fake 100 Mbit/s port of 24 KB whose hosts carry 70% it would overflow
 * too. The route by measurement, not the window, answers fast ports.
 */
#define WINDOW_BUSY_SHARE 0.5
/*
 * A call that lost packets but received at least this share of the best
 * loss-free call at the same window lost no time to it (no timeout: fast recovery, a
 * busy host's spurious retransmissions). At a window that already carried
 * calls without loss it is counted, and the window held, not backed off
 * (issue 48: on 16 cores such calls walked the window down to 16 KiB on
 * ports that dropped nothing). A first call at a window backs off as before:
 * that is the probe of a port's depth.
 */
#define WINDOW_LOSS_COSTLESS 0.75
/* Calls whose losses add up at one window, at most. */
#define WINDOW_LOSS_CALLS 16

/* Growth per call until the first loss (then halfway to the ceiling): the
 * link's rate over what the node received, within these; with no rate, the
 * most (loss is then the only brake, and 16 KiB to 16 MiB takes 5 calls). */
#define WINDOW_GROWTH_LEAST 2.0
#define WINDOW_GROWTH_MOST 4.0

static unsigned long clamp(const struct window_ctl *c, unsigned long w)
{
	if (w > c->cap)
		w = c->cap;
	if (w < c->least)
		w = c->least;
	return w;
}

void window_ctl_init(struct window_ctl *c, unsigned long start, unsigned long cap, double rate,
		     bool fixed)
{
	*c = (struct window_ctl){ .cap = cap < IBNET_A2A_WINDOW_MIN ? IBNET_A2A_WINDOW_MIN : cap,
				  .rate = rate > 0 ? rate : 0, .fixed = fixed,
				  .reason = fixed ? WINDOW_FIXED : WINDOW_START };
	/*
	 * Never below the start: 16 KiB held the shallowest port measured (24 KB)
	 * with no loss, and on a busy host a window cut to a few KiB by losses
	 * that were not its own (a closing socket's, the MPI's own calls') made
	 * 4 MiB calls 4x slower on the test cluster; below it, a back-off buys
	 * little and costs a round trip per KiB.
	 */
	c->least = start < c->cap ? start : c->cap;
	c->window = fixed ? start : clamp(c, start);
}

unsigned long window_ctl_unpaced(const struct window_ctl *c)
{
	return c->ceiling || c->unpaced_lost ? 0 : c->proven;
}

void window_ctl_unpaced_loss(struct window_ctl *c)
{
	c->unpaced_lost = true;
	c->losses++;
	c->reason = WINDOW_LOSS;
}

/* The window after a call that lost packets at c->window. */
static void back_off(struct window_ctl *c)
{
	if (!c->ceiling || c->window < c->ceiling)
		c->ceiling = c->window;
	c->losses++;
	c->window = c->good && c->good < c->ceiling ? c->good : clamp(c, c->window / 2);
	if (c->good >= c->ceiling)
		c->good = c->window;
	c->reason = WINDOW_LOSS;
}

/* The next window up from a call the window limited. */
static void grow(struct window_ctl *c)
{
	unsigned long next;

	if (c->window > c->good)
		c->good = c->window;
	if (!c->ceiling) {
		/*
		 * What the node received is the window over the round trip the
		 * call really had (queues and busy hosts included, which the
		 * least round trip leaves out): the window that keeps the wire
		 * busy is the link's rate over that, times this window.
		 */
		double factor = c->rate > 0 ? WINDOW_GROWTH_LEAST : WINDOW_GROWTH_MOST, want;

		if (c->rate > 0 && c->gain_base > 0 && c->rate / c->gain_base > factor)
			factor = c->rate / c->gain_base;
		if (factor > WINDOW_GROWTH_MOST)
			factor = WINDOW_GROWTH_MOST;
		want = (double)c->window * factor;
		next = want >= (double)c->cap ? c->cap : (unsigned long)want;
	} else {
		/* Within 4x of where loss began: each probe costs a call with
		 * loss (and, without the floor, a 200 ms retransmission timeout);
		 * on the test cluster's 24 KB ports, two more probes after the
		 * first loss cost Quantum ESPRESSO 4-9% against a fixed 16 KiB. */
		if (c->ceiling <= 4 * c->window) {
			c->reason = WINDOW_AT_CEILING;
			return;
		}
		next = c->window + (c->ceiling - c->window) / 2;
	}
	next = clamp(c, next);
	if (next <= c->window) {
		c->reason = WINDOW_AT_CAP;
		return;
	}
	c->window = next;
	c->reason = WINDOW_GREW;
}

/* The peaks of the last calls, and the least of them. */
static void remember_peak(struct window_ctl *c, unsigned long peak)
{
	int i;

	c->proven = peak;
	for (i = WINDOW_PROVEN_CALLS - 1; i > 0; i--) {
		c->recent[i] = c->recent[i - 1];
		if (c->recent[i] < c->proven)
			c->proven = c->recent[i];
	}
	c->recent[0] = peak;
}

bool window_sample_lossy(const struct window_sample *s)
{
	return s->lost >= WINDOW_LOSS_LEAST &&
	       s->lost * WINDOW_LOSS_PER * WINDOW_SEGMENT > s->received;
}

/*
 * Where the link's rate is known and the node receives well below it, the
 * window may not be what holds it back (busy hosts: on 16 cores a 10 Gbit/s
 * token bucket delivered 2-3 Gbit/s whatever the window). So growth must pay:
 * if the call after a growth received less than WINDOW_GAIN_LEAST times what
 * the call before it did, the window goes back to what it was and stays
 * (a plateau), until the node receives less than half that WINDOW_PLATEAU_LEFT
 * calls in a row (the round trip or the load changed). True where the window stays for that reason. With no
 * rate, loss alone decides (a veth's hosts are its wire).
 */
static bool bought_nothing(struct window_ctl *c, double delivered, double best)
{
	if (c->rate <= 0)
		return false;
	/* The best call at a grown window (WINDOW_SAMPLES of them) against the
	 * best at the old one: a single slow call on a busy host undid a growth
	 * for good before issue 48. */
	if (c->grew_from && best < c->gain_base * WINDOW_GAIN_LEAST) {
		c->window = c->grew_from;
		c->plateau = c->gain_base;
		c->reason = WINDOW_NO_GAIN;
		return true;
	}
	if (c->plateau > 0) {
		/* Three calls in a row at under half: the load or the round trip
		 * changed (one slow call on a busy host is not that). */
		c->slow_calls = delivered < c->plateau / 2 ? c->slow_calls + 1 : 0;
		if (c->slow_calls < WINDOW_PLATEAU_LEFT) {
			c->reason = WINDOW_NO_GAIN;
			return true;
		}
	}
	c->plateau = 0;
	c->slow_calls = 0;
	c->grew_from = c->window;	/* grow() moves it; kept only if it did */
	c->gain_base = best;
	return false;
}

/*
 * Whether the calls at this window lost packets: this call by itself, or
 * the calls since the window last moved, together (at most
 * WINDOW_LOSS_CALLS of them), by the same rule: a port that drops one
 * segment every other call never shows 3 in one small call, and costs a
 * retransmission timeout each time.
 */
static bool lossy_now(struct window_ctl *c, const struct window_sample *s)
{
	struct window_sample sum = { .lost = c->pending_lost + s->lost,
				     .received = c->pending_received + s->received };

	if (window_sample_lossy(s) || window_sample_lossy(&sum)) {
		c->pending_lost = c->pending_received = 0;
		c->pending_calls = 0;
		return true;
	}
	if (++c->pending_calls >= WINDOW_LOSS_CALLS) {
		c->pending_lost = c->pending_received = 0;
		c->pending_calls = 0;
	} else {
		c->pending_lost = sum.lost;
		c->pending_received = sum.received;
	}
	return false;
}

/* What the node received at this window: the best of its last calls (one
 * slow call on a busy host says nothing of the link). */
static double received_here(struct window_ctl *c, double delivered)
{
	double best = delivered;
	int i;

	c->here[c->here_n % WINDOW_SAMPLES] = delivered;
	c->here_n++;
	for (i = 0; i < WINDOW_SAMPLES && i < c->here_n; i++)
		if (c->here[i] > best)
			best = c->here[i];
	return best;
}

unsigned long window_ctl_update(struct window_ctl *c, const struct window_sample *s)
{
	unsigned long before = c->window;
	bool lossy = lossy_now(c, s);
	double best = received_here(c, s->delivered);
	/* Against the calls at this window that lost nothing; not while a
	 * growth is still being judged: a loss there is the probe's. */
	bool costless = lossy && c->here_clean > 0 && !c->grew_from &&
			s->delivered >= WINDOW_LOSS_COSTLESS * c->here_clean;

	c->calls++;
	remember_peak(c, lossy ? 0 : s->peak);
	if (s->round_trip > 0 && (c->round_trip <= 0 || s->round_trip < c->round_trip))
		c->round_trip = s->round_trip;
	c->delivered = s->delivered;
	if (c->fixed) {
		c->losses += lossy;
		return c->window;
	}
	if (costless) {
		c->losses++;
		c->reason = WINDOW_LOSS_HELD;
	} else if (lossy) {
		back_off(c);
	} else if (!s->filled) {
		c->reason = WINDOW_NOT_FILLED;
	} else if (c->rate > 0 && best >= c->rate * WINDOW_BUSY_SHARE) {
		c->reason = WINDOW_WIRE_BUSY;
	} else if (c->rate > 0 && c->here_n < WINDOW_SAMPLES) {
		c->reason = WINDOW_SAMPLING;	/* too few calls at this window to judge */
	} else if (!bought_nothing(c, s->delivered, best)) {
		grow(c);
	}
	if (c->reason != WINDOW_GREW && c->reason != WINDOW_SAMPLING)
		c->grew_from = 0;
	if (!lossy && s->delivered > c->here_clean)
		c->here_clean = s->delivered;
	if (c->window != before) {	/* what was seen at the old window is not this one's */
		c->here_n = 0;
		c->here_clean = 0;
		c->pending_lost = c->pending_received = 0;
		c->pending_calls = 0;
	}
	return c->window;
}

void window_ctl_describe(const struct window_ctl *c, char *out, size_t len)
{
	char w[24], ceiling[24] = "none", rate[32] = "unknown";

	ibnet_a2a_bytes_text(c->window, w, sizeof(w));
	if (c->ceiling)
		ibnet_a2a_bytes_text(c->ceiling, ceiling, sizeof(ceiling));
	if (c->rate > 0)
		snprintf(rate, sizeof(rate), "%.0f Mbit/s", c->rate * 8 / 1e6);
	snprintf(out, len, "window %s after %lu paced call%s (%s); round trip %.3f ms, "
		 "link %s, last call received %.0f Mbit/s, %lu with loss, loss ceiling %s",
		 w, c->calls, c->calls == 1 ? "" : "s", window_reason_text[c->reason],
		 c->round_trip * 1e3, rate, c->delivered * 8 / 1e6, c->losses, ceiling);
}
