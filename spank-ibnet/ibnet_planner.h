/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_planner.h - inside the environment plan (not for the SPANK layer):
 * the planner every part writes through, and the list of the parts.
 *
 * A plan is an overlay on the job's environment: each part reads the value
 * a variable would have after the parts before it (planner_get), and writes
 * through the ownership rules of ibnet_env.h (planner_set_managed,
 * planner_set_changed), which ibnet_planner.c alone implements.
 *
 * Every part of a step's plan, in the order ibnet_env_plan_build
 * (ibnet_env.c) runs them, and the file that holds each; a part outside
 * ibnet_env.c is declared in the header of its file
 * (tests/unit/source-layout.bats checks this list against ibnet_env.c):
 *   planner_undo_previous  what an earlier step set, where the job   ibnet_planner.c
 *                          has not changed it since
 *   (bookkeeping)          SLURM_IBNET_TRANSPORT,                     ibnet_env.c
 *                          SLURM_IBNET_NEEDS_INFINIBAND
 *   plan_alltoall_scheme   which all-to-all the step gets; then       ibnet_env_alltoall.c
 *                          SLURM_IBNET_ALLTOALL says it
 *   plan_hosts             SLURM_IBNET_HOSTS                          ibnet_env.c
 *   plan_mpi_vars          each MPI's variables                       ibnet_env_mpi.c
 *   plan_rto_floor         the TCP retransmission floor               ibnet_env_alltoall.c
 *   plan_preload           LD_PRELOAD                                 ibnet_preload.c
 *   plan_alltoall_settings the paced scheme's settings                ibnet_env_alltoall.c
 *   plan_rsocket_programs  SLURM_IBNET_RSOCKET_PROGRAMS               ibnet_env.c
 *   plan_wdef              GAUSS_WDEF, Linda's workers                ibnet_env.c
 *   planner_finish         SLURM_IBNET_MANAGED                        ibnet_planner.c
 */
#ifndef IBNET_PLANNER_H
#define IBNET_PLANNER_H

#include "ibnet_env.h"

#define IBNET_MANAGED_VAR "SLURM_IBNET_MANAGED"
/*
 * The longest SLURM_IBNET_MANAGED read back: the plugin writes some 30
 * entries of at most 110 bytes. The job can set it to anything; a longer
 * one is not read (a sentence says so) and the earlier step's variables stay.
 */
#define IBNET_MANAGED_MAX 8192
#define IBNET_ORIG_PREFIX "SLURM_IBNET_ORIG_"

struct planner {
	struct ibnet_env_plan *plan;
	ibnet_env_lookup_fn lookup;
	void *ctx;
	struct ibnet_strvec managed;	/* NAME:HASH entries for the new plan */
	struct ibnet_strvec users;	/* names the job took over: never touched */
	bool nomem;
};

/* The value name would have after the plan so far. */
const char *planner_get(struct planner *pl, const char *name);
/* Record name=value (value NULL: unset), replacing an earlier op; no bookkeeping. */
void planner_put(struct planner *pl, const char *name, const char *value);
/* Set a variable the plugin owns from now on, remembering its hash. */
void planner_set_managed(struct planner *pl, const char *name, const char *value);
/* Change a variable the user set, keeping their value to restore later. */
void planner_set_changed(struct planner *pl, const char *name, const char *user_value,
			 const char *value);
/*
 * The plugin's own SLURM_IBNET_* variables: a step that gets nothing
 * (untouched) adds none, and only corrects those an earlier step left.
 */
void planner_put_bookkeeping(struct planner *pl, bool untouched, const char *name,
			     const char *value);
/* A decision worth the log line. */
void planner_note(struct planner *pl, const char *text);
/* Would "name=value" fit in one environment string? */
bool planner_fits(const char *name, const char *value);
/* Undo what an earlier step of this job set, where the job has not since. */
void planner_undo_previous(struct planner *pl);
/* SLURM_IBNET_MANAGED for this plan. */
void planner_finish(struct planner *pl);

#endif
