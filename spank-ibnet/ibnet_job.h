/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_job.h - one job step as the decisions see it: what it asked for,
 * its nodes (ibnet_job_nodelist, in ibnet_job.c), and what this node has
 * for it.
 *
 * ibnet_step_plan (ibnet_step.c) makes the one a step is planned with. It
 * hands the struct to ibnet_request_resolve (the request and its sources),
 * ibnet_probe_job (the interface and the libraries) and
 * ibnet_env_plan_build (the environment), in that order, and keeps the
 * storage they point into. (The SPANK layer's init_post_opt resolves a
 * request alone, to refuse a bad one before the job is queued; the fuzz
 * harness drives the parts one by one.)
 */
#ifndef IBNET_JOB_H
#define IBNET_JOB_H

#include <stdbool.h>
#include <stddef.h>

#include "ibnet_config.h"
#include "ibnet_floor_tier.h"

/* Returns the job's value of name, or NULL if unset. */
typedef const char *(*ibnet_env_lookup_fn)(void *ctx, const char *name);

#define IBNET_IFNAME_MAX 16	/* IFNAMSIZ */

struct ibnet_job {
	/* Asked for (ibnet_request_resolve) */
	enum ibnet_transport transport;
	enum ibnet_a2a_scheme alltoall;	/* DEFAULT, PACED (--ordered-alltoall) or PAIRWISE */
	const char *transport_source;	/* "--transport", "SLURM_IBNET_TRANSPORT", ... */
	const char *alltoall_source;
	unsigned long tcp_rto_min_us;	/* the retransmission floor asked for; 0: none */
	const char *tcp_rto_min_source;
	bool tcp_rto_min_record;	/* asked by --tcp-rto-min: recorded for later steps */
	/* The job's nodes (ibnet_step_plan) */
	const char *nodelist;		/* NULL: no hosts */
	unsigned long max_hosts;	/* how many the job has; 0: IBNET_JOB_HOSTS_MAX */
	const char *node_name;		/* this node's Slurm name; NULL: its host name only */
	char nodes_note[256];		/* variables not taken for the nodes, and why (log line) */
	/* What this node has (ibnet_probe_job) */
	const char *iface;		/* the interface to use; NULL for none */
	char iface_found[IBNET_IFNAME_MAX];	/* what the probe found, where iface points */
	char iface_how[400];		/* found by route: how ("the route to c1-2"), and the
					   peers passed over; "" else */
	const char *rspreload_path;	/* for rsocket */
	const char *rsgate_path;
	const char *alltoall_path;	/* the job preload (paced all-to-all, TCP floor), if on
					   this node and the step wants it */
	bool paced_build[IBNET_A2A_ABI_COUNT];	/* a paced step's: which per-MPI builds
						   (ibnet_a2a_builds) are beside alltoall_path */
	/* A paced step's: its interface's rate in Mbit/s as the kernel says it
	   (/sys/class/net/IFACE/speed), 0 unknown; link_iface: which one. */
	unsigned long link_mbit;
	char link_iface[IBNET_IFNAME_MAX];
	/* The tier chosen already, by a caller that can start it (the plugin, as
	   root, before the plan); NULL: ibnet_probe_job checks the tiers itself. */
	const struct ibnet_floor_choice *floor_chosen;
	enum ibnet_floor_tier tcp_rto_tier;	/* how the floor reaches the sockets */
	unsigned long tcp_rto_floor_us;	/* what this node's kernel took; 0: none */
	char tcp_rto_why_not[512];	/* asked but not applied: why, for the log line */
};

/*
 * The job's nodes, as a hostlist: SLURM_JOB_NODELIST, or for a
 * heterogeneous job (SLURM_HET_SIZE) every component's
 * SLURM_JOB_NODELIST_HET_GROUP_<i> joined, since a batch step sees only
 * component 0 in SLURM_JOB_NODELIST. *out is malloc'd, or NULL if the job
 * has no node list. *max is how many nodes the job has (SLURM_JOB_NUM_NODES,
 * or the components' sum), 0 if Slurm did not say: the list may not name
 * more (nor more than IBNET_JOB_HOSTS_MAX), so its cost grows with the job.
 * Heterogeneous variables that are not as Slurm writes them are not taken,
 * and note says so in a sentence for the log line (else it is empty).
 */
int ibnet_job_nodelist(ibnet_env_lookup_fn lookup, void *ctx, char **out, unsigned long *max,
		       char *note, size_t note_len, struct ibnet_err *err);

/*
 * This node's Slurm name (NodeName, which need not be its host name): the
 * nodeid-th of the step's nodes (SLURM_STEP_NODELIST), or for the batch
 * step the job's first (SLURM_JOB_NODELIST), where the batch script runs.
 * Not SLURMD_NODENAME: slurmstepd sets it in each task's environment,
 * after user_init, and one in the job's own is another node's (an srun in
 * a batch script carries the batch node's). malloc'd; NULL if the list is
 * missing, not a hostlist or too short.
 */
char *ibnet_job_node_name(ibnet_env_lookup_fn lookup, void *ctx, unsigned long nodeid, bool batch);

/* Did the step ask for an ordered all-to-all (paced or pairwise)? */
static inline bool ibnet_job_ordered(const struct ibnet_job *job)
{
	return job->alltoall != IBNET_ALLTOALL_DEFAULT;
}

#endif
