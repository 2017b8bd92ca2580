/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_comm.h - what the paced scheme keeps per communicator (struct
 * comm_info, made by ibnet_a2a_layout.c) and the limits every exchange
 * keeps to. The ground floor of the paced build: it names no other part
 * but the two rules below it, the window's and the route's (no MPI).
 */
#ifndef IBNET_A2A_COMM_H
#define IBNET_A2A_COMM_H

#include <mpi.h>

#include "ibnet_a2a_choice.h"
#include "ibnet_a2a_window.h"

struct node_stage;	/* ibnet_a2a_nodes.c's */

/*
 * One rank's tally of a watch: the calls "within the window" between two
 * looks (window_watch), or the calls of a chosen MPI's own between two
 * watches (choice_done). Kept by this process's own clock and the node's
 * loss feed (ibnet_a2a_route.c's tally_*), agreed by the ranks at the
 * watch's end.
 */
struct watch_tally {
	double seconds;		/* this rank's time in the watch's calls so far */
	unsigned long retrans;	/* the node's retransmissions when the watch began */
	unsigned long bytes;	/* the calls' bytes converging on the busiest port */
	double agree;		/* this rank's last watch's allreduce, s */
};

/* What we keep per communicator (an attribute, freed with it). */
struct comm_info {
	MPI_Comm priv;		/* our traffic's own context */
	int size, rank, nnodes, mynode;
	int *node_of;		/* rank -> node, nodes numbered by their lowest rank */
	int *node_start;	/* node -> first index in by_node; [nnodes] = size */
	int *by_node;		/* ranks grouped by node, each group in rank order */
	int *local_index;	/* rank -> its place in its node's group */
	/* Pairs converging on the busiest node's port: max over nodes of
	 * ranks on it x ranks elsewhere. Times the bytes per pair, what one
	 * call puts on that port at once when nothing paces it. */
	unsigned long fanin_pairs;
	int least_local, most_local;	/* the fewest and most ranks on one node */
	int concurrent;		/* communicators sharing this node's window (layout.c) */
	struct node_stage *stage;	/* ibnet_a2a_nodes.c's, made on its first call */
	int stage_ready;		/* 0 not yet, 1 made on every node, -1 failed on one */
	unsigned long stage_cap;	/* bytes each node's segments hold (every rank alike) */
	unsigned long stage_short_at;	/* a node had no room for this bound (0: none) */
	bool stage_unshared;		/* a rank could not open its node's segment: never again */
	int stage_small;		/* node calls in a row within a quarter of stage_cap */
	/*
	 * The window every rank of the communicator takes its routes from
	 * (ibnet_a2a_route.c): the fixed setting, or with alltoall_window=auto
	 * the least window the ranks' controllers reached, agreed after the
	 * communicator's first paced calls and now and then after them
	 * (ibnet_a2a_route.c, window_agree). The grants themselves follow this
	 * process's controller.
	 */
	unsigned long agreed_window;
	/* And the least of their proven levels (struct window_ctl): a call whose
	 * bytes converging on a port stay within it goes to the MPI's own. */
	unsigned long agreed_proven;
	unsigned long paced_calls;	/* with auto: this communicator's paced calls so far */
	unsigned long call_fanin;	/* the call's bytes converging on the busiest port */
	unsigned long agreed_fanin;	/* those of the call that began the last learning */
	int learn_age;			/* paced calls since this size began a learning */
	int relearned;			/* how often a new size began a learning */
	int watched;			/* calls "within the window" since the last look */
	struct watch_tally window_tally;	/* their tally (window_watch) */
	int watch_every;		/* calls between looks now (0: CHOICE_WATCH_CALLS) */
	unsigned long watch_looks;	/* looks so far */
	/*
	 * The route by measurement (ibnet_a2a_choice.h), per size class: the
	 * same on every rank, moved only by agreed figures.
	 */
	struct choice_class choice[CHOICE_CLASSES];
	/* This process's tally of the watch of a chosen MPI's own, per class. */
	struct watch_tally choice_watch[CHOICE_CLASSES];
	/* The call in progress (one at a time on a communicator). */
	bool call_planned;		/* the call's route came from its class's plan */
	int call_class;
	struct choice_plan call_plan;
	struct choice_class call_before;	/* the class before the plan: given back on NO_MEMORY */
	double call_started;		/* PMPI_Wtime at the call's start */
	unsigned long call_retrans;	/* the node's retransmissions then */
};

/*
 * The node-to-node exchange (ibnet_a2a_nodes.c): at most this many lanes
 * per node (each a flow to the same lane of every other node), and at most
 * this many bytes in each of a node's two shared segments; a call whose
 * bound is larger goes pair by pair.
 */
#define IBNET_A2A_LANES_MAX 4
/* The most grants a receiver has outstanding at once (small blocks). */
#define IBNET_A2A_GRANTS_MAX 64
#define IBNET_A2A_STAGE_MAX (512ul * 1024 * 1024)
/* Node calls in a row that use a quarter of the segments or less before
 * they shrink to twice the calls' size (and give the rest back). */
#define IBNET_A2A_STAGE_SHRINK_CALLS 64
/*
 * The smallest chunk a receiver grants (ibnet_a2a_exchange.c): a round trip
 * per smaller piece would cost more than it paces. So pair by pair, a node
 * of L receiving ranks has at least L of these in flight, over the window
 * from L > window / IBNET_A2A_CHUNK_MIN (ibnet_a2a_route.c, "auto").
 */
#define IBNET_A2A_CHUNK_MIN 1024

#endif
