/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_step.h - one job step, from what it asks to the environment it
 * gets: the one function the plugin (in slurmstepd) and ibnet-hosts --env
 * both call, so that what an admin tries is what a job gets.
 *
 *   ibnet_request_resolve   the options, else SLURM_IBNET_*, else the site
 *   ibnet_probe_job         what this node has: interface, libraries, floor
 *   ibnet_job_nodelist      the job's nodes (SLURM_JOB_NODELIST, het jobs)
 *   ibnet_env_plan_build    the environment changes, and the log line
 */
#ifndef IBNET_STEP_H
#define IBNET_STEP_H

#include <stdbool.h>

#include "ibnet_config.h"
#include "ibnet_env.h"
#include "ibnet_job.h"
#include "ibnet_request.h"

/* What the caller gathered: the plugin from Slurm, ibnet-hosts from its command line. */
struct ibnet_step_inputs {
	const struct ibnet_options *opts;
	ibnet_env_lookup_fn lookup;	/* the step's environment */
	void *ctx;
	const char *nodelist;		/* the job's nodes as given; NULL: from the environment */
	const char *node_name;		/* this node's Slurm name; NULL: its host name only */
	const char *iface;		/* the node's interface as given; NULL: probe this node */
	/* The floor's tier, chosen (and for bpf started) by the plugin as root;
	   NULL: the probe checks the tiers (ibnet-hosts) */
	const struct ibnet_floor_choice *floor_chosen;
};

struct ibnet_step {
	struct ibnet_job job;
	struct ibnet_env_plan plan;
	char *summary;		/* the decision, for the node's log (NULL: out of memory) */
	bool asked_nothing;	/* transport none, default all-to-all, no floor: log quietly */
	char *nodelist;		/* storage behind job.nodelist */
};

/*
 * Plan the step. 0 with the plan, the job it was made for and its summary
 * in step; -1 with the refusal in err (step holds nothing to free then).
 */
int ibnet_step_plan(const struct ibnet_config *cfg, const struct ibnet_step_inputs *in,
		    struct ibnet_step *step, struct ibnet_err *err);
void ibnet_step_free(struct ibnet_step *step);

#endif
