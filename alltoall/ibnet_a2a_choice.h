/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_choice.h - each call's route chosen by measurement
 * (ibnet_a2a_choice.c): the MPI's own all-to-all or the paced one, per
 * communicator and size class. No MPI, no clock, no file: the route part
 * (ibnet_a2a_route.c) times the calls and agrees their figures between the
 * ranks; this decides, so a test can drive it with a fake clock and a fake
 * loss feed (tests/programs/route_choice.c).
 *
 * Why (docs/architecture.md, "The route by measurement"): on a lossy switch
 * the paced all-to-all took 0.02-1.00x of the MPI's own time, but where the
 * links are fast and nothing is lost it took 1.4-3.9x (16 cores, issue 48),
 * and no window fixes that: the schedule's round trips cost time of their
 * own. Whether to pace is a measurement, as STAR-MPI made it for the choice
 * of an algorithm, with the loss the node's feed saw beside the time.
 *
 * The rule, per size class (the largest block's bytes, by powers of two):
 *   1. Paced first, CHOICE_PACED_FIRST calls: the window starts at what the
 *      shallowest port measured held and learns the size (ibnet_a2a_route.c
 *      agrees it after the 1st, 2nd and 4th), and a paced call is never the
 *      one that floods a shallow port. The last CHOICE_SAMPLES of them are
 *      measured. (8 at first: Quantum ESPRESSO 8 x 1 on unshaped ports paid
 *      1.14x for its trials, over 2 size classes and several looks.)
 *      Where the node's link rate is known and the best paced call came
 *      within CHOICE_NEAR_BOUND of the link's bound for its bytes, paced
 *      is chosen there: the MPI's own could not be faster by more than that,
 *      and a call of it on a shallow port can cost a timeout (200 ms) and
 *      costs packets in every job: one trial lost 220-262 segments on the
 *      test cluster's 1 Gbit/s ports of 96 KB, where paced ran at 1.15-1.27x
 *      the bound on 2 cores. On 16 cores, wherever paced came within 1.3x
 *      of the bound (1 Gbit/s deep and 96 KB, 100 Mbit/s 24 KB) the MPI's
 *      own was never the faster (docs/bench/route-choice.md).
 *      Where it came within CHOICE_BUSY_BOUND but not CHOICE_NEAR_BOUND
 *      (the link was busy, and a shared host's slow stretch can put a paced
 *      call there: at 1 Gbit/s on 96 KB ports the 2 cores' paced calls ran
 *      at 1.19-1.46x, and one trial of the MPI's own lost 591 segments),
 *      up to CHOICE_PACED_MORE more paced calls are measured first, and
 *      one within CHOICE_NEAR_BOUND chooses paced the same way.
 *   2. Then the MPI's own, measured, up to CHOICE_SAMPLES calls. An own call
 *      that lost packets, the best paced call within CHOICE_LOSS_TOLERANCE
 *      of its time, settles it at once: paced (one call of the MPI's own is
 *      the one-off cost there).
 *   3. Chosen: the MPI's own when it lost nothing and its best call took no
 *      longer than the best paced call; paced when it did take longer, or
 *      when it lost packets (at once where it retransmitted more than
 *      CHOICE_HEAVY_LOSS of the segments converging), unless the paced
 *      call took more than CHOICE_LOSS_TOLERANCE times as long as the
 *      MPI's own slowest trial
 *      (loss costs the neighbours too; and a route that loses is a lottery
 *      of timeouts, so its best call says little of its next: at 8 x 4,
 *      4 KiB on 24 KB ports one trial's best was 41 ms against paced's
 *      65, and the MPI's own, chosen, lost 4,010 segments in the job).
 *   4. Looked at again: with the MPI's own chosen, every so many calls (a
 *      watch) their figures are agreed; loss, or a mean CHOICE_SLOWER times
 *      the best trial in CHOICE_SLOW_WATCHES watches in a row, begins the
 *      trials again (so the choice follows a switch that starts to lose
 *      within one watch of calls of the MPI's own, then CHOICE_SAMPLES
 *      paced ones and one of the MPI's own). A watch is CHOICE_WATCH_CALLS
 *      calls at first; then as many as keep its agreement (one small
 *      allreduce, timed) within CHOICE_WATCH_SHARE of the calls' time, up
 *      to CHOICE_WATCH_MOST: at 16 x 1, 4 KiB, 10-100 Gbit/s a call takes
 *      50-140 us and a watch every 16 calls cost 4-12% (the model, issue
 *      51; docs/bench/at-scale.md). With paced
 *      chosen, the MPI's own is tried again once the paced calls since have taken CHOICE_RELOOK_COST times
 *      what one own call did (a look costs at most 1/CHOICE_RELOOK_COST of
 *      the time), no sooner than CHOICE_RELOOK_LEAST calls and no later than
 *      CHOICE_RELOOK_MOST.
 * Every rank feeds the same agreed figures in the same order, so every
 * rank's table is the same and every rank takes the same route.
 */
#ifndef IBNET_A2A_CHOICE_H
#define IBNET_A2A_CHOICE_H

#include <stdbool.h>
#include <stddef.h>

#define CHOICE_CLASSES 64	/* size classes: floor(log2(bytes per pair)) */
#define CHOICE_PACED_FIRST 4	/* paced calls before the MPI's own is tried */
#define CHOICE_SAMPLES 3	/* measured calls per route and look */
/*
 * Retransmissions a call must show, besides the window's rate rule, to
 * count as loss here: a busy host retransmits a few segments on a port that
 * drops nothing (5 in a Quantum ESPRESSO call on an unshaped veth, 2 cores),
 * where a port that overflows loses hundreds (181-262 a call of the MPI's
 * own on the test cluster's 24 KB and 96 KB ports).
 */
#define CHOICE_LOSS_LEAST 16
#define CHOICE_WATCH_CALLS 16	/* a watch's calls at first, and at least */
#define CHOICE_WATCH_MOST 256	/* ... and at most */
#define CHOICE_WATCH_SHARE 0.01	/* of the calls' time, a watch's agreement at most */
#define CHOICE_SLOWER 3.0
#define CHOICE_SLOW_WATCHES 2
#define CHOICE_LOSS_TOLERANCE 1.5
/*
 * Loss too heavy for any speed: retransmissions past this share of the
 * segments converging on the port. A port that drops that much drops its
 * other users' packets too; and with the floor a storm's call of the MPI's
 * own can be quick between its timeouts: at 8 x 4, 4 KiB on 24 KB ports
 * the trials ran 40 ms (paced 65) and retransmitted more segments than
 * converged, the MPI's own was chosen and lost 4,845 (nothing asked
 * 1,717-2,190). A port that loses a little (2% of 3 MiB) keeps the rule above.
 */
#define CHOICE_HEAVY_LOSS 0.05
#define CHOICE_NEAR_BOUND 1.3
#define CHOICE_BUSY_BOUND 2.0	/* the window's "link busy": half the link's rate */
#define CHOICE_PACED_MORE 3
#define CHOICE_RELOOK_COST 20.0
#define CHOICE_RELOOK_LEAST 64ul
#define CHOICE_RELOOK_MOST 1024ul

enum choice_way { CHOICE_OWN, CHOICE_PACED, CHOICE_WAYS };

/* Why a class is where it is, for the report. */
enum choice_why {
	CHOICE_WHY_NONE,	/* not chosen yet */
	CHOICE_WHY_OWN_FASTER,	/* own lost nothing and was no slower */
	CHOICE_WHY_PACED_FASTER,	/* own lost nothing but took longer */
	CHOICE_WHY_OWN_LOST,	/* own lost packets (and took longer, or paced was not far slower) */
	CHOICE_WHY_OWN_LOST_FASTER,	/* own lost packets but paced took far longer */
	CHOICE_WHY_AT_LINK,	/* paced ran at the link's rate: own could not be faster */
	CHOICE_WHYS
};

/* What a measured call (or a watch of calls) showed, agreed by every rank. */
struct choice_figures {
	double seconds;		/* the slowest rank's time in the call (a watch: per call) */
	unsigned long lost;	/* the most TCP segments a node retransmitted meanwhile */
	bool lossy;		/* by the window's rule (window_sample_lossy) */
	double bound;		/* the call's bytes on the busiest port at the link's rate, s; 0: unknown */
	double agree;		/* a watch: the slowest rank's time in the last watch's
				 * agreement, s; 0: none yet */
	unsigned long segments;	/* the segments converging on the busiest port; 0: unknown */
};

/* One size class of one communicator: identical on every rank. */
struct choice_class {
	bool chosen;		/* false: on trial */
	enum choice_way way;	/* the chosen route (valid when chosen) */
	enum choice_why why;
	int paced_calls;	/* paced calls of this look */
	int paced_more;		/* more paced calls before the MPI's own (the link busy) */
	int own_calls;		/* own calls of this look */
	double best[CHOICE_WAYS];	/* the least time of this look's measured calls; 0: none */
	double worst[CHOICE_WAYS];	/* and the most */
	unsigned long lost[CHOICE_WAYS];	/* retransmissions summed over them */
	unsigned long segments[CHOICE_WAYS];	/* their segments converging on the busiest port */
	bool lossy[CHOICE_WAYS];	/* one of them lost packets */
	double bound;		/* the link's bound for the class's calls, s; 0: unknown */
	unsigned long since;	/* calls since the choice */
	unsigned long relook;	/* chosen paced: the own route is tried again after so many */
	unsigned long looks;	/* choices made so far */
	unsigned long trial_calls;	/* calls on trial so far, over every look */
	int watched;		/* chosen own: calls since the last watch */
	int watch_calls;	/* chosen own: calls a watch takes (CHOICE_WATCH_CALLS up) */
	int slow_watches;	/* chosen own: watches in a row past CHOICE_SLOWER */
};

/* How the next call of a class goes. */
struct choice_plan {
	enum choice_way way;
	bool measure;		/* time this call and agree its figures after it */
	bool watch;		/* chosen own: time it into the watch ... */
	bool watch_end;		/* ... and agree the watch's figures after it */
};

/* The class of a call by its largest block's bytes. */
int choice_class_of(unsigned long block_bytes);

/* The next call of class c: its route and what is measured (every rank alike). */
struct choice_plan choice_next(struct choice_class *c);
/* A measured call's figures (plan.measure), agreed: may choose. */
void choice_measured(struct choice_class *c, enum choice_way way, const struct choice_figures *f);
/* A watch's figures (plan.watch_end), agreed, per call: may begin the trials again,
 * and space the next watch by what this one's agreement cost against the calls. */
void choice_watched(struct choice_class *c, const struct choice_figures *f);
/* The calls of the watch in progress (what a watch's time is divided by). */
int choice_watch_calls(const struct choice_class *c);
/*
 * How many calls the next watch takes, from agreed figures: enough that an
 * agreement lasting agree seconds is at most CHOICE_WATCH_SHARE of calls of
 * call_seconds each, CHOICE_WATCH_CALLS to CHOICE_WATCH_MOST (the least
 * where either is unknown). The watch of a chosen MPI's own, and the watch
 * of calls within the window (ibnet_a2a_route.c, window_watch), both.
 */
int choice_watch_spacing(double agree, double call_seconds);

/* One sentence: "blocks of 1 MiB to 2 MiB: own 1.58 ms, paced 5.21 ms (best of each): the
 * MPI's own (no loss, no slower); 7 calls on trial, 1 look". */
void choice_describe(const struct choice_class *c, int cls, char *out, size_t len);

#endif
