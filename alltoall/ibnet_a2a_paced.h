/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_paced.h - the parts of one paced build (libibnet-a2a-ABI.so)
 * and what they share. Internal: built per MPI ABI, never installed as a
 * header. Each decision has its file:
 *   ibnet_a2a_paced.c     the entry points, the settings, the test hooks
 *   ibnet_a2a_route.c     where a call goes (enum route) and why
 *   ibnet_a2a_layout.c    a communicator's nodes (struct comm_info)
 *   ibnet_a2a_pack.c      a call's buffers as bytes: plain or packed
 *   ibnet_a2a_exchange.c  the paced exchange pair by pair (one algorithm)
 *   ibnet_a2a_nodes.c     the paced exchange node to node (the other)
 *   ibnet_a2a_report.c    the counts, the report and the node's tally
 *   ibnet_a2a_fortran.c   the Fortran bindings
 *   ibnet_a2a_types.c     which datatypes travel as plain memory
 */
#ifndef IBNET_A2A_PACED_H
#define IBNET_A2A_PACED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <mpi.h>

#include "ibnet_a2a_host.h"
#include "ibnet_a2a_settings.h"

#define EXPORT __attribute__((visibility("default")))

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
/*
 * The smallest chunk a receiver grants (ibnet_a2a_exchange.c): a round trip
 * per smaller piece would cost more than it paces. So pair by pair, a node
 * of L receiving ranks has at least L of these in flight, over the window
 * from L > window / IBNET_A2A_CHUNK_MIN (ibnet_a2a_route.c, "auto").
 */
#define IBNET_A2A_CHUNK_MIN 1024

/* The settings every part reads (ibnet_a2a_paced.c, read once). */
extern struct ibnet_a2a_settings settings;
extern bool enabled;		/* the paced scheme may run at all */
extern bool report;		/* SLURM_IBNET_ALLTOALL_REPORT */
extern int world_rank;
extern pid_t settings_pid;	/* the process that read them */
extern unsigned long block_limit;
/* The dispatcher's help: the MPI's own symbols, and the ranks' agreement. */
extern const struct ibnet_a2a_host *host;

/* The report's line on a window shared across communicators (report.c). */
void report_shared_window(int concurrent, int job_ranks, int comm_ranks);

/* Slurm's compressed tasks per node ("4(x8),2") for node `nodeid`; 0: unknown. */
int tasks_on_node(const char *list, const char *nodeid);

/* Read the settings once, from the first call of any kind. */
void a2a_init(void);
void say(const char *what);
uintptr_t handle_of(MPI_Comm comm);
int report_failure(MPI_Comm comm, int rc);

/* ibnet_a2a_report.c */
void count(enum kind k, enum route r);
void a2a_at_exit(void);

/* ibnet_a2a_layout.c */
void a2a_layout_init(void);
int comm_info(MPI_Comm comm, struct comm_info **out);

/* ibnet_a2a_route.c */
enum route verdict_route(enum ibnet_a2a_verdict v);
enum route size_route(const struct comm_info *ci, unsigned long block_bytes,
		      unsigned long heaviest);
int node_route(struct comm_info *ci, unsigned long heaviest, enum route *route);
int comm_route(MPI_Comm comm, const void *sendbuf, enum route *route, struct comm_info **ci);
enum route nonblocking_route(void);

/* ibnet_a2a_exchange.c */
void out_of_memory(const struct comm_info *ci, const char *what);
int paced_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   int sharers);

/* ibnet_a2a_nodes.c */
struct node_stage;
int nodes_ready(struct comm_info *ci, unsigned long bound, bool *ready);
int nodes_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   MPI_Aint uniform);
void nodes_free(struct node_stage *st);

/*
 * One side of a call, as the user gave it (ibnet_a2a_pack.c):
 *   MPI_Alltoall   count, type
 *   MPI_Alltoallv  counts, displs (in extents of type), type
 *   MPI_Alltoallw  counts, displs (in bytes), types
 * buf MPI_IN_PLACE on the send side: the receive side's blocks are sent.
 */
struct a2a_side {
	const void *buf;
	const int *counts, *displs;	/* NULL: MPI_Alltoall */
	int count;
	MPI_Datatype type;
	const MPI_Datatype *types;	/* MPI_Alltoallw; NULL otherwise */
};

/* ibnet_a2a_pack.c; by_node: the node-to-node exchange, else pair by pair. */
int run_paced(struct comm_info *ci, bool by_node, const struct a2a_side *send,
	      const struct a2a_side *recv);

/* The C entry points, which the Fortran bindings call too. */
int ibnet_a2a_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
		       int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int ibnet_a2a_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
			MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
			const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm);
int ibnet_a2a_alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
			const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
			const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm);

/*
 * Test builds only (-DIBNET_A2A_TESTING, build/tests/): the
 * SLURM_IBNET_ALLTOALL_TEST_* hooks (ibnet_a2a_paced.c says each). The
 * installed builds have none: the calls below are constants there.
 */
#ifdef IBNET_A2A_TESTING
extern int test_ranks_per_node;
extern unsigned long test_infos_made, test_infos_freed;
extern int test_most_slots;
extern int test_lanes;			/* SLURM_IBNET_ALLTOALL_TEST_LANES */
extern char test_step_tasks[256];	/* SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS: "4(x2):1" */
extern char test_node_sizes[256];	/* SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES */
int test_node_leader(int rank);
extern unsigned long test_grants;	/* credits this process granted */
extern unsigned long test_round_trips;	/* its critical path's round trips, summed over calls */
bool test_no_memory(MPI_Comm comm);
bool test_no_scratch(int rank);
bool injected_failure(void);
bool test_no_segment(int rank);
#else
static inline bool test_no_segment(int rank)
{
	(void)rank;
	return false;
}

static inline bool test_no_memory(MPI_Comm comm)
{
	(void)comm;
	return false;
}

static inline bool test_no_scratch(int rank)
{
	(void)rank;
	return false;
}

static inline bool injected_failure(void)
{
	return false;
}
#endif

#endif
