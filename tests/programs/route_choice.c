/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * route_choice.c - drives the route by measurement (alltoall/ibnet_a2a_choice.c)
 * with a fake clock and a fake loss feed, call after call, for several ranks
 * at once, as ibnet_a2a_route.c does: each rank holds its own class table,
 * times the call on its own (noisy) clock, and every rank is fed the agreed
 * figures (the slowest rank's time, the most retransmissions). Checks which
 * route each fabric gets, within how many calls, what the trials cost, and
 * that every rank takes the same route on every call. Prints each
 * expectation as it held; exits non-zero if one did not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_choice.h"
#include "ibnet_a2a_window.h"

#define RANKS 4
/* The bytes converging on the busiest port a call (4 x 1, 1 MiB per pair). */
#define CALL_FANIN (3ul * 1024 * 1024)

/* What a call of each route costs on a fabric, and what it loses. */
struct fabric {
	double seconds[CHOICE_WAYS];	/* the slowest rank's time, before noise */
	unsigned long lost[CHOICE_WAYS];	/* segments a node retransmits in the call */
	double bound;			/* the link's bound, s (0: rate unknown) */
	double agree;			/* a watch's agreement (one small allreduce), s */
};

static const struct fabric fast = { { 1.0e-3, 2.4e-3 }, { 0, 0 }, 0, 30e-6 };	/* unshaped, 1 MiB */
/* 100 Mbit/s, 24 KB ports, 8 x 4 at 4 KiB: the 16-core storm. */
static const struct fabric storm = { { 2.1, 0.040 }, { 9208, 0 }, 0, 0.5e-3 };
static const struct fabric storm_told = { { 2.1, 0.040 }, { 9208, 0 }, 0.0385, 0.5e-3 };
/* The MPI's own loses, yet paced is far slower (a port that loses a little). */
static const struct fabric lossy_quick = { { 1.0e-3, 3.0e-3 }, { 40, 0 }, 0, 30e-6 };
/* 1 Gbit/s ports of 96 KB, 4 x 1, 1 MiB (bound 25.2 ms): paced 30 ms, but 36 ms
 * in a shared host's slow stretch; the MPI's own 46 ms, losing 600 segments. */
static const struct fabric gige96k = { { 46e-3, 30e-3 }, { 600, 0 }, 25.2e-3, 0.2e-3 };
/* The link busy and the MPI's own the faster: bound 2.5 ms, paced 4.2 ms, own 3.0 ms. */
static const struct fabric busy_own = { { 3.0e-3, 4.2e-3 }, { 0, 0 }, 2.5e-3, 30e-6 };
/* 16 x 1 at 4 KiB, 100 Gbit/s, deep ports (the model, issue 51): a call of the MPI's
 * own 50 us, paced 280 us, a watch's agreement 96 us. */
static const struct fabric small_fast = { { 50e-6, 280e-6 }, { 0, 0 }, 0, 96e-6 };

struct run {
	struct choice_class c[RANKS];
	double watch[RANKS];		/* each rank's time in the watch so far */
	unsigned long watch_lost;
	int calls[CHOICE_WAYS];
	int measured_own;		/* own calls that were trials */
	double trial_cost;		/* time over what the chosen route would have taken */
	double agree;			/* the last watch's agreement, s */
	int watches;
	double agree_cost;		/* the watches' agreements, s */
	int disagreements;
	unsigned seed;
};

static int failures;

static void expect(int ok, const char *scenario, const char *what)
{
	printf("%s: %s: %s\n", ok ? "ok" : "FAIL", scenario, what);
	if (!ok)
		failures++;
}

/* Each rank's clock: the fabric's time, up to `noise` more (a shared host). */
static double rank_time(struct run *r, double base, double noise)
{
	r->seed = r->seed * 1103515245u + 12345u;
	return base * (1 + noise * (double)((r->seed >> 16) & 0x7fff) / 32767.0);
}

static bool lossy(unsigned long lost, unsigned long calls)
{
	struct window_sample s = { 0 };

	s.lost = lost;
	s.received = calls * CALL_FANIN;
	return window_sample_lossy(&s);
}

/* One call on fabric f, every rank; returns the route rank 0 took. */
static enum choice_way call(struct run *r, const struct fabric *f, double noise)
{
	struct choice_plan p[RANKS];
	struct choice_figures fig = { 0, 0, false, f->bound, 0, CALL_FANIN / WINDOW_SEGMENT };
	enum choice_way way;
	int k;

	for (k = 0; k < RANKS; k++) {
		p[k] = choice_next(&r->c[k]);
		if (p[k].way != p[0].way || p[k].measure != p[0].measure ||
		    p[k].watch_end != p[0].watch_end)
			r->disagreements++;
	}
	way = p[0].way;
	r->calls[way]++;
	for (k = 0; k < RANKS; k++) {
		double t = rank_time(r, f->seconds[way], noise);

		if (t > fig.seconds)
			fig.seconds = t;
		if (p[k].watch)
			r->watch[k] += t;
	}
	fig.lost = f->lost[way];
	if (p[0].measure) {
		fig.lossy = lossy(fig.lost, 1);
		if (way == CHOICE_OWN)
			r->measured_own++;
		for (k = 0; k < RANKS; k++)
			choice_measured(&r->c[k], way, &fig);
	}
	if (p[0].watch) {
		r->watch_lost += fig.lost;
		if (p[0].watch_end) {
			double most = 0;

			for (k = 0; k < RANKS; k++) {
				if (r->watch[k] > most)
					most = r->watch[k];
				r->watch[k] = 0;
			}
			fig.seconds = most / choice_watch_calls(&r->c[0]);
			fig.lost = r->watch_lost;
			fig.lossy = lossy(r->watch_lost, (unsigned long)choice_watch_calls(&r->c[0]));
			fig.agree = r->agree;	/* the last watch's, as ibnet_a2a_route.c agrees it */
			r->agree = f->agree;
			r->watch_lost = 0;
			r->watches++;
			r->agree_cost += f->agree;
			for (k = 0; k < RANKS; k++)
				choice_watched(&r->c[k], &fig);
		}
	}
	for (k = 1; k < RANKS; k++)
		if (memcmp(&r->c[k], &r->c[0], sizeof(r->c[0])))
			r->disagreements++;
	return way;
}

/*
 * Calls on f until rank 0's class is chosen (at most `most`); returns the
 * calls taken, -1 if none chose. The trials' cost is added up against the
 * faster route.
 */
static int until_chosen(struct run *r, const struct fabric *f, double noise, int most)
{
	double best = f->seconds[0] < f->seconds[1] ? f->seconds[0] : f->seconds[1];
	int n;

	for (n = 1; n <= most; n++) {
		enum choice_way w = call(r, f, noise);

		r->trial_cost += f->seconds[w] - best;
		if (r->c[0].chosen)
			return n;
	}
	return -1;
}

/* Calls on f until rank 0 takes route `want` (at most `most`); the calls taken, or -1. */
static int until_route(struct run *r, const struct fabric *f, double noise, enum choice_way want,
		       int most)
{
	int n;

	for (n = 1; n <= most; n++)
		if (call(r, f, noise) == want && r->c[0].chosen && r->c[0].way == want)
			return n;
	return -1;
}

static void say_choice(const struct run *r, const char *scenario)
{
	char line[400];

	choice_describe(&r->c[0], choice_class_of(1ul << 20), line, sizeof(line));
	printf("  %s: %s\n", scenario, line);
}

/*
 * The rules issue 48's later stops mended (run as "route_choice mends"; the
 * cases above are the original's, their lines and counts unchanged).
 */
static void mends(void)
{
	char what[200];
	int n;

	{
		const char *s = "small calls at 100 Gbit/s (own 50 us, a watch's agreement 96 us)";
		struct run r = { .seed = 8 };
		double calls_time;

		until_chosen(&r, &small_fast, 0.3, 100);
		r.calls[0] = r.calls[1] = 0;
		r.watches = 0;
		r.agree_cost = 0;
		for (n = 0; n < 4000; n++)
			call(&r, &small_fast, 0.3);
		calls_time = r.calls[CHOICE_OWN] * small_fast.seconds[CHOICE_OWN];
		snprintf(what, sizeof(what), "4000 calls of the MPI's own, %d watches (every %d calls "
			 "now), their agreements %.2f%% of the calls' time (every %d calls: %.1f%%)",
			 r.watches, choice_watch_calls(&r.c[0]), 100 * r.agree_cost / calls_time,
			 CHOICE_WATCH_CALLS,
			 100 * small_fast.agree / (CHOICE_WATCH_CALLS * small_fast.seconds[CHOICE_OWN]));
		expect(r.c[0].way == CHOICE_OWN && r.calls[CHOICE_PACED] == 0 &&
		       r.agree_cost < 2 * CHOICE_WATCH_SHARE * calls_time, s, what);
		/* Then the switch starts to lose: still seen within one watch. */
		n = until_route(&r, &storm, 0.3, CHOICE_PACED, 2 * CHOICE_WATCH_MOST);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "the switch starts to lose: paced within %d calls "
			 "(bound: a watch of at most %d calls + %d)", n, CHOICE_WATCH_MOST,
			 CHOICE_SAMPLES + 1);
		expect(n > 0 && n <= CHOICE_WATCH_MOST + CHOICE_SAMPLES + 1, s, what);
		expect(!r.disagreements, s, "every rank took the same route on every call");
	}
	{
		const char *s = "1 Gbit/s, 96 KB ports: the first paced calls in a slow stretch (1.43x "
				"of the bound), then 1.19x";
		struct run r = { .seed = 10 };
		struct fabric slow = gige96k;

		slow.seconds[CHOICE_PACED] = 36e-3;
		for (n = 1; n <= CHOICE_PACED_FIRST; n++)
			call(&r, &slow, 0);
		n += until_chosen(&r, &gige96k, 0.05, 100) - 1;
		say_choice(&r, s);
		snprintf(what, sizeof(what), "paced chosen after %d paced calls (at most %d), no call "
			 "of the MPI's own", n, CHOICE_PACED_FIRST + CHOICE_PACED_MORE);
		expect(r.c[0].way == CHOICE_PACED && r.c[0].why == CHOICE_WHY_AT_LINK &&
		       r.calls[CHOICE_OWN] == 0 && n <= CHOICE_PACED_FIRST + CHOICE_PACED_MORE, s,
		       what);
	}
	{
		const char *s = "the link busy (paced 1.68x of the bound), the MPI's own faster";
		struct run r = { .seed = 11 };

		n = until_chosen(&r, &busy_own, 0.05, 100);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "the MPI's own chosen after %d calls (%d paced, %d own), "
			 "the trials costing %.1f ms once", n, r.calls[CHOICE_PACED],
			 r.calls[CHOICE_OWN], r.trial_cost * 1e3);
		expect(r.c[0].way == CHOICE_OWN && r.calls[CHOICE_PACED] ==
		       CHOICE_PACED_FIRST + CHOICE_PACED_MORE && r.calls[CHOICE_OWN] == CHOICE_SAMPLES,
		       s, what);
	}
	{
		const char *s = "8 x 4, 4 KiB, 24 KB ports on 2 cores, the floor set: the MPI's own "
				"lossy in 41, 52 and 58 ms; paced 65 ms";
		struct run r = { .seed = 12 };
		/* light loss (2.8% of the segments): the time decides */
		struct fabric lottery = { { 41e-3, 65e-3 }, { 60, 0 }, 0, 0.5e-3 };
		static const double own_trials[] = { 41e-3, 52e-3, 58e-3 };

		for (n = 1; n <= 20 && !r.c[0].chosen; n++) {
			lottery.seconds[CHOICE_OWN] = own_trials[r.calls[CHOICE_OWN] % 3];
			call(&r, &lottery, 0);
		}
		say_choice(&r, s);
		snprintf(what, sizeof(what), "paced chosen after %d call%s of the MPI's own (the "
			 "first lossy one that paced's 65 ms came within 1.5x of, 52 ms, ends them)",
			 r.calls[CHOICE_OWN], r.calls[CHOICE_OWN] == 1 ? "" : "s");
		expect(r.c[0].chosen && r.c[0].way == CHOICE_PACED &&
		       r.c[0].why == CHOICE_WHY_OWN_LOST && r.calls[CHOICE_OWN] == 2, s, what);
	}
	{
		const char *s = "the storm with the floor: the MPI's own 40 ms between its timeouts "
				"(paced 65 ms), retransmitting 69% of what converged";
		struct run r = { .seed = 13 };
		static const struct fabric quick_storm = { { 40e-3, 65e-3 }, { 1500, 0 }, 0, 0.5e-3 };

		n = until_chosen(&r, &quick_storm, 0, 100);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "paced chosen after %d call%s of the MPI's own (its loss "
			 "past %g of the segments, whatever its speed)", r.calls[CHOICE_OWN],
			 r.calls[CHOICE_OWN] == 1 ? "" : "s", CHOICE_HEAVY_LOSS);
		expect(r.c[0].chosen && r.c[0].way == CHOICE_PACED && r.calls[CHOICE_OWN] == 1, s,
		       what);
	}
}

int main(int argc, char **argv)
{
	char what[200];
	int n;

	if (argc > 1 && !strcmp(argv[1], "mends")) {
		mends();
		printf(failures ? "%d expectations broken\n" : "all expectations held\n", failures);
		return failures ? 1 : 0;
	}

	{
		const char *s = "unshaped ports, 1 MiB per pair, own 1.0 ms, paced 2.4 ms";
		struct run r = { .seed = 1 };
		int own_after;

		n = until_chosen(&r, &fast, 0.3, 100);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "the MPI's own chosen after %d calls (%d paced, %d own)",
			 n, r.calls[CHOICE_PACED], r.calls[CHOICE_OWN]);
		expect(n == CHOICE_PACED_FIRST + CHOICE_SAMPLES && r.c[0].way == CHOICE_OWN, s, what);
		r.calls[0] = r.calls[1] = 0;
		for (own_after = 0; own_after < 1000; own_after++)
			call(&r, &fast, 0.3);
		snprintf(what, sizeof(what), "the next 1000 calls all the MPI's own (%d paced), "
			 "one look", r.calls[CHOICE_PACED]);
		expect(r.calls[CHOICE_PACED] == 0 && r.c[0].looks == 1, s, what);
		snprintf(what, sizeof(what), "the trials cost %.1f ms once (4 paced calls at 2.4x)",
			 r.trial_cost * 1e3);
		expect(r.trial_cost < 0.012, s, what);
		expect(!r.disagreements, s, "every rank took the same route on every call");
	}
	{
		const char *s = "the storm (8 x 4, 4 KiB, 24 KB ports), own 2.1 s lossy, paced 40 ms";
		struct run r = { .seed = 2 };

		n = until_chosen(&r, &storm, 0.3, 100);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "paced chosen after %d calls, one of them the MPI's own",
			 n);
		expect(n == CHOICE_PACED_FIRST + 1 && r.c[0].way == CHOICE_PACED &&
		       r.calls[CHOICE_OWN] == 1, s, what);
		snprintf(what, sizeof(what), "the trials cost %.2f s once: one call of the MPI's own",
			 r.trial_cost);
		expect(r.trial_cost < 2.1 * 1.3 + 0.01, s, what);
		r.calls[0] = r.calls[1] = 0;
		for (n = 0; n < 4000; n++)
			call(&r, &storm, 0.3);
		snprintf(what, sizeof(what), "4000 calls later: %d of the MPI's own (a look every "
			 "%lu calls, under 5%% of the time: %.1f s of %.1f s)", r.calls[CHOICE_OWN],
			 r.c[0].relook, r.calls[CHOICE_OWN] * 2.1,
			 r.calls[CHOICE_OWN] * 2.1 + r.calls[CHOICE_PACED] * 0.04);
		expect(r.calls[CHOICE_OWN] >= 1 && r.calls[CHOICE_OWN] <= 4 &&
		       r.calls[CHOICE_OWN] * 2.1 <
		       0.06 * (r.calls[CHOICE_OWN] * 2.1 + r.calls[CHOICE_PACED] * 0.04), s, what);
		expect(r.c[0].chosen && r.c[0].way == CHOICE_PACED, s, "still paced");
		expect(!r.disagreements, s, "every rank took the same route on every call");
	}
	{
		const char *s = "the storm, the link's rate told, paced within 1.3x of its bound";
		struct run r = { .seed = 3 };

		n = until_chosen(&r, &storm_told, 0, 100);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "paced chosen after %d paced calls, no call of the MPI's "
			 "own", n);
		expect(n == CHOICE_PACED_FIRST && r.c[0].way == CHOICE_PACED &&
		       r.calls[CHOICE_OWN] == 0, s, what);
		for (n = 0; n < 2000; n++)
			call(&r, &storm_told, 0);
		expect(r.calls[CHOICE_OWN] == 0, s, "2000 calls later, still no call of the MPI's own");
	}
	{
		const char *s = "own loses a little but paced takes 3x as long";
		struct run r = { .seed = 4 };

		n = until_chosen(&r, &lossy_quick, 0.1, 100);
		say_choice(&r, s);
		expect(n == CHOICE_PACED_FIRST + CHOICE_SAMPLES && r.c[0].way == CHOICE_OWN &&
		       r.c[0].why == CHOICE_WHY_OWN_LOST_FASTER, s,
		       "the MPI's own, and the report says it lost packets");
	}
	{
		const char *s = "the fabric starts to lose mid-job (own chosen, then the storm)";
		struct run r = { .seed = 5 };

		until_chosen(&r, &fast, 0.3, 100);
		for (n = 0; n < 100; n++)
			call(&r, &fast, 0.3);
		n = until_route(&r, &storm, 0.3, CHOICE_PACED, 200);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "paced within %d calls of the change (bound: %d)", n,
			 CHOICE_WATCH_CALLS + CHOICE_SAMPLES + 1);
		expect(n > 0 && n <= CHOICE_WATCH_CALLS + CHOICE_SAMPLES + 1, s, what);
		expect(!r.disagreements, s, "every rank took the same route on every call");
	}
	{
		const char *s = "the fabric stops losing mid-job (paced chosen in the storm, then clean)";
		struct run r = { .seed = 6 };

		until_chosen(&r, &storm, 0.3, 100);
		n = until_route(&r, &fast, 0.3, CHOICE_OWN, 5000);
		say_choice(&r, s);
		snprintf(what, sizeof(what), "the MPI's own within %d calls of the change (bound: "
			 "%lu + %d)", n, CHOICE_RELOOK_MOST, 2 * CHOICE_SAMPLES);
		expect(n > 0 && n <= (int)CHOICE_RELOOK_MOST + 2 * CHOICE_SAMPLES, s, what);
		expect(!r.disagreements, s, "every rank took the same route on every call");
	}
	{
		const char *s = "a shared host: one call in four 5x slower, own chosen";
		struct run r = { .seed = 7 };
		struct fabric noisy = fast;
		int k;

		until_chosen(&r, &fast, 0.3, 100);
		for (n = 0; n < 1600; n++) {
			noisy.seconds[CHOICE_OWN] = fast.seconds[CHOICE_OWN] * (n % 4 == 3 ? 5 : 1);
			call(&r, &noisy, 0.3);
		}
		snprintf(what, sizeof(what), "no look again in 1600 calls (%lu look%s)", r.c[0].looks,
			 r.c[0].looks == 1 ? "" : "s");
		expect(r.c[0].looks == 1 && r.c[0].way == CHOICE_OWN, s, what);
		/* Then the own calls become 4x slower for good: looked at again. */
		noisy.seconds[CHOICE_OWN] = 4 * fast.seconds[CHOICE_OWN];
		for (k = 0; k < 2 * CHOICE_WATCH_CALLS + 1 && r.c[0].looks == 1; k++)
			call(&r, &noisy, 0);
		for (k = 0; k < 20 && !r.c[0].chosen; k++)
			call(&r, &noisy, 0);
		say_choice(&r, s);
		expect(r.c[0].looks == 2 && r.c[0].way == CHOICE_PACED, s,
		       "own 4x slower for good: looked at again within two watches, and paced");
	}
	expect(choice_class_of(1) == 0 && choice_class_of(4096) == 12 &&
	       choice_class_of(4095) == 11 && choice_class_of(1ul << 20) == 20, "classes",
	       "a class is the power of two at or below the block's bytes");
	printf(failures ? "%d expectations broken\n" : "all expectations held\n", failures);
	return failures ? 1 : 0;
}
