/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_step.c - one job step, from request to environment (ibnet_step.h).
 */
#include "ibnet_step.h"

#include <stdlib.h>
#include <string.h>

#include "ibnet_probe.h"

int ibnet_step_plan(const struct ibnet_config *cfg, const struct ibnet_step_inputs *in,
		    struct ibnet_step *step, struct ibnet_err *err)
{
	struct ibnet_job *job = &step->job;

	memset(step, 0, sizeof(*step));
	if (ibnet_request_resolve(cfg, in->opts, in->lookup, in->ctx, job, err) < 0)
		goto refused;
	/* An interface given is the node's; a step asking for no network has none. */
	if (in->iface && job->transport != IBNET_NONE)
		job->iface = in->iface;
	job->floor_chosen = in->floor_chosen;
	job->node_name = in->node_name;
	/* The nodes first: the probe may find the interface by the route to them. */
	if (in->nodelist) {
		job->nodelist = in->nodelist;
	} else {
		if (ibnet_job_nodelist(in->lookup, in->ctx, &step->nodelist, &job->max_hosts,
				       job->nodes_note, sizeof(job->nodes_note), err) < 0)
			goto refused;
		job->nodelist = step->nodelist;
	}
	if (ibnet_probe_job(cfg, job, err) < 0)
		goto refused;
	if (ibnet_env_plan_build(cfg, job, in->lookup, in->ctx, &step->plan, err) < 0)
		goto refused;
	step->summary = ibnet_env_plan_describe(job, &step->plan);
	step->asked_nothing = job->transport == IBNET_NONE && !ibnet_job_ordered(job) &&
			      !job->tcp_rto_min_us;
	return 0;
refused:
	free(step->nodelist);
	memset(step, 0, sizeof(*step));
	return -1;
}

void ibnet_step_free(struct ibnet_step *step)
{
	ibnet_env_plan_free(&step->plan);
	free(step->summary);
	free(step->nodelist);
	memset(step, 0, sizeof(*step));
}
