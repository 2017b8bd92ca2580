/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env.h - the environment a job step gets for its transport and all-to-all.
 *
 * ibnet_env.c puts the parts together in their order; each part lives in
 * its own file (ibnet_planner.h lists them): the ownership bookkeeping
 * (ibnet_planner.c), each MPI's variables (ibnet_env_mpi.c), LD_PRELOAD
 * (ibnet_preload.c), the all-to-all and the TCP floor
 * (ibnet_env_alltoall.c), GAUSS_WDEF's grammar (ibnet_gaussian.c).
 *
 * A pure function: given the config, the job's request and a way to read
 * the job's current environment, it returns the list of changes to make.
 * The SPANK layer applies them with spank_setenv; ibnet-hosts --env prints
 * them as shell commands. Nothing here touches the process environment.
 *
 * Ownership. A variable the user set is never overwritten, with two
 * documented exceptions the user asked for by choosing a transport:
 * LD_PRELOAD (ours are appended, theirs kept) and GAUSS_WDEF (their hosts
 * renamed to IB names, ":N" counts kept). Whatever the plugin sets or
 * changes is recorded in SLURM_IBNET_MANAGED as NAME:HASH, and the user's
 * original value of a changed variable in SLURM_IBNET_ORIG_<NAME>. A later
 * step (srun --transport=tcp inside an rsocket job) first undoes exactly
 * those entries whose value still has the recorded hash, then applies its
 * own. A variable the user changed or unset after us is theirs for the
 * rest of the job: it is recorded as NAME:- and never set, changed or
 * removed again (an "unset LD_PRELOAD" in a batch script holds for every
 * later srun).
 *
 * Transport "none" with the default all-to-all plans nothing at all: the
 * step's environment is exactly what it would be without the plugin. Only
 * where an earlier step of the job left its own bookkeeping does "none" undo
 * it and say so in SLURM_IBNET_TRANSPORT.
 */
#ifndef IBNET_ENV_H
#define IBNET_ENV_H

#include <stdbool.h>

#include "ibnet_config.h"
#include "ibnet_job.h"
#include "ibnet_util.h"

/* Kernel limit on one "NAME=value" string (MAX_ARG_STRLEN). */
#define IBNET_ENV_STRING_MAX (32 * 4096)

struct ibnet_env_op {
	char *name;
	char *value;		/* NULL: unset */
};

struct ibnet_env_plan {
	struct ibnet_env_op *ops;
	size_t n;
	size_t cap;
	/* Variables left out because they would exceed IBNET_ENV_STRING_MAX. */
	struct ibnet_strvec too_long;
	/* Decisions worth a log line: variables left to the job, and why. */
	struct ibnet_strvec notes;
	/* The all-to-all the step got (SLURM_IBNET_ALLTOALL says it by name). */
	enum ibnet_a2a_scheme alltoall;
};

int ibnet_env_plan_build(const struct ibnet_config *cfg, const struct ibnet_job *job,
			 ibnet_env_lookup_fn lookup, void *ctx,
			 struct ibnet_env_plan *plan, struct ibnet_err *err);
void ibnet_env_plan_free(struct ibnet_env_plan *plan);

/*
 * One line for the node's log: what the step got and where each choice
 * came from. Returns a malloc'd string, or NULL when out of memory.
 */
char *ibnet_env_plan_describe(const struct ibnet_job *job, const struct ibnet_env_plan *plan);

#endif
