/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_request.h - what a job step asks for, and where that came from.
 *
 * The order is the user's: the command-line option, else the SLURM_IBNET_*
 * variable of the step's environment, else the site's default_transport
 * (itself "none" unless the admin chose otherwise). Nothing falls back
 * silently: an option that was given but could not be read on this node
 * fails the step with its reason instead of yielding to the variable or
 * the default.
 */
#ifndef IBNET_REQUEST_H
#define IBNET_REQUEST_H

#include <stdbool.h>

#include "ibnet_config.h"
#include "ibnet_job.h"
#include "ibnet_util.h"

/* The command-line options, as their callbacks saw them. */
struct ibnet_options {
	bool transport_given;
	enum ibnet_transport transport;
	bool alltoall_given;
	bool ordered;
	/* --tcp-rto-min[=TIME|off]: rto_site for the bare option (the site's value) */
	bool rto_given;
	bool rto_site;
	unsigned long rto_us;
	/* An option value this node refused (remote context); fails the step. */
	bool refused;
	struct ibnet_err refusal;
};

/*
 * --tcp-rto-min[=VALUE] into opts, for the plugin and ibnet-hosts alike. No
 * value (NULL, "", or "(null)", the text sbatch hands the job's steps for an
 * optional argument that was not given) means the site's floor. A bad value
 * returns -1 with the sentence in err.
 */
int ibnet_options_set_rto(struct ibnet_options *opts, const char *optarg, struct ibnet_err *err);
/*
 * A floor a job asked for (us, from source) below the site's least
 * (tcp_rto_min_least): -1 with the refusal in err; 0 otherwise (0 us: off).
 */
int ibnet_rto_check_least(const struct ibnet_config *cfg, unsigned long us, const char *source,
			  struct ibnet_err *err);

/*
 * Fill job->transport, job->alltoall, job->tcp_rto_min_us and their
 * sources from the options, then the environment read through lookup, then
 * cfg's defaults. The floor: --tcp-rto-min, else SLURM_IBNET_TCP_RTO_MIN,
 * else the site's value for an --ordered-alltoall step (the whole remedy for
 * a lossy switch) or a step on a transport in tcp_rto_min_transports=.
 */
int ibnet_request_resolve(const struct ibnet_config *cfg, const struct ibnet_options *opts,
			  ibnet_env_lookup_fn lookup, void *ctx, struct ibnet_job *job,
			  struct ibnet_err *err);

/*
 * Did the step ask for anything itself (an option, or a SLURM_IBNET_*
 * variable)? A node whose configuration is broken fails exactly these steps,
 * and those that the site default would have changed.
 */
bool ibnet_request_explicit(const struct ibnet_options *opts, ibnet_env_lookup_fn lookup,
			    void *ctx);

/*
 * What sbatch, srun and salloc put in the job control environment for the
 * scheduler: job_submit.lua reads it as job_desc.spank_job_env, prolog and
 * epilog as SPANK_IBNET_TRANSPORT, SPANK_IBNET_ALLTOALL and
 * SPANK_IBNET_NEEDS_INFINIBAND. A job that asks for nothing (transport none,
 * default all-to-all) records nothing. Fills vars[] with name/value pairs
 * and returns how many (0..IBNET_CONTROL_VARS_MAX).
 */
struct ibnet_control_var {
	const char *name;
	const char *value;
};
#define IBNET_CONTROL_VARS_MAX 3
size_t ibnet_request_control_env(const struct ibnet_job *job,
				 struct ibnet_control_var vars[IBNET_CONTROL_VARS_MAX]);

#endif
