/*
 * spank_ibnet.c - Slurm SPANK plugin: the right network for every job.
 *
 *   sbatch --transport=rsocket|ipoib|tcp [--ordered-alltoall] job.sh
 *
 * plugstack.conf:
 *   required /usr/local/lib/slurm/spank_ibnet.so ib_hostname=s/^c(.*)/cib\1/
 *
 * This file is the thin layer between Slurm and the decisions, which live
 * in files testable without Slurm: ibnet_config (options and site
 * arguments), ibnet_rule and ibnet_hostlist (IB host names), ibnet_env
 * (what each transport sets) and ibnet_probe (what this node has).
 *
 * Where things happen:
 *   srun, sbatch, salloc (local/allocator context): every user value is
 *     checked before the job is queued: the option in its callback, the
 *     SLURM_IBNET_* defaults in init_post_opt.
 *   slurmstepd (remote context): user_init plans the environment once per
 *     step and node; task_init applies it to the batch script and to every
 *     task, or fails the task with the reason. A failure never happens in
 *     user_init: Slurm drains a node whose batch step fails there, and a
 *     user's bad GAUSS_WDEF must not drain nodes.
 *   slurmd, prolog/epilog: nothing; a bad argument must never stop slurmd.
 */
#include <slurm/spank.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_config.h"
#include "ibnet_env.h"
#include "ibnet_probe.h"

SPANK_PLUGIN(ibnet, 1);

static struct ibnet_config cfg;
static bool cfg_loaded;

static bool opt_transport_given;
static enum ibnet_transport opt_transport;
static bool opt_ordered;

/* The step's plan, made in user_init, applied in each task_init. */
static struct ibnet_env_plan step_plan;
static bool step_planned;
static struct ibnet_err step_err;

static int _opt_transport(int val, const char *optarg, int remote);
static int _opt_ordered(int val, const char *optarg, int remote);

static struct spank_option ibnet_options[] = {
	{ "transport", "rsocket|ipoib|tcp",
	  "Network for the job's sockets and MPI: rsocket (sockets over RDMA via "
	  "librspreload, IB host names), ipoib (TCP over the IB network) or tcp "
	  "(Ethernet). Default: $SLURM_IBNET_TRANSPORT, else the site's.",
	  1, 0, _opt_transport },
	{ "ordered-alltoall", NULL,
	  "Make the job's MPI library use an ordered (pairwise) all-to-all, "
	  "which avoids switch congestion on Ethernet without flow control.",
	  0, 0, _opt_ordered },
	SPANK_OPTIONS_TABLE_END
};

static int _opt_transport(int val, const char *optarg, int remote)
{
	struct ibnet_err err = { "" };
	enum ibnet_transport t;

	(void)val;
	(void)remote;
	if (ibnet_transport_parse(optarg, "--transport", &t, &err) < 0 ||
	    (cfg_loaded && ibnet_transport_check_allowed(&cfg, t, "--transport", &err) < 0)) {
		slurm_error("%s", err.msg);
		return -1;
	}
	opt_transport = t;
	opt_transport_given = true;
	return 0;
}

static int _opt_ordered(int val, const char *optarg, int remote)
{
	(void)val;
	(void)optarg;
	(void)remote;
	opt_ordered = true;
	return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	struct ibnet_err err = { "" };
	spank_context_t ctx = spank_context();
	int i;

	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	for (i = 0; ibnet_options[i].name; i++) {
		if (spank_option_register(sp, &ibnet_options[i]) != ESPANK_SUCCESS) {
			slurm_error(IBNET_PREFIX "cannot register option --%s", ibnet_options[i].name);
			return -1;
		}
	}
	if (ibnet_config_parse(&cfg, ac, av, &err) < 0) {
		slurm_error("%s", err.msg);
		return -1;
	}
	cfg_loaded = true;
	return 0;
}

/*
 * The transport and all-to-all this job or step asks for: the option,
 * else the SLURM_IBNET_* variable, else the site default. `get` reads the
 * submitting environment (local) or the job's (remote).
 */
static int resolve_request(const char *(*get)(void *, const char *), void *ctx,
			   enum ibnet_transport *t, bool *ordered, struct ibnet_err *err)
{
	const char *env_t = get(ctx, "SLURM_IBNET_TRANSPORT");
	const char *env_a = get(ctx, "SLURM_IBNET_ALLTOALL");
	const char *source = "--transport";

	if (opt_transport_given) {
		*t = opt_transport;
	} else if (env_t) {
		source = "SLURM_IBNET_TRANSPORT";
		if (ibnet_transport_parse(env_t, source, t, err) < 0)
			return -1;
	} else {
		*t = cfg.default_transport;
	}
	if (ibnet_transport_check_allowed(&cfg, *t, source, err) < 0)
		return -1;

	*ordered = opt_ordered;
	if (!opt_ordered && env_a) {
		if (strcmp(env_a, "ordered") != 0 && strcmp(env_a, "default") != 0) {
			ibnet_err_set(err, IBNET_PREFIX "invalid SLURM_IBNET_ALLTOALL %s "
				      "(expected ordered or default)", ibnet_quote(env_a));
			return -1;
		}
		*ordered = strcmp(env_a, "ordered") == 0;
	}
	return 0;
}

static const char *process_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

/* Read a variable from the job's environment array (no size limit). */
static const char *job_getenv(void *ctx, const char *name)
{
	char **env = ctx;
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	struct ibnet_err err = { "" };
	enum ibnet_transport t;
	bool ordered;

	(void)ac;
	(void)av;
	if (!cfg_loaded || spank_remote(sp))
		return 0;
	/* Check the user's defaults here, before anything is queued. */
	if (resolve_request(process_getenv, NULL, &t, &ordered, &err) < 0) {
		slurm_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* Check this node has what the transport needs; fill in the libraries. */
static int probe_node(struct ibnet_job *job, struct ibnet_err *err)
{
	char why[64];
	const char *iface = job->transport == IBNET_TCP ? cfg.eth_iface : cfg.ib_iface;

	snprintf(why, sizeof(why), "--transport=%s", ibnet_transport_name(job->transport));
	if (ibnet_probe_iface(iface, why, err) < 0)
		return -1;
	if (job->transport != IBNET_RSOCKET)
		return 0;
	job->rspreload_path = ibnet_probe_rspreload(&cfg, err);
	job->rsgate_path = job->rspreload_path ? ibnet_probe_rsgate(&cfg, err) : NULL;
	return job->rsgate_path ? 0 : -1;
}

static int apply_plan(spank_t sp, const struct ibnet_env_plan *plan)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const struct ibnet_env_op *op = &plan->ops[i];
		spank_err_t rc = op->value ? spank_setenv(sp, op->name, op->value, 1)
					   : spank_unsetenv(sp, op->name);

		if (rc != ESPANK_SUCCESS) {
			slurm_error(IBNET_PREFIX "cannot set %s in the job environment: %s",
				    op->name, spank_strerror(rc));
			return -1;
		}
	}
	for (i = 0; i < plan->too_long.n; i++)
		slurm_error(IBNET_PREFIX "%s not set: with this job's hosts it would exceed the "
			    "kernel's %d-byte limit for one environment variable; use "
			    "SLURM_JOB_NODELIST and ibnet-hosts instead", plan->too_long.v[i],
			    IBNET_ENV_STRING_MAX);
	return 0;
}

int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
	struct ibnet_job job = { 0 };
	char **env = NULL;

	(void)ac;
	(void)av;
	if (!cfg_loaded || !spank_remote(sp))
		return 0;
	if (spank_get_item(sp, S_JOB_ENV, &env) != ESPANK_SUCCESS) {
		ibnet_err_set(&step_err, IBNET_PREFIX "cannot read the job environment");
		return 0;
	}
	if (resolve_request(job_getenv, env, &job.transport, &job.ordered_alltoall, &step_err) < 0 ||
	    probe_node(&job, &step_err) < 0)
		return 0;
	job.nodelist = job_getenv(env, "SLURM_JOB_NODELIST");
	if (ibnet_env_plan_build(&cfg, &job, job_getenv, env, &step_plan, &step_err) == 0)
		step_planned = true;
	return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (!cfg_loaded || !spank_remote(sp))
		return 0;
	if (!step_planned) {
		slurm_error("%s", step_err.msg[0] ? step_err.msg :
			    IBNET_PREFIX "no environment was planned for this step");
		return -1;
	}
	return apply_plan(sp, &step_plan);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	if (step_planned)
		ibnet_env_plan_free(&step_plan);
	step_planned = false;
	if (cfg_loaded)
		ibnet_config_free(&cfg);
	cfg_loaded = false;
	return 0;
}
