/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_paced.c - a paced, node-aware all-to-all for one MPI ABI: its
 * entry points, its settings and its test hooks (ibnet_a2a_paced.h lists
 * the other parts and what each decides).
 *
 * Built twice, against Open MPI's and MPICH's mpi.h (libibnet-a2a-ompi.so,
 * libibnet-a2a-mpich.so), and loaded by the dispatcher (ibnet_a2a_dispatch.c)
 * into MPI programs only. Not linked against libmpi: its PMPI_* symbols are
 * the ones the program already loaded.
 *
 * The scheme itself is in ibnet_a2a_exchange.c. Anything it does not handle
 * is handed to the MPI library's own implementation (ibnet_a2a_route.c says
 * what and why).
 * A call of ours that fails is reported once, through the error handler the
 * user's communicator has at the call, and its code returned (report_failure()).
 *
 * Built with -DIBNET_A2A_TESTING (the Makefile's build/tests/ copies, never
 * installed), it also reads the SLURM_IBNET_ALLTOALL_TEST_* variables below.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ibnet_a2a_paced.h"
#include "ibnet_job_vars.h"

/*
 * Loaded without the dispatcher (devel/bench/a2a_versus.c opens builds
 * side by side and calls them directly): the MPI is in the global scope and
 * every rank runs the same build, so there is nothing to agree.
 */
static void *standalone_find(const char *name)
{
	return dlsym(RTLD_DEFAULT, name);
}

static void *standalone_own(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);

	if (!p) {
		fprintf(stderr, "spank-ibnet alltoall: the MPI library's own %s cannot be found\n",
			name);
		abort();
	}
	return p;
}

static enum ibnet_a2a_verdict standalone_agree(uintptr_t comm)
{
	(void)comm;
	return IBNET_A2A_AGREED;
}

static const struct ibnet_a2a_host standalone = {
	.own = standalone_own,
	.find = standalone_find,
	.agree = standalone_agree,
};

/* The dispatcher's help: the MPI's own symbols, and the ranks' agreement. */
const struct ibnet_a2a_host *host = &standalone;

EXPORT void ibnet_a2a_attach(const struct ibnet_a2a_host *h)
{
	host = h;
}

/* A communicator as the agreement takes it: its handle's bytes, zero-extended. */
uintptr_t handle_of(MPI_Comm comm)
{
	uintptr_t word = 0;

	memcpy(&word, &comm, sizeof(comm));
	return word;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
bool enabled;
bool report;
struct ibnet_a2a_settings settings;
int world_rank = -1;
/* The process that read the settings: a fork()ed child that exits leaves no tally. */
pid_t settings_pid;
/*
 * The largest block (bytes one rank sends one other) the scheme takes. Its
 * local sends and receives, packing and unpacking pass a block's bytes as an
 * int count of MPI_BYTE; a call with a larger block goes to the MPI's own
 * routine, which has its own ways past int. Every rank decides alike: an
 * MPI_Alltoall's bytes per pair are equal on all (equal type signatures), an
 * MPI_Alltoallv's largest block is agreed by allreduce. Data between nodes
 * moves in chunks of at most the window (64 MiB), far below it.
 */
unsigned long block_limit = INT_MAX;

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
 *   SLURM_IBNET_ALLTOALL_TEST_NO_SEGMENT=R: rank R cannot take part in its
 *     node's shared segments (ibnet_a2a_nodes.c).
 *   SLURM_IBNET_ALLTOALL_TEST_LANES=K: at most K lanes per node, not
 *     IBNET_A2A_LANES_MAX.
 *   SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES=3,5,1: pretend nodes of uneven
 *     sizes, in rank order, of a communicator's ranks (each a node past them).
 *   SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS=LIST:NODEID: the job's ranks on this
 *     node as Slurm's SLURM_STEP_TASKS_PER_NODE and SLURM_NODEID would say
 *     them, over the launcher's count and beside pretend nodes.
 */
int test_ranks_per_node;
static int test_no_memory_rank = -1, test_no_scratch_rank = -1, test_no_segment_rank = -1;
int test_lanes;
char test_node_sizes[256];
char test_step_tasks[256];
/* Credits granted by this process: each a round trip (ibnet_a2a_exchange.c). */
unsigned long test_grants, test_round_trips;
/* Communicator state made and freed, said at exit with the report. */
unsigned long test_infos_made, test_infos_freed;
/* The most requests one exchange had posted at once (slots handed out). */
int test_most_slots;
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
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NO_SEGMENT")))
		test_no_segment_rank = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_LANES")))
		test_lanes = atoi(v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES")))
		snprintf(test_node_sizes, sizeof(test_node_sizes), "%s", v);
	if ((v = getenv("SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS")))
		snprintf(test_step_tasks, sizeof(test_step_tasks), "%s", v);
}

/* The first rank of rank's pretend node when nodes are runs of the sizes in
 * test_node_sizes ("3,5,1"); ranks past them are one node each. */
int test_node_leader(int rank)
{
	const char *p = test_node_sizes;
	int start = 0, n;

	while (*p) {
		n = atoi(p);
		if (n < 1)
			break;
		if (rank < start + n)
			return start;
		start += n;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return rank;
}

bool test_no_segment(int rank)
{
	return rank == test_no_segment_rank;
}

bool test_no_scratch(int rank)
{
	return rank == test_no_scratch_rank;
}

bool test_no_memory(MPI_Comm comm)
{
	int rank = -1;

	PMPI_Comm_rank(comm, &rank);
	return rank == test_no_memory_rank;
}

bool injected_failure(void)
{
	return test_fail_at &&
	       __atomic_add_fetch(&test_p2p_calls, 1, __ATOMIC_RELAXED) == test_fail_at;
}
#else
static void read_test_settings(void)
{
}
#endif

void say(const char *what)
{
	fprintf(stderr, "spank-ibnet alltoall: %s\n", what);
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
	atexit(a2a_at_exit);
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

/*
 * A call of ours failed with rc: tell the user's communicator's error handler,
 * as the MPI's own all-to-all would (the default handler aborts the job), and
 * give the code back for the caller to return.
 */
int report_failure(MPI_Comm comm, int rc)
{
	PMPI_Comm_call_errhandler(comm, rc);
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
	unsigned long heaviest;	/* the most bytes a rank sends or receives: MPI_MAX */
	unsigned long wide;	/* a rank's counts or displacements pass an int: MPI_MAX */
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
		if (a[i].heaviest > b[i].heaviest)
			b[i].heaviest = a[i].heaviest;
		if (a[i].wide > b[i].wide)
			b[i].wide = a[i].wide;
	}
}

/*
 * MPI_Finalize deletes MPI_COMM_SELF's attributes first (MPI 4.0, 11.2.4):
 * the check's type and operation go with them, so the MPI finds nothing of
 * ours left (MPICH's datatype engine warns of every handle still held).
 */
static int free_sizes_check(MPI_Comm comm, int kv, void *attr, void *extra)
{
	(void)comm, (void)kv, (void)attr, (void)extra;
	if (sizes_check_type != MPI_DATATYPE_NULL)
		PMPI_Type_free(&sizes_check_type);
	if (sizes_check_op != MPI_OP_NULL)
		PMPI_Op_free(&sizes_check_op);
	return MPI_SUCCESS;
}

static void init_once(void)
{
	int at_finalize = MPI_KEYVAL_INVALID;

	read_settings();
	read_test_settings();
	PMPI_Type_contiguous(4, MPI_UNSIGNED_LONG, &sizes_check_type);
	PMPI_Type_commit(&sizes_check_type);
	PMPI_Op_create(sizes_check_combine, 1, &sizes_check_op);
	if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_sizes_check, &at_finalize,
				    NULL) == MPI_SUCCESS)
		PMPI_Comm_set_attr(MPI_COMM_SELF, at_finalize, NULL);
	a2a_layout_init();
	PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
}

/* The bytes of block i of one side (a count times its type's size). */
static unsigned long block_bytes(const struct a2a_side *a, int i)
{
	int c = a->counts ? a->counts[i] : a->count, tsize = 0;

	PMPI_Type_size(a->types ? a->types[i] : a->type, &tsize);
	return (unsigned long)(c < 0 ? 0 : c) * (unsigned long)tsize;
}

/*
 * The route of a call whose sizes differ by rank (MPI_Alltoallv, _w, and
 * their large-count forms): agree on the largest block and the heaviest
 * rank, on whether any rank's counts or displacements pass an int (wide:
 * the large-count forms), and check that every block is received as large
 * as it is sent, in one small allreduce (sizes_check_combine: the maxima,
 * and the XOR of pair hashes).
 */
static int vector_route(struct comm_info *ci, const struct a2a_side *send,
			const struct a2a_side *recv, bool wide, enum route *route)
{
	struct sizes_check c = { 0, 0, 0, wide };
	unsigned long sent = 0, received = 0;
	int i, rc;

	for (i = 0; i < ci->size && !wide; i++) {
		unsigned long sb = block_bytes(send, i), rb = block_bytes(recv, i);

		if (sb > c.most)
			c.most = sb;
		c.pairs ^= pair_hash(ci->rank, i, sb) ^ pair_hash(i, ci->rank, rb);
		sent += sb, received += rb;
	}
	c.heaviest = sent > received ? sent : received;
	rc = PMPI_Allreduce(MPI_IN_PLACE, &c, 1, sizes_check_type, sizes_check_op, ci->priv);
	if (rc != MPI_SUCCESS)
		return rc;
	if (c.wide)
		*route = LARGE_COUNT;
	else
		*route = c.pairs ? SIZES_DIFFER : size_route(ci, c.most, c.heaviest);
	return *route == PACED_NODES ? node_route(ci, c.heaviest, route) : MPI_SUCCESS;
}

/*
 * Where a call goes, counted under its kind: comm_route's checks, then the
 * sizes (uniform: MPI_Alltoall's one block size; else vector_route); wide:
 * this rank's counts or displacements pass an int (the large-count forms). In
 * place, the send side is described by the receive side. *ci is set for a
 * paced route. A failure is reported and its code returned.
 */
static int call_route(enum kind k, MPI_Comm comm, const struct a2a_side *send,
		      const struct a2a_side *recv, bool uniform, bool wide, enum route *route,
		      struct comm_info **ci)
{
	const struct a2a_side *from = send->buf == MPI_IN_PLACE ? recv : send;
	int rc;

	if ((rc = comm_route(comm, send->buf, route, ci)) != MPI_SUCCESS)
		return rc;	/* reported */
	if (*route == PACED && uniform) {
		unsigned long rbytes = block_bytes(recv, 0), sbytes = block_bytes(from, 0);

		/* Equal on every rank (the type signatures must match), so each
		 * rank sees an erroneous call as erroneous alike. A count past an
		 * int (wide, MPI_Alltoall_c) is a block past 2 GiB on every rank:
		 * BIG_BLOCK, which a rank whose counts fit reaches by its bytes. */
		if (wide)
			*route = BIG_BLOCK;
		else
			*route = sbytes != rbytes ? SIZES_DIFFER :
				size_route(*ci, sbytes, sbytes * (unsigned long)(*ci)->size);
		if (*route == PACED_NODES)
			rc = node_route(*ci, sbytes * (unsigned long)(*ci)->size, route);
	} else if (*route == PACED) {
		rc = vector_route(*ci, from, recv, wide, route);
	}
	if (rc != MPI_SUCCESS)
		return report_failure(comm, rc);
	count(k, *route);
	return MPI_SUCCESS;
}

static bool paced(enum route r)
{
	return r == PACED || r == PACED_NODES;
}

static int run_call(struct comm_info *ci, enum route route, const struct a2a_side *send,
		    const struct a2a_side *recv, MPI_Comm comm)
{
	int rc = run_paced(ci, route == PACED_NODES, send, recv);

	return rc == MPI_SUCCESS ? rc : report_failure(comm, rc);
}

EXPORT int ibnet_a2a_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
			      void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, NULL, NULL, sendcount, sendtype, NULL };
	struct a2a_side recv = { recvbuf, NULL, NULL, recvcount, recvtype, NULL };
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALL, comm, &send, &recv, true, false, &route, &ci)))
		return rc;
	if (!paced(route))
		return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
	return run_call(ci, route, &send, &recv, comm);
}

EXPORT int ibnet_a2a_alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
			       MPI_Datatype sendtype, void *recvbuf, const int *recvcounts,
			       const int *rdispls, MPI_Datatype recvtype, MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, sendcounts, sdispls, 0, sendtype, NULL };
	struct a2a_side recv = { recvbuf, recvcounts, rdispls, 0, recvtype, NULL };
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALLV, comm, &send, &recv, false, false, &route, &ci)))
		return rc;
	if (!paced(route))
		return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
				      rdispls, recvtype, comm);
	return run_call(ci, route, &send, &recv, comm);
}

/* MPI_Alltoallw: a datatype per block, displacements in bytes. */
EXPORT int ibnet_a2a_alltoallw(const void *sendbuf, const int *sendcounts, const int *sdispls,
			       const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
			       const int *rdispls, const MPI_Datatype *recvtypes, MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, sendcounts, sdispls, 0, MPI_DATATYPE_NULL, sendtypes };
	struct a2a_side recv = { recvbuf, recvcounts, rdispls, 0, MPI_DATATYPE_NULL, recvtypes };
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALLW, comm, &send, &recv, false, false, &route, &ci)))
		return rc;
	if (!paced(route))
		return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
				      rdispls, recvtypes, comm);
	return run_call(ci, route, &send, &recv, comm);
}

#if MPI_VERSION >= 4
/*
 * The large-count forms (MPI 4.0: MPICH 4, Open MPI 6), what mpi4py 4 calls.
 * The scheme counts in int: a call whose counts and displacements all fit
 * is paced as its int form is (copied into int arrays); a rank with one
 * that does not makes every rank hand the call to the MPI's own _c routine
 * (route LARGE_COUNT), agreed in the call's one allreduce.
 */
static bool fits(MPI_Count c)
{
	return c >= 0 && c <= INT_MAX;
}

/* Copy n counts (and, if any, displacements) into int arrays; false: one does not fit. */
static bool narrow(int n, const MPI_Count *c, const MPI_Aint *d, int **ci, int **di)
{
	int i;
	bool ok = true;

	*ci = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	*di = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
	if (!*ci || !*di)
		return false;
	for (i = 0; i < n && c; i++) {
		ok = ok && fits(c[i]) && d[i] >= 0 && d[i] <= INT_MAX;
		(*ci)[i] = fits(c[i]) ? (int)c[i] : 0;
		(*di)[i] = d[i] >= 0 && d[i] <= INT_MAX ? (int)d[i] : 0;
	}
	return ok;
}

EXPORT int ibnet_a2a_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
				void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
				MPI_Comm comm)
{
	struct a2a_side send = { sendbuf, NULL, NULL, fits(sendcount) ? (int)sendcount : 0,
				 sendtype, NULL };
	struct a2a_side recv = { recvbuf, NULL, NULL, fits(recvcount) ? (int)recvcount : 0,
				 recvtype, NULL };
	bool wide = !fits(recvcount) || (sendbuf != MPI_IN_PLACE && !fits(sendcount));
	enum route route;
	struct comm_info *ci;
	int rc;

	if ((rc = call_route(ALLTOALL_C, comm, &send, &recv, true, wide, &route, &ci)))
		return rc;
	if (!paced(route))
		return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
				       comm);
	return run_call(ci, route, &send, &recv, comm);
}

static int vector_c(enum kind k, const void *sendbuf, const MPI_Count *sc, const MPI_Aint *sd,
		    MPI_Datatype st, const MPI_Datatype *sts, void *recvbuf, const MPI_Count *rc_,
		    const MPI_Aint *rd, MPI_Datatype rt, const MPI_Datatype *rts, MPI_Comm comm,
		    enum route *route)
{
	int size = 0, *sci = NULL, *sdi = NULL, *rci = NULL, *rdi = NULL, rc;
	bool in_place = sendbuf == MPI_IN_PLACE, ok;
	struct comm_info *ci;

	PMPI_Comm_size(comm, &size);
	ok = narrow(size, in_place ? NULL : sc, sd, &sci, &sdi);
	ok = narrow(size, rc_, rd, &rci, &rdi) && ok;
	if (!sci || !sdi || !rci || !rdi) {
		free(sci), free(sdi), free(rci), free(rdi);
		return report_failure(comm, MPI_ERR_NO_MEM);
	}
	{
		struct a2a_side send = { sendbuf, sci, sdi, 0, st, sts };
		struct a2a_side recv = { recvbuf, rci, rdi, 0, rt, rts };

		rc = call_route(k, comm, &send, &recv, false, !ok, route, &ci);
		if (rc == MPI_SUCCESS && paced(*route))
			rc = run_call(ci, *route, &send, &recv, comm);
	}
	free(sci), free(sdi), free(rci), free(rdi);
	return rc;
}

EXPORT int ibnet_a2a_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
				 const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
				 const MPI_Count recvcounts[], const MPI_Aint rdispls[],
				 MPI_Datatype recvtype, MPI_Comm comm)
{
	enum route route = OFF;
	int rc = vector_c(ALLTOALLV_C, sendbuf, sendcounts, sdispls, sendtype, NULL, recvbuf,
			  recvcounts, rdispls, recvtype, NULL, comm, &route);

	if (rc != MPI_SUCCESS || paced(route))
		return rc;
	return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
				rdispls, recvtype, comm);
}

EXPORT int ibnet_a2a_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
				 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
				 void *recvbuf, const MPI_Count recvcounts[],
				 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
				 MPI_Comm comm)
{
	enum route route = OFF;
	int rc = vector_c(ALLTOALLW_C, sendbuf, sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes,
			  recvbuf, recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, comm, &route);

	if (rc != MPI_SUCCESS || paced(route))
		return rc;
	return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
				rdispls, recvtypes, comm);
}
#endif

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

void a2a_init(void)
{
	pthread_once(&once, init_once);
}
