/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz_env.c - a whole step's plan from a hostile job environment.
 *
 * Byte 0 chooses the options (transport given or not, which one, the
 * all-to-all); the rest is the job's environment, one NAME=VALUE a line,
 * as slurmstepd hands it over (SLURM_IBNET_MANAGED, SLURM_IBNET_ORIG_*,
 * GAUSS_WDEF, LD_PRELOAD, SLURM_HET_SIZE... all the user's to set).
 * Invariant: applying the plan and planning again with the same request
 * must plan the same values (a plan is idempotent).
 */
#include "fuzz_common.h"

#include <stdio.h>

#include "ibnet_config.h"
#include "ibnet_env.h"
#include "ibnet_request.h"

struct env {
	struct ibnet_strvec vars;	/* NAME=VALUE */
};

static const char *env_get(void *ctx, const char *name)
{
	struct env *e = ctx;
	size_t i, n = strlen(name);

	for (i = e->vars.n; i-- > 0;)	/* the last definition wins */
		if (strncmp(e->vars.v[i], name, n) == 0 && e->vars.v[i][n] == '=')
			return e->vars.v[i] + n + 1;
	return NULL;
}

static void env_apply(struct env *e, const struct ibnet_env_plan *plan)
{
	size_t i, j;

	for (i = 0; i < plan->n; i++) {
		size_t n = strlen(plan->ops[i].name);

		for (j = 0; j < e->vars.n; j++) {
			if (strncmp(e->vars.v[j], plan->ops[i].name, n) == 0 && e->vars.v[j][n] == '=') {
				free(e->vars.v[j]);
				e->vars.v[j] = strdup("");	/* removed */
			}
		}
		if (plan->ops[i].value) {
			char *kv = malloc(n + strlen(plan->ops[i].value) + 2);

			if (!kv)
				abort();
			sprintf(kv, "%s=%s", plan->ops[i].name, plan->ops[i].value);
			ibnet_strvec_push_owned(&e->vars, kv);
		}
	}
}

/* The values a plan sets, ignoring SLURM_IBNET_MANAGED's order of entries. */
static void plan_fingerprint(const struct ibnet_env_plan *plan, const struct env *e,
			     struct ibnet_strvec *out)
{
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const char *v = plan->ops[i].value;
		const char *cur = env_get((void *)e, plan->ops[i].name);

		/* An op that changes nothing is no change. */
		if ((v && cur && strcmp(v, cur) == 0) || (!v && !cur))
			continue;
		if (strcmp(plan->ops[i].name, "SLURM_IBNET_MANAGED") != 0)
			ibnet_strvec_push(out, plan->ops[i].name);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibnet_config cfg;
	static int cfg_ok;
	struct ibnet_options opts = { 0 };
	struct ibnet_job job = { 0 };
	struct ibnet_env_plan plan, again;
	struct ibnet_err err = { "" };
	struct env e = { { 0 } };
	struct ibnet_strvec changes = { 0 };
	char *s, *nodelist = NULL;

	if (!cfg_ok) {
		char *argv[] = { "ib_hostname=s/^c([0-9]+-[0-9]+)$/cib\\1/", "rdma_device=mlx5_0:1" };

		cfg_ok = ibnet_config_parse(&cfg, 2, argv, &err) == 0;
		if (!cfg_ok)
			abort();
	}
	if (size < 1)
		return 0;
	opts.transport_given = data[0] & 1;
	opts.transport = (enum ibnet_transport)((data[0] >> 1) % IBNET_TRANSPORT_COUNT);
	opts.alltoall_given = data[0] & 8;
	opts.ordered = data[0] & 16;
	s = fuzz_cstring(data + 1, size - 1);
	if (!s || ibnet_strvec_split(&e.vars, s, "\n") < 0)
		goto out;
	if (ibnet_request_resolve(&cfg, &opts, env_get, &e, &job, &err) < 0)
		goto out;
	job.iface = job.transport == IBNET_NONE ? NULL : "ib0";
	if (job.transport == IBNET_RSOCKET) {
		job.rspreload_path = "/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so";
		job.rsgate_path = "/usr/lib/spank-ibnet/libibnet-rsgate.so";
	}
	/* The paced all-to-all is on this node, as the probe would find it. */
	if (job.alltoall == IBNET_ALLTOALL_PACED && (data[0] & 32))
		job.alltoall_path = "/usr/lib/spank-ibnet/libibnet-alltoall.so";
	if (ibnet_job_nodelist(env_get, &e, &nodelist, &job.max_hosts, job.nodes_note,
			       sizeof(job.nodes_note), &err) < 0)
		goto out;
	job.nodelist = nodelist;
	/* The job's own size bounds its list; a hostile one may claim a huge job. */
	if (!job.max_hosts || job.max_hosts > 20000)
		job.max_hosts = 20000;
	if (ibnet_env_plan_build(&cfg, &job, env_get, &e, &plan, &err) < 0)
		goto out;
	free(ibnet_env_plan_describe(&job, &plan));
	env_apply(&e, &plan);
	ibnet_env_plan_free(&plan);
	/* Plan again on the result: nothing is left to change. */
	if (ibnet_env_plan_build(&cfg, &job, env_get, &e, &again, &err) == 0) {
		plan_fingerprint(&again, &e, &changes);
		if (changes.n)
			abort();
		ibnet_env_plan_free(&again);
	}
out:
	ibnet_strvec_free(&changes);
	ibnet_strvec_free(&e.vars);
	free(nodelist);
	free(s);
	return 0;
}
