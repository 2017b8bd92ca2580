/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_layout.c - a communicator's nodes, as the paced scheme sees them
 * (struct comm_info): made on its first paced call, kept as an attribute,
 * freed with it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_layout.h"
#include "ibnet_a2a_nodes.h"
#include "ibnet_a2a_report.h"
#include "ibnet_a2a_state.h"

static int keyval = MPI_KEYVAL_INVALID;

/*
 * Slurm's compressed tasks per node ("4(x8),2": eight nodes of 4, then one
 * of 2) for node `nodeid` of the step; 0 if it does not say.
 */
int tasks_on_node(const char *list, const char *nodeid)
{
	char *end;
	long node, seen = 0;

	if (!list || !nodeid || (node = strtol(nodeid, &end, 10)) < 0 || *end || end == nodeid)
		return 0;
	while (*list) {
		long tasks = strtol(list, &end, 10), times = 1;

		if (end == list || tasks < 1)
			return 0;
		list = end;
		if (strncmp(list, "(x", 2) == 0) {
			times = strtol(list + 2, &end, 10);
			if (end == list + 2 || *end != ')' || times < 1)
				return 0;
			list = end + 1;
		}
		if (node < seen + times)
			return tasks > INT_MAX ? 0 : (int)tasks;
		seen += times;
		if (*list == ',')
			list++;
		else if (*list)
			return 0;
	}
	return 0;
}

/* A rank's host, as a 64-bit hash of its processor name (FNV-1a). */
struct host_rank {
	uint64_t host;
	int rank;
};

static uint64_t my_host(void)
{
	char name[MPI_MAX_PROCESSOR_NAME];
	uint64_t h = 14695981039346656037ULL;
	int len = 0, i;

	if (PMPI_Get_processor_name(name, &len) != MPI_SUCCESS)
		len = 0;
	for (i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 1099511628211ULL;
	}
	return h ? h : 1;	/* 0 stands for a rank that pretends (tests) */
}

static int by_host(const void *a, const void *b)
{
	const struct host_rank *x = a, *y = b;

	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	return x->rank - y->rank;
}

/* Union-find whose root is the lowest rank of its set. */
static int root_of(int *parent, int i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void unite(int *parent, int a, int b)
{
	a = root_of(parent, a);
	b = root_of(parent, b);
	if (a < b)
		parent[b] = a;
	else
		parent[a] = b;
}

/*
 * Ranks on one host are one node, also where the MPI's shared-memory split
 * says otherwise: MPICH 5.0.2 under its own mpiexec (Debian forky) gives
 * every rank of one machine a MPI_COMM_TYPE_SHARED communicator of its own,
 * and its calls between them were paced as if between nodes. A node is
 * what either says is one (connected); two hosts whose names' hashes
 * collide count as one, which costs pacing between them, never a byte.
 * hosts[] holds every rank's host; leaders[] (each rank's lowest rank on
 * its node by the split) becomes that of the merged node. parent is scratch.
 */
static void merge_hosts(int size, int *leaders, struct host_rank *hosts, int *parent)
{
	int i;

	for (i = 0; i < size; i++)
		parent[i] = i;
	for (i = 0; i < size; i++)
		unite(parent, i, leaders[i]);
	qsort(hosts, (size_t)size, sizeof(*hosts), by_host);
	for (i = 1; i < size; i++)
		if (hosts[i].host == hosts[i - 1].host)
			unite(parent, hosts[i - 1].rank, hosts[i].rank);
	for (i = 0; i < size; i++)
		leaders[i] = root_of(parent, i);
}

/*
 * The job's ranks on this node, as the launcher says (0: it does not):
 * Open MPI's mpirun and prterun, MPICH's Hydra, Slurm's srun. Read once;
 * two threads reading it at once compute the same number.
 */
static int job_ranks_here(void)
{
	static int known = -1;
	const char *v;
	int n = 0;

	if (known >= 0)
		return known;
	if ((v = getenv("OMPI_COMM_WORLD_LOCAL_SIZE")) || (v = getenv("MPI_LOCALNRANKS")))
		n = atoi(v);
	else if ((v = getenv("SLURM_STEP_TASKS_PER_NODE")))
		n = tasks_on_node(v, getenv("SLURM_NODEID"));
#ifdef IBNET_A2A_TESTING
	if (test_ranks_per_node > 0 || test_node_sizes[0])
		n = 0;	/* pretend nodes: their layout says what a node is */
	if (test_step_tasks[0]) {	/* "LIST:NODEID", Slurm's two variables */
		char list[sizeof(test_step_tasks)], *colon;

		snprintf(list, sizeof(list), "%s", test_step_tasks);
		colon = strrchr(list, ':');
		if (colon)
			*colon++ = '\0';
		n = tasks_on_node(list, colon);
	}
#endif
	known = n > 0 ? n : 0;
	return known;
}

static void info_free(struct comm_info *ci)
{
	if (!ci)
		return;
#ifdef IBNET_A2A_TESTING
	if (ci->nnodes)		/* one that was complete and kept */
		__atomic_fetch_add(&test_infos_freed, 1, __ATOMIC_RELAXED);
#endif
	if (ci->priv != MPI_COMM_NULL)
		PMPI_Comm_free(&ci->priv);
	free(ci->node_of);
	free(ci->node_start);
	free(ci->by_node);
	free(ci->local_index);
	nodes_free(ci->stage);
	free(ci);
}

static int delete_info(MPI_Comm comm, int kv, void *attr, void *extra)
{
	(void)comm, (void)kv, (void)extra;
	info_free(attr);
	return MPI_SUCCESS;
}

/*
 * Collective over comm: every rank of comm calls it on the same call.
 * MPI_SUCCESS with *out set, or with *out NULL on every rank when any is
 * out of memory (the call is handed over); otherwise a failed call's code,
 * already reported through comm's error handler.
 */
int comm_info(MPI_Comm comm, struct comm_info **out)
{
	struct comm_info *ci;
	MPI_Comm shm;
	int found, leader, i, rc, ok, size, mine, *leaders = NULL, *count = NULL;
	struct host_rank *hosts = NULL;
	uint64_t host = 0, *host_of = NULL;	/* 0: a rank that pretends (tests) */
	bool merge = true;

	*out = NULL;
	if (PMPI_Comm_get_attr(comm, keyval, &ci, &found) == MPI_SUCCESS && found) {
		*out = ci;
		return MPI_SUCCESS;
	}
	PMPI_Comm_size(comm, &size);
	ci = calloc(1, sizeof(*ci));
	if (ci) {
		ci->priv = MPI_COMM_NULL;
		ci->size = size;
		/* Every rank alike: the fixed window, or auto's start until the
		 * ranks agree after a paced call (ibnet_a2a_route.c, window_agree). */
		ci->agreed_window = settings.window == IBNET_A2A_WINDOW_AUTO ?
				    IBNET_A2A_WINDOW_START : settings.window;
		PMPI_Comm_rank(comm, &ci->rank);
		ci->node_of = malloc(sizeof(int) * (size_t)size);
		ci->node_start = calloc((size_t)size + 1, sizeof(int));
		ci->by_node = malloc(sizeof(int) * (size_t)size);
		ci->local_index = malloc(sizeof(int) * (size_t)size);
	}
	leaders = malloc(sizeof(int) * (size_t)size);
	count = calloc((size_t)size + 1, sizeof(int));
	hosts = malloc(sizeof(*hosts) * (size_t)size);
	host_of = malloc(sizeof(*host_of) * (size_t)size);
	ok = ci && ci->node_of && ci->node_start && ci->by_node && ci->local_index && leaders &&
	     count && hosts && host_of && !test_no_memory(comm);
	/*
	 * Out of memory on any rank: every rank hands the call over, and all
	 * learn it here, before the collectives below that a rank without its
	 * arrays could not join. On comm itself (we are inside a collective
	 * call on it, which every rank makes in the same order); its failure
	 * the MPI reports through comm's handler.
	 */
	rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	if (rc != MPI_SUCCESS || !ok)
		goto out;
	/*
	 * Our own context first, and everything below on it. A duplicate keeps
	 * the handler comm had when it was made; ours returns errors to us
	 * instead, and we report each once, through the handler comm has at the
	 * failing call. The duplication itself reports through comm's handler
	 * (the MPI calls it), so its failure is not reported again.
	 */
	rc = PMPI_Comm_dup(comm, &ci->priv);
	if (rc != MPI_SUCCESS) {
		ci->priv = MPI_COMM_NULL;
		goto out;
	}
	PMPI_Comm_set_errhandler(ci->priv, MPI_ERRORS_RETURN);
	rc = PMPI_Comm_split_type(ci->priv, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
	if (rc != MPI_SUCCESS)
		goto failed;
	leader = ci->rank;
	rc = PMPI_Bcast(&leader, 1, MPI_INT, 0, shm);
	PMPI_Comm_free(&shm);
	if (rc != MPI_SUCCESS)
		goto failed;
	host = my_host();
#ifdef IBNET_A2A_TESTING
	/* Tests on one machine: pretend each run of K consecutive ranks is a node,
	 * or runs of the sizes test_node_sizes lists (3,5,1: uneven nodes); no
	 * merging by host name then. */
	if (test_ranks_per_node > 0) {
		leader = ci->rank - ci->rank % test_ranks_per_node;
		host = 0;
	}
	if (test_node_sizes[0]) {
		leader = test_node_leader(ci->rank);
		host = 0;
	}
#endif
	rc = PMPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, ci->priv);
	if (rc != MPI_SUCCESS)
		goto failed;
	/* Every rank decides the same from the same hosts: no merging if any pretends. */
	rc = PMPI_Allgather(&host, 1, MPI_UINT64_T, host_of, 1, MPI_UINT64_T, ci->priv);
	if (rc != MPI_SUCCESS)
		goto failed;
	for (i = 0; i < ci->size; i++) {
		hosts[i].host = host_of[i];
		hosts[i].rank = i;
		if (host_of[i] == 0)
			merge = false;
	}
	if (merge)
		merge_hosts(ci->size, leaders, hosts, ci->node_of);
	/* A leader is the lowest rank of its node (rank 0 of a key-0 split). */
	for (i = 0; i < ci->size; i++)
		if (leaders[i] == i)
			count[i] = ci->nnodes++;	/* count[] holds leader -> node for now */
	for (i = 0; i < ci->size; i++)
		ci->node_of[i] = count[leaders[i]];
	memset(count, 0, sizeof(int) * ((size_t)ci->size + 1));
	for (i = 0; i < ci->size; i++)
		count[ci->node_of[i] + 1]++;
	for (i = 0; i < ci->nnodes; i++)
		ci->node_start[i + 1] = ci->node_start[i] + count[i + 1];
	memset(count, 0, sizeof(int) * ((size_t)ci->size + 1));
	for (i = 0; i < ci->size; i++) {
		int n = ci->node_of[i];

		ci->local_index[i] = count[n];
		ci->by_node[ci->node_start[n] + count[n]++] = i;
	}
	ci->mynode = ci->node_of[ci->rank];
	ci->least_local = ci->size;
	for (i = 0; i < ci->nnodes; i++) {
		int local = ci->node_start[i + 1] - ci->node_start[i];
		unsigned long here = (unsigned long)local;
		unsigned long pairs = here * ((unsigned long)ci->size - here);

		if (pairs > ci->fanin_pairs)
			ci->fanin_pairs = pairs;
		if (local < ci->least_local)
			ci->least_local = local;
		if (local > ci->most_local)
			ci->most_local = local;
	}
	/*
	 * The communicators that may share this node's port at once: the job's
	 * ranks here over this communicator's (four pencil communicators of
	 * one rank per node each, from 4 ranks per node, transpose at the same
	 * time). Their receivers share the node's window, as one
	 * communicator's ranks do; otherwise each grants the whole window and
	 * the port takes several at once.
	 */
	mine = ci->node_start[ci->mynode + 1] - ci->node_start[ci->mynode];
	ci->concurrent = job_ranks_here() > mine ? job_ranks_here() / mine : 1;
	if (ci->concurrent > 1)
		report_shared_window(ci->concurrent, job_ranks_here(), mine);
	PMPI_Comm_set_attr(comm, keyval, ci);
#ifdef IBNET_A2A_TESTING
	__atomic_fetch_add(&test_infos_made, 1, __ATOMIC_RELAXED);
#endif
	*out = ci;
	ci = NULL;
	goto out;
failed:
	report_failure(comm, rc);
out:
	free(leaders);
	free(count);
	free(hosts);
	free(host_of);
	info_free(ci);
	return rc;
}

void a2a_layout_init(void)
{
	PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_info, &keyval, NULL);
}
