/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env.c - a step's environment plan: the parts in their order
 * (ibnet_planner.h lists them), the job's hosts under the transport's names
 * (SLURM_IBNET_HOSTS, GAUSS_WDEF), the gate's programs, and the plan's line
 * for the node's log.
 */
#include "ibnet_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_env_alltoall.h"
#include "ibnet_env_mpi.h"
#include "ibnet_gaussian.h"
#include "ibnet_hostlist.h"
#include "ibnet_planner.h"
#include "ibnet_preload.h"
#include "ibnet_probe.h"

/* SLURM_IBNET_HOSTS: the job's hosts under the transport's names, if they fit. -1: no memory. */
static int plan_hosts(struct planner *pl, bool network, const struct ibnet_strvec *net_hosts)
{
	char *list;

	if (!network) {
		planner_put_bookkeeping(pl, true, "SLURM_IBNET_HOSTS", NULL);
		return 0;
	}
	if (!(list = ibnet_strvec_join(net_hosts, ",")))
		return -1;
	if (planner_fits("SLURM_IBNET_HOSTS", list)) {
		planner_put(pl, "SLURM_IBNET_HOSTS", list);
	} else {
		planner_put(pl, "SLURM_IBNET_HOSTS", NULL);
		if (ibnet_strvec_push(&pl->plan->too_long, "SLURM_IBNET_HOSTS") < 0) {
			free(list);
			return -1;
		}
	}
	free(list);
	return 0;
}

/* SLURM_IBNET_RSOCKET_PROGRAMS: the site's programs for the gate, unless the job chose. */
static void plan_rsocket_programs(struct planner *pl, const struct ibnet_config *cfg,
				  const struct ibnet_job *job)
{
	if (job->transport == IBNET_RSOCKET && !planner_get(pl, IBNET_RSOCKET_PROGRAMS_VAR))
		planner_set_managed(pl, IBNET_RSOCKET_PROGRAMS_VAR, cfg->rsocket_programs);
}

/* GAUSS_WDEF: the Linda worker list, one worker per node, batch host first. */
static int plan_wdef(struct planner *pl, const struct ibnet_config *cfg,
		     const struct ibnet_job *job, const struct ibnet_strvec *net_hosts,
		     struct ibnet_err *err)
{
	const char *cur = planner_get(pl, "GAUSS_WDEF");

	if (cur) {
		char *rewritten;

		if (!ibnet_transport_needs_ib(job->transport))
			return 0;	/* the user's names are already the Ethernet names */
		rewritten = ibnet_wdef_rewrite(cfg->ib_rule, cur, net_hosts, err);
		if (!rewritten)
			return -1;
		if (strcmp(rewritten, cur) != 0)
			planner_set_changed(pl, "GAUSS_WDEF", cur, rewritten);
		free(rewritten);
		return 0;
	}
	/* One node needs no Linda worker; Gaussian runs shared-memory there. */
	if (net_hosts->n > 1) {
		char *list = ibnet_strvec_join(net_hosts, ",");

		if (!list)
			return -1;
		planner_set_managed(pl, "GAUSS_WDEF", list);
		free(list);
	}
	return 0;
}

int ibnet_env_plan_build(const struct ibnet_config *cfg, const struct ibnet_job *job,
			 ibnet_env_lookup_fn lookup, void *ctx,
			 struct ibnet_env_plan *plan, struct ibnet_err *err)
{
	struct planner pl = { .plan = plan, .lookup = lookup, .ctx = ctx };
	struct ibnet_strvec hosts = { 0 }, net_hosts = { 0 };
	bool network = job->transport != IBNET_NONE;
	bool untouched = !network && !ibnet_job_ordered(job) && !job->tcp_rto_min_us &&
			 !job->tcp_rto_min_record;
	bool paced, floor;
	int rc = -1;

	memset(plan, 0, sizeof(*plan));
	if (network && !job->iface) {
		ibnet_err_set(err, IBNET_PREFIX "--transport=%s: no network interface was chosen",
			      ibnet_transport_name(job->transport));
		return -1;
	}
	planner_undo_previous(&pl);

	if (network && job->nodelist) {
		if (ibnet_hostlist_expand_max(job->nodelist, job->max_hosts ? job->max_hosts :
					      IBNET_JOB_HOSTS_MAX, &hosts, err) < 0)
			goto out;
		if (!ibnet_transport_needs_ib(job->transport)) {
			net_hosts = hosts;
			memset(&hosts, 0, sizeof(hosts));
		} else if (ibnet_rule_map(cfg->ib_rule, &hosts, &net_hosts, err) < 0) {
			goto out;
		}
	}

	/* The plugin's own variables say what this step got. */
	planner_put_bookkeeping(&pl, untouched, IBNET_TRANSPORT_ENV,
				ibnet_transport_name(job->transport));
	planner_put_bookkeeping(&pl, !network, IBNET_NEEDS_IB_VAR, !network ? NULL :
				IBNET_NEEDS_IB_WORD(ibnet_transport_needs_ib(job->transport)));
	plan->alltoall = plan_alltoall_scheme(&pl, cfg, job);
	paced = plan->alltoall == IBNET_ALLTOALL_PACED;
	planner_put_bookkeeping(&pl, untouched, IBNET_A2A_ENV_SCHEME,
				ibnet_a2a_scheme_name(plan->alltoall));
	if (plan_hosts(&pl, network, &net_hosts) < 0)
		goto nomem;

	plan_mpi_vars(&pl, cfg, job, plan->alltoall);
	if (plan_rto_floor(&pl, cfg, job, &floor, err) < 0)
		goto out;
	plan_preload(&pl, job, paced || floor);
	if (paced && plan_alltoall_settings(&pl, cfg, job, err) < 0)
		goto out;
	plan_rsocket_programs(&pl, cfg, job);

	if (network && plan_wdef(&pl, cfg, job, &net_hosts, err) < 0)
		goto out;

	planner_finish(&pl);
	if (pl.nomem)
		goto nomem;
	rc = 0;
	goto out;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory building the job environment");
out:
	if (rc < 0)
		ibnet_env_plan_free(plan);
	ibnet_strvec_free(&hosts);
	ibnet_strvec_free(&net_hosts);
	ibnet_strvec_free(&pl.managed);
	ibnet_strvec_free(&pl.users);
	return rc;
}

void ibnet_env_plan_free(struct ibnet_env_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		free(plan->ops[i].name);
		free(plan->ops[i].value);
	}
	free(plan->ops);
	ibnet_strvec_free(&plan->too_long);
	ibnet_strvec_free(&plan->notes);
	memset(plan, 0, sizeof(*plan));
}

char *ibnet_env_plan_describe(const struct ibnet_job *job, const struct ibnet_env_plan *plan)
{
	struct ibnet_buf b = { 0 };
	char part[256];
	size_t i;

	snprintf(part, sizeof(part), "transport=%s (%s), alltoall=%s (%s)",
		 ibnet_transport_name(job->transport),
		 job->transport_source ? job->transport_source : "?",
		 ibnet_a2a_scheme_name(plan->alltoall),
		 job->alltoall_source ? job->alltoall_source : "?");
	ibnet_buf_adds(&b, part);
	if (job->iface) {
		ibnet_buf_adds(&b, ", interface ");
		ibnet_buf_adds(&b, job->iface);
		if (job->iface_how[0]) {
			ibnet_buf_adds(&b, " (");
			ibnet_buf_adds(&b, job->iface_how);
			ibnet_buf_adds(&b, ")");
		}
	}
	if (job->rsgate_path && job->rspreload_path) {
		ibnet_buf_adds(&b, ", preload ");
		ibnet_buf_adds(&b, job->rsgate_path);
		ibnet_buf_adds(&b, ":");
		ibnet_buf_adds(&b, job->rspreload_path);
	}
	if (plan->alltoall == IBNET_ALLTOALL_PACED) {
		ibnet_buf_adds(&b, ", paced all-to-all ");
		ibnet_buf_adds(&b, job->alltoall_path);
		if (job->link_mbit)
			snprintf(part, sizeof(part), " (link %s at %lu Mbit/s)", job->link_iface,
				 job->link_mbit);
		else
			snprintf(part, sizeof(part), " (link rate unknown%s%s: the window goes by "
				 "loss alone)", job->link_iface[0] ? " on " : "", job->link_iface);
		ibnet_buf_adds(&b, part);
	}
	if (job->tcp_rto_floor_us && job->tcp_rto_tier != IBNET_FLOOR_NONE) {
		snprintf(part, sizeof(part), ", TCP retransmission floor %lu us (%s) by %s",
			 job->tcp_rto_floor_us, job->tcp_rto_min_source ? job->tcp_rto_min_source : "?",
			 ibnet_floor_tier_name(job->tcp_rto_tier));
		ibnet_buf_adds(&b, part);
	}
	if (plan->n == 0) {
		ibnet_buf_adds(&b, "; environment untouched");
	} else {
		snprintf(part, sizeof(part), "; %zu environment change%s", plan->n,
			 plan->n == 1 ? "" : "s");
		ibnet_buf_adds(&b, part);
	}
	/* After the count: the clause has commas of its own. */
	if (plan->alltoall == IBNET_ALLTOALL_PACED) {
		ibnet_buf_adds(&b, "; ");
		ibnet_buf_adds(&b, ibnet_probe_paced_builds_describe(job->paced_build, part,
								     sizeof(part)));
	}
	if (job->nodes_note[0]) {
		ibnet_buf_adds(&b, "; ");
		ibnet_buf_adds(&b, job->nodes_note);
	}
	for (i = 0; i < plan->notes.n; i++) {
		ibnet_buf_adds(&b, "; ");
		ibnet_buf_adds(&b, plan->notes.v[i]);
	}
	for (i = 0; i < plan->too_long.n; i++) {
		ibnet_buf_adds(&b, "; not set (too long): ");
		ibnet_buf_adds(&b, plan->too_long.v[i]);
	}
	return ibnet_buf_take(&b);
}
