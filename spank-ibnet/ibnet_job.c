/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_job.c - a job's nodes, as Slurm gives them to a step: one list, or
 * a heterogeneous job's components.
 */
#include "ibnet_job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_hostlist.h"

/* A count of nodes Slurm gave in `name`; 0 if absent, not a count, or over the cap. */
static unsigned long node_count(ibnet_env_lookup_fn lookup, void *ctx, const char *name)
{
	const char *v = lookup(ctx, name);
	char *end;
	unsigned long n;

	if (!v || *v < '0' || *v > '9')
		return 0;
	n = strtoul(v, &end, 10);
	return *end || n > IBNET_JOB_HOSTS_MAX ? 0 : n;
}

/*
 * A heterogeneous job's variables, joined into one hostlist, if they are
 * Slurm's: the user can set SLURM_HET_SIZE and the _HET_GROUP_ variables in
 * any job (a job submitted from a heterogeneous job's script inherits them),
 * and slurmstepd has no item saying whether its job is heterogeneous. So
 * they count only as Slurm writes them: 2 to 128 components, each with its
 * list and its count, the counts adding up to at most IBNET_JOB_HOSTS_MAX,
 * and the step's own SLURM_JOB_NODELIST one of the lists. Otherwise NULL,
 * and why in note.
 */
static char *het_nodelist(ibnet_env_lookup_fn lookup, void *ctx, unsigned long *max,
			  char *note, size_t note_len, bool *nomem)
{
	const char *size = lookup(ctx, "SLURM_HET_SIZE");
	const char *all = lookup(ctx, "SLURM_JOB_NODELIST");
	struct ibnet_buf b = { 0 };
	unsigned long sum = 0;
	bool own_list_seen = !all;
	char *end, name[64];
	long n, i;

	*nomem = false;
	n = strtol(size, &end, 10);
	if (*end || n < 2 || n > 128) {
		snprintf(note, note_len, "SLURM_HET_SIZE=%s ignored: a heterogeneous job has 2 "
			 "to 128 components", ibnet_quote(size));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		const char *part;
		unsigned long count;

		snprintf(name, sizeof(name), "SLURM_JOB_NUM_NODES_HET_GROUP_%ld", i);
		count = node_count(lookup, ctx, name);
		if (!count)
			goto not_slurms;
		sum += count;
		if (sum > IBNET_JOB_HOSTS_MAX) {
			snprintf(note, note_len, "SLURM_HET_SIZE ignored: its components have more "
				 "than %u nodes together", IBNET_JOB_HOSTS_MAX);
			ibnet_buf_free(&b);
			return NULL;
		}
		snprintf(name, sizeof(name), "SLURM_JOB_NODELIST_HET_GROUP_%ld", i);
		if (!(part = lookup(ctx, name)))
			goto not_slurms;
		own_list_seen = own_list_seen || !strcmp(part, all);
		if ((b.len && ibnet_buf_adds(&b, ",") < 0) || ibnet_buf_adds(&b, part) < 0) {
			*nomem = true;
			ibnet_buf_free(&b);
			return NULL;
		}
	}
	if (!own_list_seen) {
		snprintf(note, note_len, "SLURM_HET_SIZE ignored: no component's "
			 "SLURM_JOB_NODELIST_HET_GROUP_N is this job's SLURM_JOB_NODELIST");
		ibnet_buf_free(&b);
		return NULL;
	}
	*max = sum;
	if (!b.s)
		*nomem = true;
	return ibnet_buf_take(&b);
not_slurms:
	snprintf(note, note_len, "SLURM_HET_SIZE ignored: %s is not set to a count of nodes "
		 "up to %u", name, IBNET_JOB_HOSTS_MAX);
	ibnet_buf_free(&b);
	return NULL;
}

int ibnet_job_nodelist(ibnet_env_lookup_fn lookup, void *ctx, char **out, unsigned long *max,
		       char *note, size_t note_len, struct ibnet_err *err)
{
	const char *all = lookup(ctx, "SLURM_JOB_NODELIST");
	bool nomem = false;

	*out = NULL;
	*max = 0;
	if (note_len)
		note[0] = '\0';
	if (lookup(ctx, "SLURM_HET_SIZE")) {
		*out = het_nodelist(lookup, ctx, max, note, note_len, &nomem);
		if (*out)
			return 0;
		if (nomem)
			goto nomem;
	}
	*max = node_count(lookup, ctx, "SLURM_JOB_NUM_NODES");
	if (all && !(*out = strdup(all)))
		goto nomem;
	return 0;
nomem:
	ibnet_err_set(err, IBNET_PREFIX "out of memory reading the job's nodes");
	return -1;
}

char *ibnet_job_node_name(ibnet_env_lookup_fn lookup, void *ctx, unsigned long nodeid, bool batch)
{
	const char *list = lookup(ctx, batch ? "SLURM_JOB_NODELIST" : "SLURM_STEP_NODELIST");
	struct ibnet_strvec nodes = { 0 };
	struct ibnet_err ignored;
	char *name = NULL;

	if (list && ibnet_hostlist_expand_max(list, IBNET_JOB_HOSTS_MAX, &nodes, &ignored) == 0 &&
	    nodeid < nodes.n)
		name = strdup(nodes.v[nodeid]);
	ibnet_strvec_free(&nodes);
	return name;
}
