/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_paced.c - a paced, node-aware all-to-all for one MPI ABI.
 *
 * Built twice, against Open MPI's and MPICH's mpi.h (libibnet-a2a-ompi.so,
 * libibnet-a2a-mpich.so), and loaded by the dispatcher (ibnet_a2a_dispatch.c)
 * into MPI programs only. Not linked against libmpi: its PMPI_* symbols are
 * the ones the program already loaded.
 *
 * The scheme (docs/admin-guide.md, "The paced all-to-all"):
 *   - Ranks are grouped by node (MPI_Comm_split_type SHARED). Pairs on one
 *     node exchange through the MPI's shared memory, all at once.
 *   - Between nodes, each rank receives from the other nodes in phases:
 *     in phase p, node i receives from node i-p, so one node sends to each
 *     port at a time (Kutzner's ordered all-to-all, seed 004).
 *   - The receiver paces its sender: it grants credits, each for one chunk of
 *     its share of the window (a node's ranks share it), and never has more
 *     than that share outstanding. The bytes in flight towards a node's switch port stay
 *     under the window, which is what 802.3x flow control would do in the
 *     switch (seed 001). The next phase's grants start as soon as the window
 *     has room, so there is no barrier and no idle wire between phases.
 *   - Senders answer any credit at once: the receivers drive the schedule, so
 *     nothing waits in a cycle.
 * Traffic runs on a private duplicate of the communicator: its tags cannot
 * meet the application's. Anything the scheme does not handle is handed to
 * the MPI library's own implementation (enum route below says what and why).
 * A call of ours that fails is reported once, through the error handler the
 * user's communicator has at the call, and its code returned (report_failure()).
 *
 * Built with -DIBNET_A2A_TESTING (the Makefile's build/tests/ copies, never
 * installed), it also reads the SLURM_IBNET_ALLTOALL_TEST_* variables below.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "ibnet_a2a_host.h"
#include "ibnet_a2a_settings.h"
#include "ibnet_a2a_types.h"
#include "ibnet_job_vars.h"

#define EXPORT __attribute__((visibility("default")))

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER is a C int here");

enum { TAG_LOCAL = 1, TAG_CREDIT = 2, TAG_DATA = 3 };

/* Why a call went where it went; counted per process for the report. */
enum route {
	PACED,
	OFF,		/* SLURM_IBNET_ALLTOALL_PACED=0, a bad setting, or the user's MPI choice */
	THREADS,	/* MPI_THREAD_MULTIPLE on a rank: collectives may run concurrently */
	NO_BUILD,	/* a rank of the communicator has no paced build (ibnet_a2a_agree.c) */
	SETTINGS_DIFFER,	/* the ranks' settings differ */
	NOT_AGREED,	/* the ranks' agreement itself failed */
	INTERCOMM,
	ONE_RANK,	/* a communicator of one rank: a copy, nothing on the wire */
	IN_PLACE,
	BELOW,		/* the bytes converging on a node's port stay below the threshold */
	ONE_NODE,	/* every rank on one node: shared memory, no port to pace */
	BIG_BLOCK,	/* a block over block_limit: our calls count bytes in an int */
	/*
	 * An erroneous call: a block's bytes as sent differ from its bytes as
	 * received. The MPI's own reports it as it does (MPI_ERR_TRUNCATE);
	 * the paced scheme would wait for bytes that never come.
	 */
	SIZES_DIFFER,
	NO_MEMORY,	/* a rank could not allocate the communicator's layout */
	/*
	 * MPI_Ialltoall(v): pacing needs the exchange to advance while the
	 * application computes, which a preload cannot do safely in either MPI
	 * (docs/admin-guide.md, "Which calls are paced").
	 */
	NONBLOCKING,
	ROUTES
};
static const char *const route_name[ROUTES] = {
	"paced", "switched off", "MPI_THREAD_MULTIPLE", "a rank without the paced build",
	"settings that differ between ranks", "no agreement between ranks",
	"inter-communicator", "one rank",
	"MPI_IN_PLACE", "below the threshold", "all ranks on one node", "a block of 2 GiB or more",
	"send and receive sizes that differ", "out of memory", "non-blocking (the MPI's own)",
};

/* The calls we take, one line each in the report. */
enum kind { ALLTOALL, ALLTOALLV, IALLTOALL, IALLTOALLV, KINDS };
static const char *const kind_name[KINDS] = {
	"MPI_Alltoall", "MPI_Alltoallv", "MPI_Ialltoall", "MPI_Ialltoallv",
};
static unsigned long served[KINDS][ROUTES];

/* Count one call; atomic, as calls on different communicators may run at once. */
static void count(enum kind k, enum route r)
{
	__atomic_fetch_add(&served[k][r], 1, __ATOMIC_RELAXED);
}

/* The dispatcher's help: the MPI's own symbols, and the ranks' agreement. */
static const struct ibnet_a2a_host *host;

EXPORT void ibnet_a2a_attach(const struct ibnet_a2a_host *h)
{
	host = h;
}

/* A communicator as the agreement takes it: its handle's bytes, zero-extended. */
static uintptr_t handle_of(MPI_Comm comm)
{
	uintptr_t word = 0;

	memcpy(&word, &comm, sizeof(comm));
	return word;
}

/* The route of a verdict that is not to pace. */
static enum route verdict_route(enum ibnet_a2a_verdict v)
{
	switch (v) {
	case IBNET_A2A_DIFFER_BUILD:
		return NO_BUILD;
	case IBNET_A2A_DIFFER_THREADS:
		return THREADS;
	case IBNET_A2A_DIFFER_SETTINGS:
		return SETTINGS_DIFFER;
	case IBNET_A2A_NOT_AGREED:
	default:
		return NOT_AGREED;
	}
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled;
static bool report;
static struct ibnet_a2a_settings settings;
static int keyval = MPI_KEYVAL_INVALID;
static int world_rank = -1;
/* The process that read the settings: a fork()ed child that exits leaves no tally. */
static pid_t settings_pid;
/*
 * The largest block (bytes one rank sends one other) the scheme takes. Its
 * local sends and receives, packing and unpacking pass a block's bytes as an
 * int count of MPI_BYTE; a call with a larger block goes to the MPI's own
 * routine, which has its own ways past int. Every rank decides alike: an
 * MPI_Alltoall's bytes per pair are equal on all (equal type signatures), an
 * MPI_Alltoallv's largest block is agreed by allreduce. Data between nodes
 * moves in chunks of at most the window (64 MiB), far below it.
 */
static unsigned long block_limit = INT_MAX;

#ifdef IBNET_A2A_TESTING
/*
 * Test builds only: the installed libraries do not contain these names, so
 * no job can set them by accident.
 *   SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE=K: each run of K consecutive
 *     ranks is a node (one machine's MPI sees one node, which is handed over).
 *   SLURM_IBNET_ALLTOALL_TEST_BLOCK_LIMIT=B: hand over blocks over B bytes
 *     (lower only), to test that route without 2 GiB buffers.
 *   SLURM_IBNET_ALLTOALL_TEST_FAIL=N: this process's Nth point-to-point call
 *     of the scheme returns MPI_ERR_OTHER without being posted.
 *   SLURM_IBNET_ALLTOALL_TEST_NO_MEMORY=R: rank R of each new communicator
 *     takes its layout's allocation as failed.
 *   SLURM_IBNET_ALLTOALL_TEST_NO_SCRATCH=R: rank R of a paced call takes the
 *     call's own allocation as failed.
 */
static int test_ranks_per_node, test_no_memory_rank = -1, test_no_scratch_rank = -1;
/* Communicator state made and freed, said at exit with the report. */
static unsigned long test_infos_made, test_infos_freed;
/* The most requests one exchange had posted at once (slots handed out). */
static int test_most_slots;
static unsigned long test_fail_at, test_p2p_calls;

static void read_test_settings(void)
{
	const char *v;
	unsigned long limit;

	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE")))
		test_ranks_per_node = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_BLOCK_LIMIT")) &&
	    (limit = strtoul(v, NULL, 10)) > 0 && limit < block_limit)
		block_limit = limit;
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_FAIL")))
		test_fail_at = strtoul(v, NULL, 10);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NO_MEMORY")))
		test_no_memory_rank = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NO_SCRATCH")))
		test_no_scratch_rank = atoi(v);
}

static bool test_no_scratch(int rank)
{
	return rank == test_no_scratch_rank;
}

static bool test_no_memory(MPI_Comm comm)
{
	int rank = -1;

	PMPI_Comm_rank(comm, &rank);
	return rank == test_no_memory_rank;
}

static bool injected_failure(void)
{
	return test_fail_at && ++test_p2p_calls == test_fail_at;
}
#else
static void read_test_settings(void)
{
}

static bool injected_failure(void)
{
	return false;
}

static bool test_no_memory(MPI_Comm comm)
{
	(void)comm;
	return false;
}

static bool test_no_scratch(int rank)
{
	(void)rank;
	return false;
}
#endif

static void say(const char *what)
{
	fprintf(stderr, "spank-ibnet alltoall: %s\n", what);
}

/* The calls of one kind this process made, whatever their route. */
static unsigned long calls_of(enum kind k)
{
	unsigned long total = 0;
	int r;

	for (r = 0; r < ROUTES; r++)
		total += served[k][r];
	return total;
}

static void print_report(void)
{
	char line[512];
	int k, r, n;

	for (k = 0; k < KINDS; k++) {
		unsigned long total = calls_of((enum kind)k);

		if (!total)
			continue;
		n = snprintf(line, sizeof(line), "rank %d: %s: %lu call%s: ", world_rank,
			     kind_name[k], total, total == 1 ? "" : "s");
		for (r = 0; r < ROUTES && n < (int)sizeof(line); r++)
			if (served[k][r] || r == PACED)
				n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%lu %s",
					      r ? ", " : "", served[k][r],
					      r == PACED ? "paced" : route_name[r]);
		say(line);
	}
}

/*
 * This process's counts for the node's log line: one file in the step's
 * tally directory (IBNET_A2A_ENV_TALLY), one line per call kind and route.
 */
static void write_tally(const char *dir)
{
	char path[4096];
	FILE *f;
	int fd, k, r;

	if (snprintf(path, sizeof(path), "%s/a2a.XXXXXX", dir) >= (int)sizeof(path) ||
	    (fd = mkstemp(path)) < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return;
	}
	for (k = 0; k < KINDS; k++)
		for (r = 0; r < ROUTES; r++)
			if (served[k][r])
				fprintf(f, "%s\t%s\t%lu\n", kind_name[k], route_name[r],
					served[k][r]);
	fclose(f);
}

/*
 * At exit: the report when asked for; the node's tally when the plugin made
 * a directory for it. And when nobody asked for a report but the step asked
 * for the paced scheme (SLURM_IBNET_ALLTOALL=paced) and not one call was
 * paced, rank 0 says why anyway (every rank routes alike): the user asked
 * for something they did not get.
 */
static void at_exit(void)
{
	const char *dir = getenv(IBNET_A2A_ENV_TALLY), *asked = getenv(IBNET_A2A_ENV_SCHEME);
	const char *flag = getenv(IBNET_A2A_ENV_REPORT);
	enum ibnet_a2a_scheme scheme;
	unsigned long total = 0;
	int k;

	if (getpid() != settings_pid)
		return;
	for (k = 0; k < KINDS; k++)
		total += calls_of((enum kind)k);
	if (!total)
		return;
	if (dir && *dir)
		write_tally(dir);
	if (report) {
		print_report();
#ifdef IBNET_A2A_TESTING
		{
			char line[160];

			snprintf(line, sizeof(line), "rank %d: test: communicator state: %lu made, "
				 "%lu freed; most requests outstanding: %d", world_rank,
				 test_infos_made, test_infos_freed, test_most_slots);
			say(line);
		}
#endif
		return;
	}
	if (flag || world_rank != 0 || !asked || ibnet_a2a_scheme_parse(asked, &scheme) < 0 ||
	    scheme != IBNET_ALLTOALL_PACED)
		return;
	for (k = 0; k < KINDS; k++)
		if (served[k][PACED])
			return;
	say("--ordered-alltoall was asked for, but no all-to-all call of this job was paced; "
	    "why, by call (" IBNET_A2A_ENV_REPORT "=0 silences this):");
	print_report();
}

static const char *process_getenv(void *ctx, const char *name)
{
	(void)ctx;
	return getenv(name);
}

static void read_settings(void)
{
	const char *v;
	char msg[256];
	int k;

	ibnet_a2a_settings_default(&settings);
	settings_pid = getpid();
	enabled = true;
	report = ibnet_flag_on(getenv(IBNET_A2A_ENV_REPORT));
	atexit(at_exit);
	if ((v = getenv(IBNET_A2A_ENV_PACED)) && strcmp(v, "0") == 0) {
		enabled = false;
		return;
	}
	if ((v = ibnet_a2a_user_choice(process_getenv, NULL))) {
		if (report) {
			snprintf(msg, sizeof(msg), "%s is set: the MPI library's own all-to-all "
				 "runs, as the user chose", v);
			say(msg);
		}
		enabled = false;
		return;
	}
	for (k = 0; k < IBNET_A2A_KEY_COUNT; k++) {
		const char *name = ibnet_a2a_keys[k].env;

		if ((v = getenv(name)) &&
		    ibnet_a2a_setting_set(&settings, (enum ibnet_a2a_key)k, v, name, msg,
					  sizeof(msg)) < 0) {
			strncat(msg, "; the MPI library's own all-to-all runs instead",
				sizeof(msg) - strlen(msg) - 1);
			say(msg);
			enabled = false;
			return;
		}
	}
}

/* What we keep per communicator (an attribute, freed with it). */
struct comm_info {
	MPI_Comm priv;		/* our traffic's own context */
	int size, rank, nnodes, mynode;
	int *node_of;		/* rank -> node, nodes numbered by their lowest rank */
	int *node_start;	/* node -> first index in by_node; [nnodes] = size */
	int *by_node;		/* ranks grouped by node, each group in rank order */
	int *local_index;	/* rank -> its place in its node's group */
	/* Pairs converging on the busiest node's port: max over nodes of
	 * ranks on it x ranks elsewhere. Times the bytes per pair, what one
	 * call puts on that port at once when nothing paces it. */
	unsigned long fanin_pairs;
};

static void info_free(struct comm_info *ci)
{
	if (!ci)
		return;
#ifdef IBNET_A2A_TESTING
	if (ci->nnodes)		/* one that was complete and kept */
		test_infos_freed++;
#endif
	if (ci->priv != MPI_COMM_NULL)
		PMPI_Comm_free(&ci->priv);
	free(ci->node_of);
	free(ci->node_start);
	free(ci->by_node);
	free(ci->local_index);
	free(ci);
}

static int delete_info(MPI_Comm comm, int kv, void *attr, void *extra)
{
	(void)comm, (void)kv, (void)extra;
	info_free(attr);
	return MPI_SUCCESS;
}

/*
 * A call of ours failed with rc: tell the user's communicator's error handler,
 * as the MPI's own all-to-all would (the default handler aborts the job), and
 * give the code back for the caller to return.
 */
static int report_failure(MPI_Comm comm, int rc)
{
	PMPI_Comm_call_errhandler(comm, rc);
	return rc;
}

/*
 * A call's own allocation failed on this rank after its route was taken:
 * its peers are already exchanging with it and would wait for it forever if
 * it returned. So the job ends here, with the reason, as MPI_ERRORS_ARE_FATAL
 * would end it (what no MPI error handler can make safe).
 */
static void out_of_memory(const struct comm_info *ci, const char *what)
{
	char line[256];

	snprintf(line, sizeof(line), "rank %d of %d: out of memory for %s in a paced all-to-all; "
		 "its peers are waiting for it, so the job ends here", ci->rank, ci->size, what);
	say(line);
	PMPI_Abort(ci->priv, MPI_ERR_NO_MEM);
}

/*
 * Collective over comm: every rank of comm calls it on the same call.
 * MPI_SUCCESS with *out set, or with *out NULL on every rank when any is
 * out of memory (the call is handed over); otherwise a failed call's code,
 * already reported through comm's error handler.
 */
static int comm_info(MPI_Comm comm, struct comm_info **out)
{
	struct comm_info *ci;
	MPI_Comm shm;
	int found, leader, i, rc, ok, size, *leaders = NULL, *count = NULL;

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
		PMPI_Comm_rank(comm, &ci->rank);
		ci->node_of = malloc(sizeof(int) * (size_t)size);
		ci->node_start = calloc((size_t)size + 1, sizeof(int));
		ci->by_node = malloc(sizeof(int) * (size_t)size);
		ci->local_index = malloc(sizeof(int) * (size_t)size);
	}
	leaders = malloc(sizeof(int) * (size_t)size);
	count = calloc((size_t)size + 1, sizeof(int));
	ok = ci && ci->node_of && ci->node_start && ci->by_node && ci->local_index && leaders &&
	     count && !test_no_memory(comm);
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
#ifdef IBNET_A2A_TESTING
	/* Tests on one machine: pretend each run of K consecutive ranks is a node. */
	if (test_ranks_per_node > 0)
		leader = ci->rank - ci->rank % test_ranks_per_node;
#endif
	rc = PMPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, ci->priv);
	if (rc != MPI_SUCCESS)
		goto failed;
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
	for (i = 0; i < ci->nnodes; i++) {
		unsigned long here = (unsigned long)(ci->node_start[i + 1] - ci->node_start[i]);
		unsigned long pairs = here * ((unsigned long)ci->size - here);

		if (pairs > ci->fanin_pairs)
			ci->fanin_pairs = pairs;
	}
	PMPI_Comm_set_attr(comm, keyval, ci);
#ifdef IBNET_A2A_TESTING
	test_infos_made++;
#endif
	*out = ci;
	ci = NULL;
	goto out;
failed:
	report_failure(comm, rc);
out:
	free(leaders);
	free(count);
	info_free(ci);
	return rc;
}

/*
 * MPI_Alltoallv's sizes, checked by every rank at the cost of the one
 * allreduce the call already made for its largest block. Each block is
 * hashed with its sender, receiver and bytes once by its sender and once by
 * its receiver; the XOR over all ranks is 0 when every block is received as
 * large as it is sent, and otherwise not (but for a 2^-64 chance).
 */
struct sizes_check {
	unsigned long most;	/* the largest block sent: MPI_MAX */
	unsigned long pairs;	/* XOR of pair_hash */
};
static MPI_Datatype sizes_check_type = MPI_DATATYPE_NULL;
static MPI_Op sizes_check_op = MPI_OP_NULL;

static unsigned long mix64(unsigned long x)	/* splitmix64's finaliser */
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ul;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebul;
	return x ^ (x >> 31);
}

static unsigned long pair_hash(int from, int to, unsigned long bytes)
{
	return mix64(mix64(((unsigned long)(unsigned)from << 32) | (unsigned)to) ^ bytes);
}

static void sizes_check_combine(void *in, void *inout, int *len, MPI_Datatype *type)
{
	const struct sizes_check *a = in;
	struct sizes_check *b = inout;
	int i;

	(void)type;
	for (i = 0; i < *len; i++) {
		if (a[i].most > b[i].most)
			b[i].most = a[i].most;
		b[i].pairs ^= a[i].pairs;
	}
}

static void init_once(void)
{
	read_settings();
	read_test_settings();
	PMPI_Type_contiguous(2, MPI_UNSIGNED_LONG, &sizes_check_type);
	PMPI_Type_commit(&sizes_check_type);
	PMPI_Op_create(sizes_check_combine, 1, &sizes_check_op);
	PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_info, &keyval, NULL);
	PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
}

/* Checks every rank of a collective reaches alike (the standard requires
 * MPI_IN_PLACE on all ranks or none, and equal type signatures; the
 * agreement makes the process's own inputs alike). */
static enum route common_route(MPI_Comm comm, const void *sendbuf)
{
	enum ibnet_a2a_verdict verdict;
	int inter = 0, size = 0;

	pthread_once(&once, init_once);
	/* First, on every rank: what a process decides alone, agreed (thread
	 * level, settings, the build's presence: ibnet_a2a_agree.c). */
	if ((verdict = host->agree(handle_of(comm))) != IBNET_A2A_AGREED)
		return verdict_route(verdict);
	if (!enabled)
		return OFF;
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		return INTERCOMM;
	PMPI_Comm_size(comm, &size);
	if (size < 2)
		return ONE_RANK;
	if (sendbuf == MPI_IN_PLACE)
		return IN_PLACE;
	return PACED;
}

/*
 * Pace a call when the bytes it would put on the busiest node's port at
 * once reach the threshold: what overflows a shallow switch port is the
 * fan-in (8 nodes x 12 KiB converge as 84 KiB on a 24 KB port), not the
 * bytes per pair. A 2-rank call is one flow, paced too when it is large
 * enough to overflow the port in slow start. Below, no port can overflow
 * and the MPI's own all-to-all runs at no cost of ours.
 */
static enum route fanin_route(const struct comm_info *ci, unsigned long pair_bytes)
{
	unsigned long fanin;

	/*
	 * Under IBNET_A2A_PAIR_MIN per pair the MPI's own runs whatever the
	 * fan-in (threshold 0 aside: "pace everything"). With many ranks per
	 * node the fan-in of tiny blocks reaches the threshold, but the MPI's
	 * small-message algorithms (Bruck) send log2(P) combined messages, not
	 * P, and one credit round trip per block would cost more than it saves.
	 */
	if (settings.threshold && pair_bytes < IBNET_A2A_PAIR_MIN)
		return BELOW;
	if (__builtin_mul_overflow(pair_bytes, ci->fanin_pairs, &fanin))
		fanin = (unsigned long)-1;
	return fanin < settings.threshold ? BELOW : PACED;
}

/*
 * The requests one exchange has posted. A finished request's slot goes on a
 * free list and is reused, so a post costs O(1) and the arrays (what
 * Waitsome scans) are only as long as the most requests outstanding at once:
 * the current phases', not the whole call's.
 */
struct events {
	MPI_Request *req;
	int *kind, *peer;
	int *free_slot;		/* slots below n whose request has finished */
	int *done;		/* Waitsome's indices, and then the peers */
	MPI_Status *status;	/* Waitsome's statuses (their MPI_TAG then holds the kind) */
	int n, cap, nfree;	/* slots handed out so far, allocated, free */
	int active;		/* requests posted and not yet finished */
};
/* A send; a local receive; a credit or data receive between nodes. */
enum { EV_SEND, EV_RECV, EV_CREDIT, EV_DATA };

/* Grow every per-slot array to cap (a failed step keeps the old ones). */
static bool ev_grow(struct events *e, int cap)
{
	size_t n = (size_t)cap;
	void *p;

#define EV_GROW(field)                                                  \
	do {                                                            \
		if (!(p = realloc(e->field, sizeof(*e->field) * n)))    \
			return false;                                   \
		e->field = p;                                           \
	} while (0)
	EV_GROW(req);
	EV_GROW(kind);
	EV_GROW(peer);
	EV_GROW(free_slot);
	EV_GROW(done);
	EV_GROW(status);
#undef EV_GROW
	e->cap = cap;
	return true;
}

/* A free slot for one more request, or -1: out of memory. */
static int ev_slot(struct events *e)
{
	if (e->nfree)
		return e->free_slot[--e->nfree];
	if (e->n == e->cap && !ev_grow(e, e->cap ? 2 * e->cap : 64))
		return -1;
	e->req[e->n] = MPI_REQUEST_NULL;
	return e->n++;
}

static void ev_release(struct events *e, int slot)
{
	e->req[slot] = MPI_REQUEST_NULL;
	e->free_slot[e->nfree++] = slot;
}

static void ev_free(struct events *e)
{
	free(e->req);
	free(e->kind);
	free(e->peer);
	free(e->free_slot);
	free(e->done);
	free(e->status);
}

/*
 * Post one send (EV_SEND) or receive of n bytes and track it. The slot is
 * found first, so a posted request is always tracked; on failure nothing is
 * posted and the MPI's code (or MPI_ERR_NO_MEM) comes back.
 */
static int ev_post(struct events *e, int kind, int peer, const void *buf, int n, int tag,
		   MPI_Comm comm)
{
	int i = ev_slot(e), rc;

	if (i < 0)
		return MPI_ERR_NO_MEM;	/* paced_exchange ends the job (out_of_memory) */
	if (injected_failure())
		rc = MPI_ERR_OTHER;
	else if (kind == EV_SEND)
		rc = PMPI_Isend(buf, n, MPI_BYTE, peer, tag, comm, &e->req[i]);
	else
		rc = PMPI_Irecv((void *)buf, n, MPI_BYTE, peer, tag, comm, &e->req[i]);
	if (rc != MPI_SUCCESS) {
		ev_release(e, i);
		return rc;
	}
	e->kind[i] = kind;
	e->peer[i] = peer;
	e->active++;
	return MPI_SUCCESS;
}

/*
 * After a failure, the requests still posted; none is waited for on a peer,
 * since a peer that failed too would never answer, and we must return.
 *   - Receives are cancelled, or they could write after we return. A credit
 *     receive is then completed: its int is ours, freed on return, and a
 *     cancelled receive or one holding its 4 eager bytes completes locally.
 *   - Data and local receives are freed once cancelled, not completed: one
 *     already matched may need its sender to progress. Its bytes may still
 *     land in the receive buffer: the user's, undefined after an error
 *     anyway, or our scratch buffer, which run_paced then never frees.
 *   - Sends are freed, not cancelled (MPI 4.0 deprecates cancelling a send,
 *     and MPIs do not reliably do it): the MPI finishes or drops them in the
 *     background, reading the user's send buffer until then.
 * The peers may still wait for this rank, as in the MPI's own collectives
 * after an error: the application is expected to abort (the default error
 * handler does), and the communicator's private context may hold stray
 * messages of this call, so later calls on it are not to be trusted.
 */
static void ev_abandon(struct events *e)
{
	int i;

	for (i = 0; i < e->n; i++) {
		if (e->req[i] == MPI_REQUEST_NULL)
			continue;
		if (e->kind[i] != EV_SEND)
			PMPI_Cancel(&e->req[i]);
		if (e->kind[i] == EV_CREDIT)
			PMPI_Wait(&e->req[i], MPI_STATUS_IGNORE);
		else
			PMPI_Request_free(&e->req[i]);
	}
}

/* The first error of a PMPI_Waitsome that returned rc over ndone statuses. */
static int waitsome_error(int rc, int ndone, const MPI_Status *status)
{
	int j;

	if (rc != MPI_ERR_IN_STATUS)
		return rc;
	for (j = 0; j < ndone; j++)
		if (status[j].MPI_ERROR != MPI_SUCCESS)
			return status[j].MPI_ERROR;
	return MPI_ERR_INTERN;
}

/*
 * The sending side's phases. In phase p this rank sends to the ranks of node
 * mynode+p, and they grant it credits in their own phase p (they receive
 * from node i-p), so both sides walk the phases in the same order. Credit
 * receives are posted for the lowest phase not yet sent and the next one
 * only; a credit granted further ahead waits in the MPI as an unexpected
 * four-byte message until this rank gets there. That cannot deadlock: by
 * induction on p, once every phase below p is sent, every sender of phase p
 * listens for its credits, so its receivers' grants are answered, their
 * windows drain, and they reach every phase-p sender in turn.
 */
struct send_phases {
	int *unsent;	/* phase -> ranks of its node with bytes still to send */
	int current;	/* the lowest phase with unsent bytes; nnodes when all sent */
	int posted;	/* the highest phase whose credit receives are posted */
};

static int phase_of(const struct comm_info *ci, int rank)
{
	return (ci->node_of[rank] - ci->mynode + ci->nnodes) % ci->nnodes;
}

/* Post the credit receives of the phases now due (see struct send_phases). */
static int send_phases_advance(struct send_phases *sp, struct events *ev,
			       const struct comm_info *ci, const MPI_Aint *slen, int *credit_in)
{
	int rc, i;

	while (sp->current < ci->nnodes && sp->unsent[sp->current] == 0)
		sp->current++;
	while (sp->posted < sp->current + 1 && sp->posted + 1 < ci->nnodes) {
		int node = (ci->mynode + ++sp->posted) % ci->nnodes;

		for (i = ci->node_start[node]; i < ci->node_start[node + 1]; i++) {
			int r = ci->by_node[i];

			if (!slen[r])
				continue;
			rc = ev_post(ev, EV_CREDIT, r, &credit_in[r], sizeof(int), TAG_CREDIT,
				     ci->priv);
			if (rc != MPI_SUCCESS)
				return rc;
		}
	}
	return MPI_SUCCESS;
}

/*
 * Move slen[r] bytes from sbuf+soff[r] to every rank r, and receive rlen[r]
 * bytes from r at rbuf+roff[r], paced as the header says. No block is over
 * block_limit (an int): the callers hand such calls over.
 *
 * Cost per call, for P ranks on nodes of L: O(P) memory and set-up; at most
 * 2(L-1) local requests, the credit receives of two phases (2L), and the
 * window's data receives outstanding at once, so each Waitsome scans O(L)
 * requests, not O(P).
 */
static int paced_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
			  const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff,
			  const MPI_Aint *rlen)
{
	struct events ev = { 0 };
	struct send_phases sp = { .current = 1, .posted = 0 };
	MPI_Aint *sent = calloc((size_t)ci->size, sizeof(MPI_Aint));
	int *credit_in = calloc((size_t)ci->size, sizeof(int));
	int *order = malloc(sizeof(int) * (size_t)ci->size);
	int me = ci->rank, mynode = ci->mynode, nlocal, my_credits, norder = 0;
	int oi = 0, outstanding = 0, rc = MPI_ERR_NO_MEM, i, p;
	MPI_Aint chunk, off = 0;

	sp.unsent = calloc((size_t)ci->nnodes, sizeof(int));
	if (!sent || !credit_in || !order || !sp.unsent)
		out_of_memory(ci, "its schedule");
	nlocal = ci->node_start[mynode + 1] - ci->node_start[mynode];
	/*
	 * The node's ranks share its window: each grants window/nlocal bytes,
	 * in its share of the credits (at least one, of at least 1 KiB). With
	 * two ranks per node and one credit, each grants half the chunk.
	 */
	my_credits = (int)settings.credits / nlocal;
	if (my_credits < 1)
		my_credits = 1;
	chunk = (MPI_Aint)(settings.window / (unsigned long)nlocal / (unsigned long)my_credits);
	if (chunk < 1024)
		chunk = 1024;

	if (rlen[me])
		memcpy(rbuf + roff[me], sbuf + soff[me], (size_t)rlen[me]);
	/* Same node: shared memory, all at once (whole blocks: int, see block_limit). */
	for (i = ci->node_start[mynode]; i < ci->node_start[mynode + 1]; i++) {
		int q = ci->by_node[i];

		if (q == me)
			continue;
		if (rlen[q] && (rc = ev_post(&ev, EV_RECV, q, rbuf + roff[q], (int)rlen[q],
					     TAG_LOCAL, ci->priv)) != MPI_SUCCESS)
			goto out;
		if (slen[q] && (rc = ev_post(&ev, EV_SEND, q, sbuf + soff[q], (int)slen[q],
					     TAG_LOCAL, ci->priv)) != MPI_SUCCESS)
			goto out;
	}
	/* As a sender: the phases, and the first two phases' credit receives. */
	for (i = 0; i < ci->size; i++)
		if (ci->node_of[i] != mynode && slen[i])
			sp.unsent[phase_of(ci, i)]++;
	if ((rc = send_phases_advance(&sp, &ev, ci, slen, credit_in)) != MPI_SUCCESS)
		goto out;
	/* As a receiver: the senders in phase order, node mynode-p in phase p;
	 * on each sender node start at our own local index, spreading the load. */
	for (p = 1; p < ci->nnodes; p++) {
		int k = (mynode - p + ci->nnodes) % ci->nnodes;
		int first = ci->node_start[k], n = ci->node_start[k + 1] - first;

		for (i = 0; i < n; i++) {
			int s = ci->by_node[first + (i + ci->local_index[me]) % n];

			if (rlen[s])
				order[norder++] = s;
		}
	}

	for (;;) {
		int ndone = 0, j;

		/* Grant while the window has room. */
		while (outstanding < my_credits && oi < norder) {
			int s = order[oi];
			MPI_Aint len = rlen[s] - off < chunk ? rlen[s] - off : chunk;
			int grant = (int)len;	/* at most the window, 64 MiB */

			rc = ev_post(&ev, EV_DATA, s, rbuf + roff[s] + off, grant, TAG_DATA, ci->priv);
			if (rc != MPI_SUCCESS)
				goto out;
			/* Four bytes, eager in every MPI: returns at once. As bytes,
			 * the type the credit receive posts (ev_post). */
			rc = injected_failure() ? MPI_ERR_OTHER :
				PMPI_Send(&grant, sizeof(grant), MPI_BYTE, s, TAG_CREDIT, ci->priv);
			if (rc != MPI_SUCCESS)
				goto out;
			outstanding++;
			off += len;
			if (off == rlen[s])
				oi++, off = 0;
		}
		if (!ev.active)
			break;
		rc = PMPI_Waitsome(ev.n, ev.req, &ndone, ev.done, ev.status);
		if (rc != MPI_SUCCESS) {
			rc = waitsome_error(rc, ndone, ev.status);
			goto out;
		}
		/* Read every finished slot and free it before any is reused below. */
		for (j = 0; j < ndone; j++) {
			int slot = ev.done[j];

			ev.status[j].MPI_TAG = ev.kind[slot], ev.done[j] = ev.peer[slot];
			ev_release(&ev, slot);
		}
		ev.active -= ndone;
		for (j = 0; j < ndone; j++) {
			int kind = ev.status[j].MPI_TAG, d = ev.done[j];
			MPI_Aint len;

			if (kind == EV_DATA)
				outstanding--;
			if (kind != EV_CREDIT)
				continue;
			/* The receiver says how much: its chunk, not ours (at most
			 * its window, 64 MiB: an int). */
			len = credit_in[d];
			if (len > slen[d] - sent[d])
				len = slen[d] - sent[d];
			rc = ev_post(&ev, EV_SEND, d, sbuf + soff[d] + sent[d], (int)len, TAG_DATA,
				     ci->priv);
			if (rc != MPI_SUCCESS)
				goto out;
			sent[d] += len;
			if (sent[d] < slen[d])
				rc = ev_post(&ev, EV_CREDIT, d, &credit_in[d], sizeof(int), TAG_CREDIT,
					     ci->priv);
			else if (--sp.unsent[phase_of(ci, d)] == 0)
				rc = send_phases_advance(&sp, &ev, ci, slen, credit_in);
			if (rc != MPI_SUCCESS)
				goto out;
		}
	}
	rc = MPI_SUCCESS;
out:
#ifdef IBNET_A2A_TESTING
	if (ev.n > test_most_slots)
		test_most_slots = ev.n;
#endif
	if (rc == MPI_ERR_NO_MEM)
		out_of_memory(ci, "its requests");
	if (rc != MPI_SUCCESS)
		ev_abandon(&ev);
	free(sent);
	free(credit_in);
	free(order);
	free(sp.unsent);
	ev_free(&ev);
	return rc;
}

/*
 * The byte layout of one side of the exchange: where each rank's bytes
 * are, packed into a scratch buffer if the datatype is not plain bytes.
 */
struct side {
	char *buf;		/* the user's buffer, or scratch */
	char *scratch;
	MPI_Aint *off, *len;
};

static void side_free(struct side *s)
{
	free(s->scratch);
	free(s->off);
	free(s->len);
}

/* Where rank i's block starts in the user's buffer, in extents (MPI_Aint:
 * an MPI_Alltoall's i * count passes INT_MAX before any one block does). */
static MPI_Aint block_start(int i, const int *displs, int count)
{
	return displs ? (MPI_Aint)displs[i] : (MPI_Aint)i * count;
}

static int side_layout(struct side *s, int size, const int *counts, const int *displs,
		       int count, MPI_Datatype type, const void *user)
{
	MPI_Aint lb, extent, total = 0;
	int tsize, i;
	bool plain = ibnet_a2a_type_is_plain(type);

	PMPI_Type_size(type, &tsize);
	PMPI_Type_get_extent(type, &lb, &extent);
	s->off = malloc(sizeof(MPI_Aint) * (size_t)size);
	s->len = malloc(sizeof(MPI_Aint) * (size_t)size);
	s->scratch = NULL;
	if (!s->off || !s->len)
		return -1;
	for (i = 0; i < size; i++) {
		int c = counts ? counts[i] : count;

		s->len[i] = (MPI_Aint)c * tsize;
		if (plain) {
			s->off[i] = block_start(i, displs, count) * extent;
		} else {
			s->off[i] = total;
			total += s->len[i];
		}
	}
	s->buf = (char *)user;
	if (!plain) {
		s->scratch = malloc(total ? (size_t)total : 1);
		if (!s->scratch)
			return -1;
		s->buf = s->scratch;
	}
	return 0;
}

/*
 * Between the user's buffer and the scratch one, each rank's block: pack
 * (to scratch) or unpack. Packed bytes of a homogeneous job are the data's
 * own bytes (both MPIs). A block's bytes fit an int (block_limit).
 */
static int side_copy(struct side *s, bool pack, MPI_Comm comm, int size, const int *counts,
		     const int *displs, int count, MPI_Datatype type, const void *user)
{
	MPI_Aint lb, extent;
	int i, pos, rc;

	PMPI_Type_get_extent(type, &lb, &extent);
	for (i = 0; i < size; i++) {
		char *block = (char *)user + block_start(i, displs, count) * extent;
		int c = counts ? counts[i] : count;

		pos = 0;
		if (pack)
			rc = PMPI_Pack(block, c, type, s->scratch + s->off[i], (int)s->len[i], &pos,
				       comm);
		else
			rc = PMPI_Unpack(s->scratch + s->off[i], (int)s->len[i], &pos, block, c,
					 type, comm);
		if (rc != MPI_SUCCESS)
			return rc;
	}
	return MPI_SUCCESS;
}

/* Both calls: alltoall has counts == NULL (sendcount/recvcount for all). */
static int run_paced(struct comm_info *ci, const void *sendbuf, const int *scounts,
		     const int *sdispls, int scount, MPI_Datatype stype, void *recvbuf,
		     const int *rcounts, const int *rdispls, int rcount, MPI_Datatype rtype)
{
	struct side s = { 0 }, r = { 0 };
	int rc = MPI_SUCCESS;

	if (test_no_scratch(ci->rank) ||
	    side_layout(&s, ci->size, scounts, sdispls, scount, stype, sendbuf) < 0 ||
	    side_layout(&r, ci->size, rcounts, rdispls, rcount, rtype, recvbuf) < 0)
		out_of_memory(ci, "its buffer layout (and scratch, for a non-contiguous type)");
	if (s.scratch)
		rc = side_copy(&s, true, ci->priv, ci->size, scounts, sdispls, scount, stype,
			       sendbuf);
	if (rc == MPI_SUCCESS) {
		rc = paced_exchange(ci, s.buf, s.off, s.len, r.buf, r.off, r.len);
		/*
		 * A failed exchange left its requests to the MPI (ev_abandon): sends
		 * may still read the scratch send buffer, and a matched receive may
		 * still write the scratch receive buffer. They are leaked on purpose,
		 * once, on a path that ends the job in all but name.
		 */
		if (rc != MPI_SUCCESS)
			s.scratch = NULL, r.scratch = NULL;
	}
	if (rc == MPI_SUCCESS && r.scratch)
		rc = side_copy(&r, false, ci->priv, ci->size, rcounts, rdispls, rcount, rtype,
			       recvbuf);
	side_free(&s);
	side_free(&r);
	return rc;
}

/* The route of a call the scheme could take, by its largest block. */
static enum route size_route(const struct comm_info *ci, unsigned long block_bytes)
{
	return block_bytes > block_limit ? BIG_BLOCK : fanin_route(ci, block_bytes);
}

/*
 * Both calls' route before their sizes are known: common_route's checks,
 * then the communicator's layout (collective: every rank of comm reaches it
 * alike). *ci is set where the route is still PACED. A failed set-up is
 * reported and its code returned.
 */
static int comm_route(MPI_Comm comm, const void *sendbuf, enum route *route,
		      struct comm_info **ci)
{
	int rc;

	*ci = NULL;
	*route = common_route(comm, sendbuf);
	if (*route != PACED)
		return MPI_SUCCESS;
	if ((rc = comm_info(comm, ci)) != MPI_SUCCESS)
		return rc;
	if (!*ci)
		*route = NO_MEMORY;
	else if ((*ci)->nnodes < 2)
		*route = ONE_NODE;
	return MPI_SUCCESS;
}

EXPORT int ibnet_a2a_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	enum route route;
	struct comm_info *ci;
	int tsize = 0, rsize = 0, rc;

	if ((rc = comm_route(comm, sendbuf, &route, &ci)) != MPI_SUCCESS)
		return rc;	/* reported */
	if (route == PACED) {
		unsigned long sbytes, rbytes;

		PMPI_Type_size(sendtype, &tsize);
		PMPI_Type_size(recvtype, &rsize);
		sbytes = (unsigned long)(sendcount < 0 ? 0 : sendcount) * (unsigned long)tsize;
		rbytes = (unsigned long)(recvcount < 0 ? 0 : recvcount) * (unsigned long)rsize;
		/* Equal on every rank (the type signatures must match), so each
		 * rank sees an erroneous call as erroneous alike. */
		route = sbytes != rbytes ? SIZES_DIFFER : size_route(ci, sbytes);
	}
	count(ALLTOALL, route);
	if (route != PACED)
		return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	rc = run_paced(ci, sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL,
		       recvcount, recvtype);
	return rc == MPI_SUCCESS ? rc : report_failure(comm, rc);
}

EXPORT int ibnet_a2a_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
			       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
			       const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
	enum route route;
	struct comm_info *ci;
	int tsize = 0, rsize = 0, i, rc;

	if ((rc = comm_route(comm, sendbuf, &route, &ci)) != MPI_SUCCESS)
		return rc;	/* reported */
	if (route == PACED) {
		/*
		 * Counts differ by rank: agree on the largest pair, and check that
		 * every block is received as large as it is sent, in one small
		 * allreduce (check_op: the maximum, and the XOR of pair hashes).
		 */
		struct sizes_check c = { 0, 0 };

		PMPI_Type_size(sendtype, &tsize);
		PMPI_Type_size(recvtype, &rsize);
		for (i = 0; i < ci->size; i++) {
			unsigned long sb = (unsigned long)sendcounts[i] * (unsigned long)tsize;
			unsigned long rb = (unsigned long)recvcounts[i] * (unsigned long)rsize;

			if (sb > c.most)
				c.most = sb;
			c.pairs ^= pair_hash(ci->rank, i, sb) ^ pair_hash(i, ci->rank, rb);
		}
		rc = PMPI_Allreduce(MPI_IN_PLACE, &c, 1, sizes_check_type, sizes_check_op, ci->priv);
		if (rc != MPI_SUCCESS)
			return report_failure(comm, rc);
		route = c.pairs ? SIZES_DIFFER : size_route(ci, c.most);
	}
	count(ALLTOALLV, route);
	if (route != PACED)
		return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
				      rdispls, recvtype, comm);
	rc = run_paced(ci, sendbuf, sendcounts, sdispls, 0, sendtype, recvbuf, recvcounts,
		       rdispls, 0, recvtype);
	return rc == MPI_SUCCESS ? rc : report_failure(comm, rc);
}

/*
 * MPI_Ialltoall and MPI_Ialltoallv: always the MPI's own (enum route,
 * NONBLOCKING), counted. A call does not run init_once by way of comm_route,
 * so it runs it here: a program with only non-blocking calls still gets its
 * report and its settings.
 */
static enum route nonblocking_route(void)
{
	pthread_once(&once, init_once);
	return enabled ? NONBLOCKING : OFF;
}

EXPORT int ibnet_a2a_ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
			       MPI_Request *request)
{
	count(IALLTOALL, nonblocking_route());
	return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
			      request);
}

EXPORT int ibnet_a2a_ialltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
				MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
				const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm,
				MPI_Request *request)
{
	count(IALLTOALLV, nonblocking_route());
	return PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
			       rdispls, recvtype, comm, request);
}

/*
 * Fortran. Open MPI's mpi_alltoall_ calls PMPI_Alltoall itself, so the
 * dispatcher takes the Fortran names too; so does its mpi_f08
 * mpi_alltoall_f08_ (through the same C routine as mpi_alltoall_,
 * ompi_alltoall_f). MPICH's Fortran routines, mpi_f08's included, call
 * MPI_Alltoall (and MPI_Ialltoall), which is already ours, and count there:
 * for MPICH, and for Fortran's MPI_IN_PLACE and MPI_BOTTOM in Open MPI, the
 * library's own Fortran routine runs.
 *
 * Every Fortran routine gets its handles as the address of an INTEGER: so
 * does Open MPI's mpi_f08 (TYPE(MPI_Comm) is one INTEGER, MPI_VAL, passed by
 * reference). Its ierror is OPTIONAL: NULL when the caller leaves it out.
 */
typedef void (*f_alltoall_fn)(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *,
			      MPI_Fint *, MPI_Fint *);
typedef void (*f_alltoallv_fn)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
			       MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_ialltoall_fn)(void *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *, MPI_Fint *,
			       MPI_Fint *, MPI_Fint *, MPI_Fint *);
typedef void (*f_ialltoallv_fn)(void *, MPI_Fint *, MPI_Fint *, MPI_Fint *, void *, MPI_Fint *,
				MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *, MPI_Fint *);

/* The MPI's own Fortran routine of that name (its profiling name: pmpi_...). */
static void *mpis_own(const char *name)
{
	return host->own(name);
}

#ifdef OPEN_MPI
/*
 * Open MPI's Fortran sentinels, under each name mangling it may use. Its
 * mpi_f08 MPI_IN_PLACE and MPI_BOTTOM are these same variables:
 * "bind(C, name=...)" to the mangled mpi_fortran_in_place
 * (ompi/mpi/fortran/base/gen-mpi-mangling.pl, mpif-f08-types.h).
 */
static const char *const sentinel_names[] = {
	"mpi_fortran_in_place", "mpi_fortran_in_place_", "mpi_fortran_in_place__",
	"MPI_FORTRAN_IN_PLACE", "mpi_fortran_bottom", "mpi_fortran_bottom_",
	"mpi_fortran_bottom__", "MPI_FORTRAN_BOTTOM",
};
#define SENTINELS (sizeof(sentinel_names) / sizeof(sentinel_names[0]))
static void *sentinel[SENTINELS];
static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;

/* Looked up once: a name the MPI lacks costs a walk over every loaded object. */
static void find_sentinels(void)
{
	size_t i;

	for (i = 0; i < SENTINELS; i++)
		sentinel[i] = host->find(sentinel_names[i]);
}

static bool fortran_sentinel(const void *buf)
{
	size_t i;

	pthread_once(&sentinels_once, find_sentinels);
	for (i = 0; i < SENTINELS; i++)
		if (sentinel[i] && sentinel[i] == buf)
			return true;
	return false;
}

/*
 * Every rank first joins the ranks' agreement on the communicator, as the
 * C entry does: a rank whose Fortran call is handed over below (in place)
 * still meets the others there. The verdict, when not to pace, is the route.
 */
static enum route fortran_agree(MPI_Fint *comm)
{
	enum ibnet_a2a_verdict v = host->agree(handle_of(PMPI_Comm_f2c(*comm)));

	return v == IBNET_A2A_AGREED ? IN_PLACE : verdict_route(v);
}
#endif

/* Both Fortran bindings of MPI_Alltoall; own names the MPI's routine of the binding. */
static void f_alltoall(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
		       MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	if (!fortran_sentinel(sb) && !fortran_sentinel(rb)) {
		int err = ibnet_a2a_alltoall(sb, *sc, PMPI_Type_f2c(*st), rb, *rc,
					     PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));

		if (ierr)
			*ierr = err;
		return;
	}
	/* Fortran's MPI_IN_PLACE (or MPI_BOTTOM), or a call the ranks agreed to hand over */
	count(ALLTOALL, fortran_agree(comm));
#endif
	((f_alltoall_fn)mpis_own(own))(sb, sc, st, rb, rc, rt, comm, ierr);
}

static void f_alltoallv(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
			void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
			MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	if (!fortran_sentinel(sb) && !fortran_sentinel(rb)) {
		int err = ibnet_a2a_alltoallv(sb, sc, sd, PMPI_Type_f2c(*st), rb, rc, rd,
					      PMPI_Type_f2c(*rt), PMPI_Comm_f2c(*comm));

		if (ierr)
			*ierr = err;
		return;
	}
	count(ALLTOALLV, fortran_agree(comm));
#endif
	((f_alltoallv_fn)mpis_own(own))(sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

/*
 * Non-blocking from Fortran: the MPI's own routine. Open MPI's calls
 * PMPI_Ialltoall, unseen by us, so the call is counted here; MPICH's calls
 * MPI_Ialltoall, ours, which counts it.
 */
static void f_ialltoall(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb,
			MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	count(IALLTOALL, nonblocking_route());
#endif
	((f_ialltoall_fn)mpis_own(own))(sb, sc, st, rb, rc, rt, comm, req, ierr);
}

static void f_ialltoallv(const char *own, void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
			 void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
			 MPI_Fint *req, MPI_Fint *ierr)
{
#ifdef OPEN_MPI
	count(IALLTOALLV, nonblocking_route());
#endif
	((f_ialltoallv_fn)mpis_own(own))(sb, sc, sd, st, rb, rc, rd, rt, comm, req, ierr);
}

/* use mpi and mpif.h: what the dispatcher's mpi_alltoall_ and its other manglings call. */
EXPORT void ibnet_a2a_f_alltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				 MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
	f_alltoall("pmpi_alltoall_", sb, sc, st, rb, rc, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f_alltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				  MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				  MPI_Fint *ierr)
{
	f_alltoallv("pmpi_alltoallv_", sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f_ialltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				  MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoall("pmpi_ialltoall_", sb, sc, st, rb, rc, rt, comm, req, ierr);
}

EXPORT void ibnet_a2a_f_ialltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				   MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				   MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoallv("pmpi_ialltoallv_", sb, sc, sd, st, rb, rc, rd, rt, comm, req, ierr);
}

#ifdef OPEN_MPI
/*
 * use mpi_f08, Open MPI (4.1 and 5.0: mpi_alltoall_f08_ in
 * libmpi_usempif08). MPICH's mpi_f08 routines have other names
 * (mpi_alltoall_f08ts_) and reach our MPI_Alltoall by themselves: its build
 * has none of these, and the dispatcher sends the f08 names to the MPI.
 */
EXPORT void ibnet_a2a_f08_alltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				   MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
	f_alltoall("pmpi_alltoall_f08_", sb, sc, st, rb, rc, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f08_alltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st, void *rb,
				    MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt, MPI_Fint *comm,
				    MPI_Fint *ierr)
{
	f_alltoallv("pmpi_alltoallv_f08_", sb, sc, sd, st, rb, rc, rd, rt, comm, ierr);
}

EXPORT void ibnet_a2a_f08_ialltoall(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc,
				    MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoall("pmpi_ialltoall_f08_", sb, sc, st, rb, rc, rt, comm, req, ierr);
}

EXPORT void ibnet_a2a_f08_ialltoallv(void *sb, MPI_Fint *sc, MPI_Fint *sd, MPI_Fint *st,
				     void *rb, MPI_Fint *rc, MPI_Fint *rd, MPI_Fint *rt,
				     MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
	f_ialltoallv("pmpi_ialltoallv_f08_", sb, sc, sd, st, rb, rc, rd, rt, comm, req, ierr);
}
#endif
