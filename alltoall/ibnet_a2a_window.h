/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_window.h - the window's controller (alltoall_window=auto): how
 * many bytes a node lets be in flight towards its switch port, learned from
 * what each paced call showed. No MPI, no clock, no file: the exchange
 * measures (ibnet_a2a_exchange.c), this decides, so a test can drive it with
 * a fake clock and a fake port (tests/programs/window_ctl.c).
 *
 * The rule (docs/architecture.md, "The window"):
 *   - A call that lost packets (the node's TCP retransmissions rose by at
 *     least WINDOW_LOSS_LEAST and 1 per WINDOW_LOSS_PER segments it
 *     received: a busy host retransmits a few without any port dropping,
 *     when ACKs wait for a CPU; or the calls at this window did, together)
 *     sets the ceiling at the window it had: no later window reaches it,
 *     but for the start (16 KiB), below which it never falls: the window
 *     falls back to the largest one that lost nothing, else to half. But
 *     a loss at a window that already carried calls without one (and whose
 *     growth is judged), in a call that received at least 3/4 of the best
 *     of those (it cost no time: a busy host's late ACKs, a tail probe),
 *     is counted and the window held.
 *   - A call that never filled the window leaves it: more would not be used.
 *   - A call that filled it while the node received at half the link's rate
 *     or more, in the best of the last 3 calls at this window, leaves it too:
 *     the wire was busy, more would only queue in the port (the window covers
 *     rate x round trip). With the rate known, a window is judged on 3 calls.
 *   - Where the rate is known, growth must pay: a growth after which the
 *     node received, in the best of 3 calls at the new window (not its
 *     first: one slow call undid growth for good), less than 1.25x as much
 *     is undone and the window stays
 *     (busy hosts, not the window, held the call back) until it receives
 *     less than half that three calls in a row.
 *   - Otherwise the window limited the call: it grows, until the first loss
 *     by the link's rate over what the node received (2x to 4x; 4x where
 *     the rate is unknown), then halfway to the ceiling while the ceiling is
 *     more than 4x the window. Never past the cap (alltoall_window_max).
 * Beside the window it keeps what a call may put on the port unpaced
 * (proven): the least peak in flight of the last WINDOW_PROVEN_CALLS calls,
 * 0 if one of them lost packets. A call whose bytes converging on a port
 * stay within it goes to the MPI's own (ibnet_a2a_route.c): three calls in
 * a row put as much in flight at once and lost nothing - as long as no call
 * has ever lost packets (window_ctl_unpaced: on a port that drops, the MPI's
 * own puts more in flight than a paced call, measured on a 10 Gbit/s port of
 * 512 KB).
 */
#ifndef IBNET_A2A_WINDOW_H
#define IBNET_A2A_WINDOW_H

#include <stdbool.h>
#include <stddef.h>

/* Why the window is what it is: the last call's verdict, for the report. */
enum window_reason {
	WINDOW_START,		/* no call yet */
	WINDOW_FIXED,		/* alltoall_window=N: the site's, never changed */
	WINDOW_GREW,		/* the window limited the call */
	WINDOW_NOT_FILLED,	/* the calls never filled it */
	WINDOW_WIRE_BUSY,	/* filled, but the link was at half its rate or more */
	WINDOW_LOSS,		/* packets lost: backed off, the ceiling set */
	WINDOW_AT_CEILING,	/* within 4x of where loss began */
	WINDOW_AT_CAP,		/* at alltoall_window_max */
	WINDOW_NO_GAIN,		/* growing it bought no throughput: the hosts bound the call */
	WINDOW_SAMPLING,	/* fewer than WINDOW_SAMPLES calls at this window (rate known) */
	WINDOW_LOSS_HELD,	/* loss at a proven window that cost no time: counted, held */
	WINDOW_REASONS
};
extern const char *const window_reason_text[WINDOW_REASONS];

/* What one paced call showed this process, as a receiver. */
struct window_sample {
	bool filled;		/* a grant waited for room in the window */
	unsigned long lost;	/* the node's TCP segments retransmitted during the call */
	unsigned long received;	/* bytes the node received from other nodes */
	double round_trip;	/* the least credit round trip, seconds, the chunk's wire
				 * time taken off where the rate is known; <= 0: none */
	double delivered;	/* bytes per second the node received from other nodes */
	unsigned long peak;	/* the most bytes the node had in flight towards it at once */
};

#define WINDOW_PROVEN_CALLS 3
/* Calls a window is judged by where the link's rate is known: the best of them. */
#define WINDOW_SAMPLES 3
#define WINDOW_LOSS_LEAST 3
#define WINDOW_LOSS_PER 1000	/* segments received per one retransmitted */
#define WINDOW_SEGMENT 1448	/* bytes in a segment (Ethernet's MTU less headers) */

/* Whether a sample's retransmissions are loss, by the rule above. */
bool window_sample_lossy(const struct window_sample *s);

struct window_ctl {
	unsigned long window;	/* bytes in flight towards the node's port, now */
	unsigned long cap;	/* never above */
	unsigned long ceiling;	/* the least window that lost packets; 0: none yet */
	unsigned long good;	/* the largest window that filled and lost nothing */
	double rate;		/* bytes per second the node's link takes; 0: unknown */
	double round_trip;	/* the least round trip seen, seconds; 0: none yet */
	double delivered;	/* the last call's, bytes per second */
	unsigned long recent[WINDOW_PROVEN_CALLS];	/* the last calls' peaks, 0: lost */
	unsigned long proven;	/* the least of recent: in flight at once, lost nothing */
	unsigned long calls, losses;
	unsigned long least;	/* never below: the start (a fixed window: its own) */
	bool unpaced_lost;	/* calls that went to the MPI's own lost packets */
	unsigned long grew_from;	/* the window before the last growth; 0: none */
	double gain_base;	/* what the node received at grew_from, bytes/s */
	double plateau;		/* received at the window kept for no gain; 0: none */
	int slow_calls;		/* calls in a row since at under half the plateau */
	double here[WINDOW_SAMPLES];	/* what the node received in the last calls here */
	int here_n;		/* calls at this window so far */
	double here_clean;	/* the most received in one of them that lost nothing; 0: none */
	unsigned long pending_lost, pending_received;	/* this window's calls, added up */
	int pending_calls;
	bool fixed;		/* a fixed window: samples are kept, the window is not moved */
	enum window_reason reason;
};

/*
 * start: the first call's window (IBNET_A2A_WINDOW_DEFAULT, what the
 * shallowest port measured held); cap: the most; rate: bytes per second of
 * the node's link, 0 if unknown; fixed: the site set the window.
 */
void window_ctl_init(struct window_ctl *c, unsigned long start, unsigned long cap, double rate,
		     bool fixed);
/* One call's sample in; the window for the next call out. */
unsigned long window_ctl_update(struct window_ctl *c, const struct window_sample *s);
/*
 * What a call may put on the port unpaced: proven, as long as no call,
 * paced or not, ever lost packets (0 then: on a port that drops, the MPI's
 * own puts more in flight at once than a paced call whose window it did not
 * fill - its senders do not wait for the phases - and its losses come back
 * as later calls' retransmissions).
 */
unsigned long window_ctl_unpaced(const struct window_ctl *c);
/* Calls that went to the MPI's own lost packets (ibnet_a2a_route.c, window_watch). */
void window_ctl_unpaced_loss(struct window_ctl *c);

/* One sentence: the window reached and why (round trip, rate, loss). */
void window_ctl_describe(const struct window_ctl *c, char *out, size_t len);

#endif
