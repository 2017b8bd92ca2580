/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_state.h - what every part of the paced build reads back: the
 * settings (read once), the dispatcher's help, how a sentence and a failure
 * are said, and the test hooks. Below every other part of the build but
 * ibnet_a2a_comm.h and the controller (ibnet_a2a_window.h): it calls none
 * of them, so no part includes one that includes it back.
 *
 * The parts, from the bottom up (each includes only those below it):
 *   ibnet_a2a_window.c    the window's controller (no MPI)
 *   ibnet_a2a_choice.c    the route by measurement's rule (no MPI)
 *   ibnet_a2a_netstat.c   the node's loss feed (no MPI; the model links its own)
 *   ibnet_a2a_comm.h      what is kept per communicator
 *   ibnet_a2a_state.c     this: settings, hooks, say, failures
 *   ibnet_a2a_room.c      the room a node's shared segment may take
 *   ibnet_a2a_report.c    the counts, the report and the node's tally
 *   ibnet_a2a_exchange.c  the paced exchange pair by pair (one algorithm)
 *   ibnet_a2a_nodes.c     the paced exchange node to node (the other)
 *   ibnet_a2a_layout.c    a communicator's nodes (struct comm_info)
 *   ibnet_a2a_pack.c      a call's buffers as bytes: plain or packed
 *   ibnet_a2a_route.c     where a call goes (enum route) and why
 *   ibnet_a2a_paced.c     the C entry points
 *   ibnet_a2a_fortran.c   the Fortran bindings
 * and ibnet_a2a_types.c beside them: which datatypes travel as plain memory.
 * Internal: built per MPI ABI, never installed as a header.
 */
#ifndef IBNET_A2A_STATE_H
#define IBNET_A2A_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <mpi.h>

#include "ibnet_a2a_comm.h"
#include "ibnet_a2a_host.h"
#include "ibnet_a2a_settings.h"

#define EXPORT __attribute__((visibility("default")))

/* The settings every part reads (read once, a2a_read_settings). */
extern struct ibnet_a2a_settings settings;
extern bool enabled;		/* the paced scheme may run at all */
extern bool report;		/* SLURM_IBNET_ALLTOALL_REPORT */
extern int world_rank;
extern pid_t settings_pid;	/* the process that read them */
extern unsigned long block_limit;
/* Each call's route by measurement (SLURM_IBNET_ALLTOALL_MEASURE, ibnet_a2a_choice.h). */
extern bool measure_routes;
/* The node's link in bytes per second (SLURM_IBNET_ALLTOALL_LINK_MBIT); 0: unknown. */
extern double link_rate;
/* The dispatcher's help: the MPI's own symbols, and the ranks' agreement. */
extern const struct ibnet_a2a_host *host;

/*
 * This process's window (bytes in flight towards its node's port): the
 * fixed setting, or with alltoall_window=auto what its controller
 * (ibnet_a2a_window.c) learned from every paced call so far, on any
 * communicator: one per process, since its node and port are the same.
 */
unsigned long window_now(void);
/* Calls that went to the MPI's own "within the window" lost packets. */
void window_unpaced_loss(void);
/* One paced call's sample in (ibnet_a2a_exchange.c); the next window out. */
unsigned long window_learn(const struct window_sample *s);
/* A copy of the controller (for the agreement, the report, the tally); false:
 * this process has not received in a paced call yet, its window learned nothing. */
bool window_state(struct window_ctl *copy);

/* Read the settings and the test hooks from the environment (once). */
void a2a_read_settings(void);
void say(const char *what);
uintptr_t handle_of(MPI_Comm comm);
int report_failure(MPI_Comm comm, int rc);
/* A call's own allocation failed after its route was taken: the job ends. */
void out_of_memory(const struct comm_info *ci, const char *what);

/*
 * Test builds only (-DIBNET_A2A_TESTING, build/tests/): the
 * SLURM_IBNET_ALLTOALL_TEST_* hooks (ibnet_a2a_state.c says each). The
 * installed builds have none: the calls below are constants there.
 */
#ifdef IBNET_A2A_TESTING
extern int test_ranks_per_node;
extern unsigned long test_infos_made, test_infos_freed;
extern int test_most_slots;
/* Node segments made (grown) and shrunk (ibnet_a2a_nodes.c), said at exit. */
extern unsigned long test_segments_made, test_segments_shrunk;
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
void test_die_in_segment(int rank);
#else
static inline bool test_no_segment(int rank)
{
	(void)rank;
	return false;
}

static inline void test_die_in_segment(int rank)
{
	(void)rank;
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
