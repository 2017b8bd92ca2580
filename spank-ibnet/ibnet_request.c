/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_request.c - what a job step asks for, and where that came from.
 */
#include "ibnet_request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRANSPORT_VAR IBNET_TRANSPORT_ENV
#define ALLTOALL_VAR IBNET_A2A_ENV_SCHEME

int ibnet_options_set_rto(struct ibnet_options *opts, const char *optarg, struct ibnet_err *err)
{
	char msg[256];

	opts->rto_site = !optarg || !*optarg || strcmp(optarg, "(null)") == 0;
	if (!opts->rto_site &&
	    ibnet_rto_parse(optarg, "--tcp-rto-min", &opts->rto_us, msg, sizeof(msg)) < 0) {
		ibnet_err_set(err, IBNET_PREFIX "%s", msg);
		return -1;
	}
	opts->rto_given = true;
	return 0;
}

int ibnet_rto_check_least(const struct ibnet_config *cfg, unsigned long us, const char *source,
			  struct ibnet_err *err)
{
	if (!us || us >= cfg->tcp_rto_min_least_us)
		return 0;
	ibnet_err_set(err, IBNET_PREFIX "%s: a retransmission floor of %luus is below this site's "
		      "least, %luus (plugstack.conf tcp_rto_min_least): a floor under the real round "
		      "trip resends packets that were only late", source, us,
		      cfg->tcp_rto_min_least_us);
	return -1;
}

static int resolve_rto_floor(const struct ibnet_config *cfg, const struct ibnet_options *opts,
			     const char *env, struct ibnet_job *job, struct ibnet_err *err)
{
	char msg[256];

	job->tcp_rto_min_us = 0;
	job->tcp_rto_min_record = false;
	if (opts->rto_given) {
		job->tcp_rto_min_source = "--tcp-rto-min";
		job->tcp_rto_min_record = true;
		job->tcp_rto_min_us = opts->rto_site ? cfg->tcp_rto_min_us : opts->rto_us;
	} else if (env) {
		job->tcp_rto_min_source = IBNET_RTO_ENV_ASK;
		if (ibnet_rto_parse(env, IBNET_RTO_ENV_ASK, &job->tcp_rto_min_us, msg,
				    sizeof(msg)) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "%s", msg);
			return -1;
		}
	} else if (ibnet_job_ordered(job)) {
		job->tcp_rto_min_source = job->alltoall_source;
		job->tcp_rto_min_us = cfg->tcp_rto_min_us;
		return 0;	/* the site's, which may be off */
	} else if (cfg->tcp_rto_min_default[job->transport]) {
		job->tcp_rto_min_source = "site default for the transport";
		job->tcp_rto_min_us = cfg->tcp_rto_min_us;
		return 0;
	} else {
		job->tcp_rto_min_source = "default";
		return 0;
	}
	/* Asked for by the job: a site that switched the floor off says so. */
	if ((job->tcp_rto_min_us || (opts->rto_given && opts->rto_site)) && !cfg->tcp_rto_min_us) {
		ibnet_err_set(err, IBNET_PREFIX "%s: this site has switched the TCP retransmission "
			      "floor off (plugstack.conf tcp_rto_min=off)", job->tcp_rto_min_source);
		return -1;
	}
	return ibnet_rto_check_least(cfg, job->tcp_rto_min_us, job->tcp_rto_min_source, err);
}

int ibnet_request_resolve(const struct ibnet_config *cfg, const struct ibnet_options *opts,
			  ibnet_env_lookup_fn lookup, void *ctx, struct ibnet_job *job,
			  struct ibnet_err *err)
{
	const char *env_t = lookup(ctx, TRANSPORT_VAR);
	const char *env_a = lookup(ctx, ALLTOALL_VAR);

	if (opts->refused) {
		*err = opts->refusal;
		return -1;
	}
	if (opts->transport_given) {
		job->transport = opts->transport;
		job->transport_source = "--transport";
	} else if (env_t) {
		job->transport_source = TRANSPORT_VAR;
		if (ibnet_transport_parse(env_t, TRANSPORT_VAR, &job->transport, err) < 0)
			return -1;
	} else {
		job->transport = cfg->default_transport;
		job->transport_source = "site default";
	}
	if (ibnet_transport_check_allowed(cfg, job->transport, job->transport_source, err) < 0)
		return -1;

	if (opts->alltoall_given) {
		job->alltoall = opts->ordered ? IBNET_ALLTOALL_PACED : IBNET_ALLTOALL_DEFAULT;
		job->alltoall_source = opts->ordered ? "--ordered-alltoall" : "--no-ordered-alltoall";
	} else if (env_a) {
		job->alltoall_source = ALLTOALL_VAR;
		if (ibnet_a2a_scheme_parse(env_a, &job->alltoall) < 0) {
			ibnet_err_set(err, IBNET_PREFIX "invalid " ALLTOALL_VAR " %s (expected "
				      IBNET_A2A_SCHEME_WORDS ")", ibnet_quote(env_a));
			return -1;
		}
	} else {
		job->alltoall = IBNET_ALLTOALL_DEFAULT;
		job->alltoall_source = "default";
	}
	return resolve_rto_floor(cfg, opts, lookup(ctx, IBNET_RTO_ENV_ASK), job, err);
}

size_t ibnet_request_control_env(const struct ibnet_job *job,
				 struct ibnet_control_var vars[IBNET_CONTROL_VARS_MAX])
{
	size_t n = 0;

	if (job->transport == IBNET_NONE && !ibnet_job_ordered(job))
		return 0;
	vars[n].name = "IBNET_TRANSPORT";
	vars[n++].value = ibnet_transport_name(job->transport);
	vars[n].name = "IBNET_ALLTOALL";
	vars[n++].value = ibnet_job_ordered(job) ? "ordered" : "default";
	vars[n].name = IBNET_NEEDS_IB_CONTROL;
	vars[n++].value = IBNET_NEEDS_IB_WORD(ibnet_transport_needs_ib(job->transport));
	return n;
}

bool ibnet_request_explicit(const struct ibnet_options *opts, ibnet_env_lookup_fn lookup,
			    void *ctx)
{
	return opts->transport_given || opts->alltoall_given || opts->rto_given || opts->refused ||
	       lookup(ctx, TRANSPORT_VAR) || lookup(ctx, ALLTOALL_VAR) || lookup(ctx, IBNET_RTO_ENV_ASK);
}
