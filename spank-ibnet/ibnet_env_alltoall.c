/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_env_alltoall.c - the job preload's part of the plan: which
 * all-to-all a step gets, the paced scheme's settings, and the TCP
 * retransmission floor the same preload carries. The names, words and
 * bounds are the all-to-all's table's (contract/ibnet_a2a_settings.h) and
 * the floor's (contract/ibnet_floor_settings.h).
 */
#include "ibnet_env_alltoall.h"

#include <stdio.h>
#include <string.h>

#include "ibnet_job_vars.h"
#include "ibnet_request.h"

static const char *planner_lookup(void *ctx, const char *name)
{
	return planner_get(ctx, name);
}

/*
 * Which all-to-all an ordered step gets: the paced one where the node has
 * it, unless the user asked for pairwise or picked an MPI algorithm
 * themselves (theirs stands; the pairwise settings fill in the other MPIs
 * as before). Each fallback is a note in the step's log line.
 */
enum ibnet_a2a_scheme plan_alltoall_scheme(struct planner *pl, const struct ibnet_config *cfg,
					   const struct ibnet_job *job)
{
	const char *users;
	char text[300];

	if (job->alltoall != IBNET_ALLTOALL_PACED)
		return job->alltoall;
	if ((users = ibnet_a2a_user_choice(planner_lookup, pl))) {
		snprintf(text, sizeof(text), "%s is set by the job: its MPI algorithm "
			 "choice stands, the paced all-to-all stands aside", users);
		planner_note(pl, text);
		return IBNET_ALLTOALL_PAIRWISE;
	}
	if (!job->alltoall_path) {
		snprintf(text, sizeof(text), "the paced all-to-all %s is not on this node: "
			 "each MPI's pairwise all-to-all instead", cfg->alltoall_lib ?
			 cfg->alltoall_lib : "(alltoall_lib=none)");
		planner_note(pl, text);
		return IBNET_ALLTOALL_PAIRWISE;
	}
	return IBNET_ALLTOALL_PACED;
}

/*
 * The node's link rate for the window's controller (IBNET_A2A_ENV_LINK_MBIT):
 * what the probe read off the interface, where it said one; a value of the
 * job's own stands if it is one (the step is refused with the sentence if
 * not), as for every setting.
 */
static int plan_link_rate(struct planner *pl, const struct ibnet_job *job, struct ibnet_err *err)
{
	const char *user = planner_get(pl, IBNET_A2A_ENV_LINK_MBIT);
	unsigned long mbit;
	char value[24], buf[IBNET_SHOWN_BUF];

	if (user) {
		if (ibnet_a2a_link_mbit_parse(user, &mbit) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s: '%s' is not a rate in Mbit/s (0 to %lu)",
				      IBNET_A2A_ENV_LINK_MBIT, ibnet_value_shown(user, buf),
				      IBNET_A2A_LINK_MBIT_MAX);
			return -1;
		}
		return 0;
	}
	if (!job->link_mbit)
		return 0;
	snprintf(value, sizeof(value), "%lu", job->link_mbit);
	planner_set_managed(pl, IBNET_A2A_ENV_LINK_MBIT, value);
	return 0;
}

/*
 * The paced all-to-all's settings: the site's (the threshold of the step's
 * transport), unless the job set its own, which must then be valid (the
 * step is refused with the sentence).
 */
int plan_alltoall_settings(struct planner *pl, const struct ibnet_config *cfg,
			   const struct ibnet_job *job, struct ibnet_err *err)
{
	enum ibnet_transport transport = job->transport;
	struct ibnet_a2a_settings site = cfg->a2a, check;
	char value[32], msg[256];
	int k;

	site.threshold = cfg->a2a_threshold[transport];
	check = site;
	for (k = 0; k < IBNET_A2A_KEY_COUNT; k++) {
		const char *name = ibnet_a2a_keys[k].env, *user = planner_get(pl, name);

		if (user) {
			if (ibnet_a2a_setting_set(&check, (enum ibnet_a2a_key)k, user, name, msg,
						  sizeof(msg)) < 0) {
				ibnet_err_set(err, IBNET_PREFIX "%s", msg);
				return -1;
			}
			continue;
		}
		ibnet_a2a_setting_text(&site, (enum ibnet_a2a_key)k, value, sizeof(value));
		planner_set_managed(pl, name, value);
	}
	return plan_link_rate(pl, job, err);
}

/*
 * The TCP retransmission floor: SLURM_IBNET_TCP_RTO_MIN_US, the value the
 * node's kernel took, for the preload; a job's own value stands if valid.
 * Asked but not possible here: the step runs without it, and says why.
 * *floor says whether the preload is needed for it (the socket-option
 * tier); the BPF tier needs no preload, its program is on the step's cgroup.
 */
int plan_rto_floor(struct planner *pl, const struct ibnet_config *cfg,
		   const struct ibnet_job *job, bool *floor, struct ibnet_err *err)
{
	const char *user = planner_get(pl, IBNET_RTO_ENV_US);
	unsigned long us;
	char value[32], text[600], msg[160];

	*floor = false;
	if (ibnet_job_ordered(job) && !job->tcp_rto_min_us && !cfg->tcp_rto_min_us)
		planner_note(pl, "no TCP retransmission floor: the site has it off (tcp_rto_min=off)");
	if (job->tcp_rto_min_record) {
		if (job->tcp_rto_min_us % 1000)
			snprintf(value, sizeof(value), "%luus", job->tcp_rto_min_us);
		else if (job->tcp_rto_min_us)
			snprintf(value, sizeof(value), "%lums", job->tcp_rto_min_us / 1000);
		else
			snprintf(value, sizeof(value), "off");
		planner_put_bookkeeping(pl, false, IBNET_RTO_ENV_ASK, value);
	}
	/*
	 * A job's own value stands, but within the same bounds as one asked for:
	 * the preload sets whatever it says on every socket, so one under the
	 * site's least passed where the option was refused (issue 50: 10ms
	 * asked, SLURM_IBNET_TCP_RTO_MIN_US=3000 kept under a least of 5ms).
	 */
	if (user && ibnet_rto_parse_us(user, &us, msg, sizeof(msg)) < 0) {
		ibnet_err_set(err, IBNET_PREFIX "%s", msg);
		return -1;
	}
	if (user && ibnet_rto_check_least(cfg, us, IBNET_RTO_ENV_US, err) < 0)
		return -1;
	if (!job->tcp_rto_min_us)
		return 0;
	if (!job->tcp_rto_floor_us || job->tcp_rto_tier == IBNET_FLOOR_NONE) {
		snprintf(text, sizeof(text), "no TCP retransmission floor (%s): %s; the step's "
			 "sockets keep Linux's 200 ms", job->tcp_rto_min_source ?
			 job->tcp_rto_min_source : "?", job->tcp_rto_why_not[0] ?
			 job->tcp_rto_why_not : "not available on this node");
		planner_note(pl, text);
		return 0;
	}
	*floor = job->tcp_rto_tier == IBNET_FLOOR_SOCKOPT;
	if (user)
		return 0;	/* checked above */
	snprintf(value, sizeof(value), "%lu", job->tcp_rto_floor_us);
	planner_set_managed(pl, IBNET_RTO_ENV_US, value);
	return 0;
}
