/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_choice.c - each call's route chosen by measurement: the rule
 * ibnet_a2a_choice.h states, and its sentence for the report.
 */
#include <stdio.h>
#include <string.h>

#include "ibnet_a2a_choice.h"
#include "ibnet_a2a_settings.h"

int choice_class_of(unsigned long block_bytes)
{
	return block_bytes ? 63 - __builtin_clzl(block_bytes) : 0;
}

/*
 * A new look: paced first, then the MPI's own. The first look gives the
 * window its CHOICE_PACED_FIRST calls to learn the size; a later one only
 * measures the paced route again (the window has learned it).
 */
static void begin_look(struct choice_class *c)
{
	unsigned long looks = c->looks, trial_calls = c->trial_calls;

	memset(c, 0, sizeof(*c));
	c->looks = looks;
	c->trial_calls = trial_calls;
	if (looks)
		c->paced_calls = CHOICE_PACED_FIRST - CHOICE_SAMPLES;
}

static void choose(struct choice_class *c, enum choice_way way, enum choice_why why)
{
	c->chosen = true;
	c->way = way;
	c->why = why;
	c->since = 0;
	c->watched = 0;
	c->watch_calls = CHOICE_WATCH_CALLS;
	c->slow_watches = 0;
	c->looks++;
	c->relook = 0;
	if (way == CHOICE_PACED) {
		/* One own call is the look's cost: let the paced calls between two
		 * looks take CHOICE_RELOOK_COST times that. */
		double calls = c->best[CHOICE_PACED] > 0 ?
			       CHOICE_RELOOK_COST * c->best[CHOICE_OWN] / c->best[CHOICE_PACED] : 0;

		c->relook = calls >= (double)CHOICE_RELOOK_MOST ? CHOICE_RELOOK_MOST :
			    calls <= (double)CHOICE_RELOOK_LEAST ? CHOICE_RELOOK_LEAST :
			    (unsigned long)calls;
	}
}

struct choice_plan choice_next(struct choice_class *c)
{
	struct choice_plan p = { CHOICE_PACED, false, false, false };

	if (c->chosen) {
		p.way = c->way;
		c->since++;
		if (c->way == CHOICE_OWN) {
			p.watch = true;
			if (++c->watched >= choice_watch_calls(c)) {
				p.watch_end = true;
				c->watched = 0;
			}
			return p;
		}
		if (c->since <= c->relook)
			return p;
		begin_look(c);	/* the paced route is looked at again, then the own */
	}
	c->trial_calls++;
	if (c->paced_calls < CHOICE_PACED_FIRST + c->paced_more) {
		c->paced_calls++;
		p.way = CHOICE_PACED;
		p.measure = c->paced_calls > CHOICE_PACED_FIRST - CHOICE_SAMPLES;
		return p;
	}
	c->own_calls++;
	p.way = CHOICE_OWN;
	p.measure = true;
	return p;
}

/* The MPI's own retransmitted more than CHOICE_HEAVY_LOSS of what converged. */
static bool own_lost_heavily(const struct choice_class *c)
{
	return c->lossy[CHOICE_OWN] && c->segments[CHOICE_OWN] &&
	       (double)c->lost[CHOICE_OWN] > CHOICE_HEAVY_LOSS * (double)c->segments[CHOICE_OWN];
}

/* Both routes measured CHOICE_SAMPLES times: the verdict. */
static void decide(struct choice_class *c)
{
	double own = c->best[CHOICE_OWN], paced = c->best[CHOICE_PACED];

	if (own_lost_heavily(c))
		choose(c, CHOICE_PACED, CHOICE_WHY_OWN_LOST);
	else if (!c->lossy[CHOICE_OWN])
		choose(c, own <= paced ? CHOICE_OWN : CHOICE_PACED,
		       own <= paced ? CHOICE_WHY_OWN_FASTER : CHOICE_WHY_PACED_FASTER);
	else if (paced <= CHOICE_LOSS_TOLERANCE * c->worst[CHOICE_OWN])
		choose(c, CHOICE_PACED, CHOICE_WHY_OWN_LOST);
	else
		choose(c, CHOICE_OWN, CHOICE_WHY_OWN_LOST_FASTER);
}

void choice_measured(struct choice_class *c, enum choice_way way, const struct choice_figures *f)
{
	if (c->chosen || (unsigned)way >= CHOICE_WAYS)
		return;
	if (!c->best[way] || f->seconds < c->best[way])
		c->best[way] = f->seconds > 0 ? f->seconds : 1e-9;
	if (f->seconds > c->worst[way])
		c->worst[way] = f->seconds;
	c->lost[way] += f->lost;
	c->segments[way] += f->segments;
	c->lossy[way] = c->lossy[way] || f->lossy;
	if (f->bound > c->bound)
		c->bound = f->bound;
	if (way != CHOICE_OWN) {
		/* Near the bound: the MPI's own could not be much faster. The
		 * rate is the site's or the node's word (a call faster than it,
		 * as on a veth told 10 Gbit/s, still counts as near). */
		if (c->paced_calls < CHOICE_PACED_FIRST || c->bound <= 0)
			return;
		if (c->best[CHOICE_PACED] <= CHOICE_NEAR_BOUND * c->bound)
			choose(c, CHOICE_PACED, CHOICE_WHY_AT_LINK);
		else if (c->best[CHOICE_PACED] <= CHOICE_BUSY_BOUND * c->bound)
			c->paced_more = CHOICE_PACED_MORE;	/* a slow stretch, or the link's */
		return;
	}
	/*
	 * The MPI's own flooded a port and was not faster by more than the
	 * tolerance: no more of it. decide() would choose paced whatever the
	 * trials left gave (it weighs paced against the slowest of them), and
	 * each costs packets: at 8 x 4, 4 KiB on 24 KB ports with the floor,
	 * three trials lost 764 segments where one lost 330.
	 */
	if ((f->lossy && c->best[CHOICE_PACED] > 0 &&
	     c->best[CHOICE_PACED] <= CHOICE_LOSS_TOLERANCE * f->seconds) || own_lost_heavily(c))
		choose(c, CHOICE_PACED, CHOICE_WHY_OWN_LOST);
	else if (c->own_calls >= CHOICE_SAMPLES)
		decide(c);
}

int choice_watch_calls(const struct choice_class *c)
{
	return c->watch_calls >= CHOICE_WATCH_CALLS ? c->watch_calls : CHOICE_WATCH_CALLS;
}

int choice_watch_spacing(double agree, double call_seconds)
{
	double calls = agree > 0 && call_seconds > 0 ?
		       agree / (CHOICE_WATCH_SHARE * call_seconds) : 0;

	return calls >= CHOICE_WATCH_MOST ? CHOICE_WATCH_MOST :
	       calls <= CHOICE_WATCH_CALLS ? CHOICE_WATCH_CALLS : (int)calls + 1;
}

/*
 * The next watch's calls: enough that its agreement, as long as this one's,
 * is at most CHOICE_WATCH_SHARE of their time (f->seconds: a call's mean).
 * Agreed figures in, so every rank spaces its watches alike.
 */
static void space_watches(struct choice_class *c, const struct choice_figures *f)
{
	c->watch_calls = choice_watch_spacing(f->agree, f->seconds);
}

void choice_watched(struct choice_class *c, const struct choice_figures *f)
{
	if (!c->chosen || c->way != CHOICE_OWN)
		return;
	space_watches(c, f);
	/* Loss at once; slowness twice in a row (a shared node's noise is
	 * not a change of the fabric). */
	if (f->seconds > CHOICE_SLOWER * c->best[CHOICE_OWN])
		c->slow_watches++;
	else
		c->slow_watches = 0;
	if (f->lossy || c->slow_watches >= CHOICE_SLOW_WATCHES)
		begin_look(c);
}

/* Each verdict's words; %g: the rule's constant, where it has one (once). */
static const char *const why_text[CHOICE_WHYS] = {
	[CHOICE_WHY_NONE] = "on trial",
	[CHOICE_WHY_OWN_FASTER] = "the MPI's own (no loss, no slower)",
	[CHOICE_WHY_PACED_FASTER] = "paced (the MPI's own took longer)",
	[CHOICE_WHY_OWN_LOST] = "paced (the MPI's own lost packets)",
	[CHOICE_WHY_OWN_LOST_FASTER] = "the MPI's own (it lost packets, but paced took "
				       "more than %gx as long)",
	[CHOICE_WHY_AT_LINK] = "paced (it ran within %gx of the link's bound)",
};
static const double why_constant[CHOICE_WHYS] = {
	[CHOICE_WHY_OWN_LOST_FASTER] = CHOICE_LOSS_TOLERANCE,
	[CHOICE_WHY_AT_LINK] = CHOICE_NEAR_BOUND,
};

static int way_text(const struct choice_class *c, enum choice_way w, char *out, size_t len)
{
	if (!c->best[w])
		return snprintf(out, len, "not measured");
	if (c->lossy[w])
		return snprintf(out, len, "%.2f ms (slowest %.2f ms), lost %lu segments",
				c->best[w] * 1e3, c->worst[w] * 1e3, c->lost[w]);
	return snprintf(out, len, "%.2f ms%s", c->best[w] * 1e3, c->lost[w] ? " (a few "
			"retransmissions, not loss)" : "");
}

void choice_describe(const struct choice_class *c, int cls, char *out, size_t len)
{
	char size[24], next[24], own[80], paced[80], why[120];
	enum choice_why w = c->chosen ? c->why : CHOICE_WHY_NONE;

	ibnet_a2a_bytes_text(cls >= 0 && cls < 62 ? 1ul << cls : 0, size, sizeof(size));
	ibnet_a2a_bytes_text(cls >= 0 && cls < 62 ? 2ul << cls : 0, next, sizeof(next));
	way_text(c, CHOICE_OWN, own, sizeof(own));
	way_text(c, CHOICE_PACED, paced, sizeof(paced));
	snprintf(why, sizeof(why), why_text[w], why_constant[w]);
	snprintf(out, len, "blocks of %s to %s: own %s, paced %s (best of each): %s; %lu "
		 "call%s on trial, %lu look%s", size, next, own, paced, why, c->trial_calls,
		 c->trial_calls == 1 ? "" : "s", c->looks, c->looks == 1 ? "" : "s");
}
