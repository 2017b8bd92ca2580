/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_report.h - why a call went where it went (enum route), the
 * calls we take (enum kind), and their counts: the report at exit and the
 * node's tally (ibnet_a2a_report.c).
 */
#ifndef IBNET_A2A_REPORT_H
#define IBNET_A2A_REPORT_H

/* Why a call went where it went; counted per process for the report. */
enum route {
	PACED,		/* pair by pair (ibnet_a2a_exchange.c) */
	PACED_NODES,	/* node to node (ibnet_a2a_nodes.c) */
	OFF,		/* SLURM_IBNET_ALLTOALL_PACED=0, a bad setting, or the user's MPI choice */
	NO_BUILD,	/* a rank of the communicator has no paced build (ibnet_a2a_agree.c) */
	SETTINGS_DIFFER,	/* the ranks' settings differ */
	NOT_AGREED,	/* the ranks' agreement itself failed */
	INTERCOMM,
	ONE_RANK,	/* a communicator of one rank: a copy, nothing on the wire */
	BELOW,		/* the bytes converging on a node's port stay below the threshold */
	ONE_NODE,	/* every rank on one node: shared memory, no port to pace */
	BIG_BLOCK,	/* a block over block_limit: our calls count bytes in an int */
	LARGE_COUNT,	/* a large-count call with a count or displacement past an int */
	NONCONTIGUOUS,	/* Open MPI 6's mpi_f08: an array section (its own fails it too) */
	/*
	 * An erroneous call: a block's bytes as sent differ from its bytes as
	 * received. The MPI's own reports it as it does (MPI_ERR_TRUNCATE);
	 * the paced scheme would wait for bytes that never come.
	 */
	SIZES_DIFFER,
	NO_MEMORY,	/* a rank could not allocate the communicator's layout */
	/*
	 * MPI_Ialltoall(v): pacing needs the exchange to advance while the
	 * application computes, which a preload cannot do safely in either MPI
	 * (docs/admin-guide.md, "Which calls are paced").
	 */
	NONBLOCKING,
	/*
	 * alltoall_window=auto: the bytes converging on the busiest port fit in
	 * the window the ranks agreed (ibnet_a2a_route.c): every byte would be
	 * granted at once, so pacing would cost a round trip and hold nothing back.
	 */
	WITHIN_WINDOW,
	/*
	 * The route by measurement (ibnet_a2a_choice.h): a call the scheme
	 * would pace, handed to the MPI's own to time it against the paced
	 * calls of its size, and one handed there because it was measured the
	 * faster (and lost nothing).
	 */
	OWN_ON_TRIAL,
	OWN_MEASURED,
	ROUTES
};
extern const char *const route_name[ROUTES];

/* The calls we take, one line each in the report. */
enum kind {
	ALLTOALL, ALLTOALLV, ALLTOALLW,
	ALLTOALL_C, ALLTOALLV_C, ALLTOALLW_C,	/* MPI 4.0's large counts */
	IALLTOALL, IALLTOALLV, KINDS
};
extern const char *const kind_name[KINDS];

/* Count one call. */
void count(enum kind k, enum route r);
/* The report at MPI_Finalize, before the MPI finalizes (the world model's). */
void a2a_at_finalize(void);
/* The node's tally at exit, and the report where MPI_Finalize did not say
 * it (registered with atexit). */
void a2a_at_exit(void);
/* A class's route chosen (ibnet_a2a_route.c; c->chosen): kept for the report and the tally. */
struct choice_class;
void report_choice(const struct choice_class *c, int cls);
/* The report's line on a window shared across communicators. */
void report_shared_window(int concurrent, int job_ranks, int comm_ranks);
/* The report's line on the looks at calls within the window (window_watch):
 * a communicator's looks so far, the calls between them now, and the agreed
 * times that spaced them (seconds). */
void report_window_watch(unsigned long looks, int every, double agree, double call);

#endif
