/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_route.c - where a call goes, and why (enum route): the set-up
 * once per process, the checks every rank reaches alike, the ranks'
 * agreement, the sizes, the fan-in rule and the window the ranks agreed.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "ibnet_a2a_exchange.h"
#include "ibnet_a2a_layout.h"
#include "ibnet_a2a_netstat.h"
#include "ibnet_a2a_nodes.h"
#include "ibnet_a2a_route.h"
#include "ibnet_a2a_state.h"

/*
 * With alltoall_window=auto, the ranks agree the window their routes are
 * taken from (window_agree, one small allreduce) after the 1st, 2nd, 4th,
 * 8th and 16th paced call of each new call size: a size whose bytes
 * converging on a port are more than twice, or less than half, the last
 * agreed size's (what the port takes of it is not known yet), up to
 * IBNET_A2A_RELEARN_MOST times per communicator (a code that alternates sizes
 * does not agree on every call). Enough for the controller to grow from
 * 16 KiB to 16 MiB (5 calls at 4x, 10 at 2x) and for three calls more to show
 * the port takes a call whole (tests/programs/window_ctl.c). Otherwise every
 * IBNET_A2A_AGREE_EVERY-th paced call agrees. Each agreement is a collective
 * over the communicator: agreeing after each of the first 16 calls cost 32
 * ranks on the test cluster's 2 cores 5-15% of 4 KiB calls.
 */
#define IBNET_A2A_LEARN_CALLS 16
#define IBNET_A2A_RELEARN_MOST 8
#define IBNET_A2A_AGREE_EVERY 64

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The route of a verdict that is not to pace. */
enum route verdict_route(enum ibnet_a2a_verdict v)
{
	switch (v) {
	case IBNET_A2A_DIFFER_BUILD:
		return NO_BUILD;
	case IBNET_A2A_DIFFER_SETTINGS:
		return SETTINGS_DIFFER;
	case IBNET_A2A_NOT_AGREED:
	default:
		return NOT_AGREED;
	}
}

/* Checks every rank of a collective reaches alike (the standard requires
 * MPI_IN_PLACE on all ranks or none, and equal type signatures; the
 * agreement makes the process's own inputs alike). */
static enum route common_route(MPI_Comm comm, const void *sendbuf)
{
	enum ibnet_a2a_verdict verdict;
	int inter = 0, size = 0;

	a2a_init();
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
	(void)sendbuf;	/* MPI_IN_PLACE is paced too (ibnet_a2a_pack.c, run_paced) */
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
static enum route fanin_route(struct comm_info *ci, unsigned long pair_bytes,
			      bool by_node)
{
	unsigned long fanin, unit = pair_bytes;

	/*
	 * What one credit round trip moves at least: a block pair by pair; node
	 * to node, a lane's message, the blocks of every rank of the sending
	 * node (at least least_local of them). Under IBNET_A2A_PAIR_MIN the
	 * MPI's own runs whatever the fan-in (threshold 0 aside: "pace
	 * everything"): its small-message algorithms (Bruck) send log2(P)
	 * combined messages, and a round trip per tiny block would cost more
	 * than it saves.
	 */
	if (by_node && __builtin_mul_overflow(pair_bytes, (unsigned long)ci->least_local, &unit))
		unit = (unsigned long)-1;
	if (settings.threshold && unit < IBNET_A2A_PAIR_MIN)
		return BELOW;
	if (__builtin_mul_overflow(pair_bytes, ci->fanin_pairs, &fanin))
		fanin = (unsigned long)-1;
	if (fanin < settings.threshold)
		return BELOW;
	ci->call_fanin = fanin;	/* window_agree's: one call at a time on a communicator */
	/*
	 * alltoall_window=auto: a call whose converging bytes every rank's
	 * last three paced calls had in flight at once, losing nothing, would
	 * be granted whole anyway: pacing it would cost a round trip and hold
	 * nothing back (threshold 0 still paces everything).
	 */
	if (settings.threshold && settings.window == IBNET_A2A_WINDOW_AUTO &&
	    fanin <= ci->agreed_proven)
		return WITHIN_WINDOW;
	return by_node ? PACED_NODES : PACED;
}

/*
 * Whether a node of the communicator holds more ranks than pair by pair
 * can serve within the window: each receiver grants at least
 * IBNET_A2A_CHUNK_MIN, so L of them put L x 1 KiB in flight towards the port
 * (ibnet_a2a_exchange.c); node to node keeps it at the window whatever L.
 */
static bool pairs_exceed_window(const struct comm_info *ci)
{
	return (unsigned long)ci->most_local > ci->agreed_window / IBNET_A2A_CHUNK_MIN;
}

/*
 * Which exchange, by layout: node to node where a node holds at least
 * settings.aggregate ranks, or with "auto" (the default) where pair by pair
 * would exceed the window; every rank sees the same layout and settings.
 * And only while the node's shared segments stay within IBNET_A2A_STAGE_MAX
 * (each holds at most the most ranks on a node x the heaviest rank's bytes).
 */
static bool by_node(const struct comm_info *ci, unsigned long heaviest)
{
	unsigned long bound;

	if (settings.aggregate == IBNET_A2A_AGGREGATE_AUTO) {
		if (!pairs_exceed_window(ci))
			return false;
	} else if (!settings.aggregate || (unsigned long)ci->most_local < settings.aggregate) {
		return false;
	}
	return !__builtin_mul_overflow(heaviest, (unsigned long)ci->most_local, &bound) &&
	       bound <= IBNET_A2A_STAGE_MAX;
}

/*
 * Whether a call the scheme would pace is routed by measurement
 * (ibnet_a2a_choice.h): with the window sizing itself and a threshold. A
 * fixed window, alltoall_threshold=0 ("pace everything") and the job's
 * SLURM_IBNET_ALLTOALL_MEASURE=0 pin the paced route, as asked.
 */
static bool by_measurement(void)
{
	return measure_routes && settings.threshold &&
	       settings.window == IBNET_A2A_WINDOW_AUTO;
}

/*
 * A call the scheme would pace (r): its class's plan says whether it goes
 * paced or to the MPI's own, and what is measured. Every rank holds the same
 * class table, so every rank takes the same route.
 */
static enum route choice_route(struct comm_info *ci, unsigned long block_bytes, enum route r)
{
	struct choice_class *c;

	if ((r != PACED && r != PACED_NODES) || !by_measurement())
		return r;
	ci->call_class = choice_class_of(block_bytes);
	c = &ci->choice[ci->call_class];
	ci->call_before = *c;
	ci->call_plan = choice_next(c);
	ci->call_planned = true;
	if (ci->call_plan.way == CHOICE_PACED)
		return r;
	return c->chosen ? OWN_MEASURED : OWN_ON_TRIAL;
}

/* The route of a call the scheme could take, by its largest block and the
 * most bytes one rank sends or receives (both the same on every rank). */
static enum route size_route(struct comm_info *ci, unsigned long block_bytes,
		      unsigned long heaviest)
{
	if (block_bytes > block_limit)
		return BIG_BLOCK;
	return choice_route(ci, block_bytes, fanin_route(ci, block_bytes, by_node(ci, heaviest)));
}

/*
 * A planned call that became NO_MEMORY (node_route: a node could not make
 * its segments, after the plan was taken): its class is given back as it
 * was, on every rank alike, so that the class measures only calls that ran
 * as planned.
 */
static void unplan(struct comm_info *ci)
{
	if (!ci->call_planned)
		return;
	ci->choice[ci->call_class] = ci->call_before;
	ci->call_planned = false;
}

/*
 * A PACED_NODES call: its node segments made or grown (collective, so on
 * every rank alike). *route becomes PACED (pair by pair) on every rank when
 * a node's /dev/shm could not hold them, NO_MEMORY when a node is out of
 * memory.
 */
static int node_route(struct comm_info *ci, unsigned long heaviest, enum route *route)
{
	enum nodes_ready ready = NODES_READY;
	int rc = nodes_ready(ci, heaviest * (unsigned long)ci->most_local, &ready);

	if (rc == MPI_SUCCESS && ready == NODES_SHORT) {
		*route = PACED;
	} else if (rc == MPI_SUCCESS && ready == NODES_FAILED) {
		*route = NO_MEMORY;
		unplan(ci);
	}
	return rc;
}

/*
 * Both calls' route before their sizes are known: common_route's checks,
 * then the communicator's layout (collective: every rank of comm reaches it
 * alike). *ci is set where the route is still PACED. A failed set-up is
 * reported and its code returned.
 */
static int comm_route(MPI_Comm comm, const void *sendbuf, enum route *route, struct comm_info **ci)
{
	int rc;

	*ci = NULL;
	*route = common_route(comm, sendbuf);
	if (*route != PACED)
		return MPI_SUCCESS;
	if ((rc = comm_info(comm, ci)) != MPI_SUCCESS)
		return rc;
	if (*ci)
		(*ci)->call_planned = false;
	if (!*ci)
		*route = NO_MEMORY;
	else if ((*ci)->nnodes < 2)
		*route = ONE_NODE;
	return MPI_SUCCESS;
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
/* The world model was initialised at the first call (init_once). */
static bool world_model;

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
 * MPI_Finalize deletes MPI_COMM_SELF's attributes first (MPI 4.0, 11.2.4),
 * while every rank is still there: the report is said then
 * (a2a_at_finalize), and the check's type and operation go, so the MPI
 * finds nothing of ours left (MPICH's datatype engine warns of every handle
 * still held).
 */
static int at_finalize(MPI_Comm comm, int kv, void *attr, void *extra)
{
	(void)comm, (void)kv, (void)attr, (void)extra;
	a2a_at_finalize();
	if (sizes_check_type != MPI_DATATYPE_NULL)
		PMPI_Type_free(&sizes_check_type);
	if (sizes_check_op != MPI_OP_NULL)
		PMPI_Op_free(&sizes_check_op);
	return MPI_SUCCESS;
}

/*
 * The process's rank in the job, for the report's lines: MPI_COMM_WORLD's
 * where the world model is initialised; a program of MPI-4 sessions alone
 * has no MPI_COMM_WORLD (using it is an error that ends the job), so the
 * launcher's rank there (Slurm's, PMI's, Open MPI's), or -1.
 */
static int job_rank(bool world)
{
	static const char *const vars[] = { "SLURM_PROCID", "PMI_RANK", "PMIX_RANK",
					    "OMPI_COMM_WORLD_RANK" };
	unsigned i;
	int rank = -1;

	if (world) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		return rank;
	}
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);
		char *end;
		long r;

		if (!v || !*v)
			continue;
		r = strtol(v, &end, 10);
		if (!*end && r >= 0 && r <= 0x7fffffff)
			return (int)r;
	}
	return rank;
}

/*
 * Once per process, at its first call. The world model (MPI_Init) may never
 * have been initialised: a program of MPI-4 sessions has neither
 * MPI_COMM_WORLD nor MPI_COMM_SELF, and no MPI_Finalize to free the check's
 * type and operation at: it makes them for each check instead
 * (sizes_check_allreduce).
 */
static void init_once(void)
{
	int finalize_key = MPI_KEYVAL_INVALID, world = 0, finalized = 0;

	a2a_read_settings();
	atexit(a2a_at_exit);
	PMPI_Initialized(&world);
	PMPI_Finalized(&finalized);
	world = world && !finalized;
	world_model = world;
	if (world) {
		PMPI_Type_contiguous(4, MPI_UNSIGNED_LONG, &sizes_check_type);
		PMPI_Type_commit(&sizes_check_type);
		PMPI_Op_create(sizes_check_combine, 1, &sizes_check_op);
	}
	if (world && PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize,
					     &finalize_key, NULL) == MPI_SUCCESS)
		PMPI_Comm_set_attr(MPI_COMM_SELF, finalize_key, NULL);
	a2a_layout_init();
	world_rank = job_rank(world);
}

/* The bytes of block i of one side (a count times its type's size). */
static unsigned long block_bytes(const struct a2a_side *a, int i)
{
	int c = a->counts ? a->counts[i] : a->count, tsize = 0;

	PMPI_Type_size(a->types ? a->types[i] : a->type, &tsize);
	return (unsigned long)(c < 0 ? 0 : c) * (unsigned long)tsize;
}

/*
 * The check's one allreduce: with the process's type and operation, or,
 * without the world model (MPI-4 sessions), with ones made for it and freed
 * after, so that nothing of ours is left when the last session ends (MPICH's
 * datatype engine warns of every handle still held).
 */
static int sizes_check_allreduce(struct sizes_check *c, MPI_Comm comm)
{
	MPI_Datatype type;
	MPI_Op op;
	int rc;

	if (world_model)
		return PMPI_Allreduce(MPI_IN_PLACE, c, 1, sizes_check_type, sizes_check_op, comm);
	if ((rc = PMPI_Type_contiguous(4, MPI_UNSIGNED_LONG, &type)) != MPI_SUCCESS)
		return rc;
	if ((rc = PMPI_Type_commit(&type)) == MPI_SUCCESS &&
	    (rc = PMPI_Op_create(sizes_check_combine, 1, &op)) == MPI_SUCCESS) {
		rc = PMPI_Allreduce(MPI_IN_PLACE, c, 1, type, op, comm);
		PMPI_Op_free(&op);
	}
	PMPI_Type_free(&type);
	return rc;
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
	rc = sizes_check_allreduce(&c, ci->priv);
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
int call_route(enum kind k, MPI_Comm comm, const struct a2a_side *send,
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
	/* The call's start, where its class times it (choice_done reads it),
	 * or a watch of the calls within the window does (window_watch). */
	if (*ci && *route == WITHIN_WINDOW)
		(*ci)->call_started = PMPI_Wtime();
	else if (*ci && (*ci)->call_planned) {
		if ((*ci)->call_plan.measure)
			(*ci)->call_retrans = node_retransmits();
		if ((*ci)->call_plan.measure || (*ci)->call_plan.watch)
			(*ci)->call_started = PMPI_Wtime();
	}
	return MPI_SUCCESS;
}

/*
 * MPI_Ialltoall and MPI_Ialltoallv: always the MPI's own (enum route,
 * NONBLOCKING), counted. A call does not run init_once by way of comm_route,
 * so it runs it here: a program with only non-blocking calls still gets its
 * report and its settings.
 */
enum route nonblocking_route(void)
{
	a2a_init();
	return enabled ? NONBLOCKING : OFF;
}

/*
 * The window the routes of a communicator's next calls are taken from
 * (struct comm_info, agreed_window). Each rank's controller moves its own
 * window after every paced call (ibnet_a2a_exchange.c); a route must be the
 * same on every rank, so after the first IBNET_A2A_LEARN_CALLS paced calls
 * of each new size (above), and every IBNET_A2A_AGREE_EVERY-th after them,
 * the ranks agree on the least of their windows, and of what each has seen
 * its port take unpaced, in one allreduce, and keep the last agreement.
 * The MIN is also what the port of the most careful node holds.
 */
/*
 * The allreduce of window_agree and window_watch (collective): the least
 * window and proven level, and (window_watch's; "none" from window_agree)
 * the most of two times in nanoseconds, which ride in the same MPI_MIN as
 * UINT64_MAX less each: one allreduce, not two. 64 bits whatever the
 * platform's long, and a time clamped to a million seconds, so the
 * conversion is always defined.
 */
static uint64_t as_ns(const double *t)
{
	return t && *t > 0 ? (uint64_t)((*t < 1e6 ? *t : 1e6) * 1e9) : 0;
}

static int agree_now(struct comm_info *ci, double *most_a, double *most_b)
{
	struct window_ctl ctl;
	uint64_t w[4];
	bool learned = window_state(&ctl);
	int rc;

	/* Node to node, only the lanes receive: the other ranks' controllers
	 * have nothing to say, and do not pull the least down. */
	w[0] = learned ? ctl.window : UINT64_MAX;
	w[1] = learned ? window_ctl_unpaced(&ctl) : UINT64_MAX;
	w[2] = UINT64_MAX - as_ns(most_a);
	w[3] = UINT64_MAX - as_ns(most_b);
	rc = PMPI_Allreduce(MPI_IN_PLACE, w, 4, MPI_UINT64_T, MPI_MIN, ci->priv);
	if (rc != MPI_SUCCESS)
		return rc;
	if (w[0] != UINT64_MAX)
		ci->agreed_window = (unsigned long)w[0];
	if (w[1] != UINT64_MAX)
		ci->agreed_proven = (unsigned long)w[1];
	if (most_a)
		*most_a = (double)(UINT64_MAX - w[2]) / 1e9;
	if (most_b)
		*most_b = (double)(UINT64_MAX - w[3]) / 1e9;
	return MPI_SUCCESS;
}

int window_agree(struct comm_info *ci)
{
	if (settings.window != IBNET_A2A_WINDOW_AUTO)
		return MPI_SUCCESS;
	/* Every rank counts the same paced calls of the same sizes: the routes
	 * and the converging bytes are the same on every rank. */
	ci->paced_calls++;
	if (ci->call_fanin / 2 > ci->agreed_fanin || ci->call_fanin < ci->agreed_fanin / 2) {
		if (ci->relearned < IBNET_A2A_RELEARN_MOST) {
			ci->relearned++;
			ci->learn_age = 0;
		}
		ci->agreed_fanin = ci->call_fanin;
	}
	if (ci->learn_age <= IBNET_A2A_LEARN_CALLS)
		ci->learn_age++;	/* stops one past: learnt */
	/* 1, 2, 4, 8, 16 calls into the size, then every IBNET_A2A_AGREE_EVERY-th. */
	if (!(ci->learn_age <= IBNET_A2A_LEARN_CALLS && !(ci->learn_age & (ci->learn_age - 1))) &&
	    ci->paced_calls % IBNET_A2A_AGREE_EVERY)
		return MPI_SUCCESS;
	return agree_now(ci, NULL, NULL);
}

/* The node's retransmissions since a reading (0 where unreadable). */
static unsigned long since(unsigned long then)
{
	unsigned long now = node_retransmits();

	return now > then ? now - then : 0;
}

/* A watch begins: no time, no bytes, the node's retransmissions from now. */
static void tally_start(struct watch_tally *t)
{
	t->seconds = 0;
	t->bytes = 0;
	t->retrans = node_retransmits();
}

/* A call of the watch ended: its time and its bytes converging. */
static void tally_add(struct watch_tally *t, double took, unsigned long bytes)
{
	t->seconds += took;
	t->bytes += bytes;
}

/*
 * The watch's end, this rank's figures: its time a call over CALLS calls,
 * and (into S) the node's retransmissions since the watch began against
 * the bytes the calls made converge, for window_sample_lossy.
 */
static double tally_end(const struct watch_tally *t, int calls, struct window_sample *s)
{
	s->lost = since(t->retrans);
	s->received = t->bytes;
	return calls > 0 ? t->seconds / calls : 0;
}

/*
 * After a call that went to the MPI's own "within the window" (every rank
 * alike): every so many such calls of the communicator (a look), whether
 * the node's retransmissions since the first of them show loss, by the same
 * rule as a paced call's over the bytes they made converge. If so the
 * controller hears it (no call goes unpaced any more: window_ctl_unpaced),
 * and the ranks agree then, so the next calls are paced and seen. Two reads
 * of a /proc file and one small allreduce per look. The first two looks
 * come CHOICE_WATCH_CALLS calls apart (the first one's cost is agreed at
 * the second); the next ones as far apart as keeps the look's allreduce,
 * timed, within CHOICE_WATCH_SHARE of the calls' time
 * (choice_watch_spacing, the watch of a chosen MPI's own's rule): the
 * calls within the window are the small ones, and one allreduce every 16
 * cost them as much as it did the watch of the MPI's own (4-12% at 16 x 1,
 * 4 KiB, in the model). Both times are agreed in the look's allreduce (the
 * slowest rank's), so every rank spaces its looks alike; loss on a switch
 * that starts to lose is seen within CHOICE_WATCH_MOST such calls.
 */
int window_watch(struct comm_info *ci)
{
	double took = PMPI_Wtime() - ci->call_started;	/* before the /proc read */
	struct window_sample s = { 0 };
	double call, agree, looking;
	int rc;

	if (!ci->watched++)
		tally_start(&ci->window_tally);
	tally_add(&ci->window_tally, took, ci->call_fanin);
	if (ci->watched < (ci->watch_every ? ci->watch_every : CHOICE_WATCH_CALLS))
		return MPI_SUCCESS;
	call = tally_end(&ci->window_tally, ci->watched, &s);
	agree = ci->window_tally.agree;	/* the last look's, agreed now */
	ci->watched = 0;
	ci->watch_looks++;
	if (window_sample_lossy(&s))
		window_unpaced_loss();
	looking = PMPI_Wtime();
	if ((rc = agree_now(ci, &call, &agree)) != MPI_SUCCESS)
		return rc;
	ci->window_tally.agree = PMPI_Wtime() - looking;
	ci->watch_every = choice_watch_spacing(agree, call);
	report_window_watch(ci->watch_looks, ci->watch_every, agree, call);
	return MPI_SUCCESS;
}

/*
 * The link's bound for a call (its bytes converging on the busiest port at
 * the node's link rate), seconds; 0 where the rate is unknown.
 */
static double link_bound(const struct comm_info *ci)
{
	return link_rate > 0 ? (double)ci->call_fanin / link_rate : 0;
}

/* A class's route was chosen: said for the report; the watch starts afresh. */
static void chosen(struct comm_info *ci, int cls)
{
	report_choice(&ci->choice[cls], cls);
	tally_start(&ci->choice_watch[cls]);
}

/*
 * After a call whose route its class planned: a measured call's figures
 * agreed (the slowest rank's time, the most retransmissions a node saw, the
 * largest link bound) in one small allreduce; a watched call's time kept,
 * and every CHOICE_WATCH_CALLS-th the watch's figures agreed so.
 */
int choice_done(struct comm_info *ci)
{
	struct choice_figures f = { 0, 0, false, 0, 0, 0 };
	struct window_sample s = { 0 };
	struct choice_class *c;
	struct choice_plan p;
	double v[4] = { 0 }, took, agreeing;
	int cls, rc;
	bool was_chosen;

	if (!ci || !ci->call_planned)
		return MPI_SUCCESS;
	ci->call_planned = false;
	p = ci->call_plan;
	cls = ci->call_class;
	c = &ci->choice[cls];
	if (!p.measure && !p.watch)
		return MPI_SUCCESS;
	took = PMPI_Wtime() - ci->call_started;
	if (p.watch) {
		tally_add(&ci->choice_watch[cls], took, ci->call_fanin);
		if (!p.watch_end)
			return MPI_SUCCESS;
		v[0] = tally_end(&ci->choice_watch[cls], choice_watch_calls(c), &s);
		v[1] = (double)s.lost;
		v[3] = ci->choice_watch[cls].agree;
	} else {
		v[0] = took;
		v[1] = (double)since(ci->call_retrans);
		s.received = ci->call_fanin;
	}
	v[2] = link_bound(ci);
	agreeing = PMPI_Wtime();
	if ((rc = PMPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MAX, ci->priv)) != MPI_SUCCESS)
		return rc;
	/* What this agreement cost, for the next watch's spacing (agreed then:
	 * every rank must divide by the same count). */
	if (p.watch)
		ci->choice_watch[cls].agree = PMPI_Wtime() - agreeing;
	f.seconds = v[0];
	f.agree = v[3];
	f.lost = s.lost = v[1] > 0 ? (unsigned long)v[1] : 0;
	f.lossy = window_sample_lossy(&s) && f.lost >= CHOICE_LOSS_LEAST;
	f.segments = s.received / WINDOW_SEGMENT;
	f.bound = v[2];
	was_chosen = c->chosen;
	if (p.watch) {
		choice_watched(c, &f);
		/* Still chosen: the next watch from now. Looked at again: the
		 * report keeps the last verdict until the trials give a new one. */
		if (c->chosen)
			chosen(ci, cls);
	} else {
		choice_measured(c, p.way, &f);
		if (c->chosen && !was_chosen)
			chosen(ci, cls);
	}
	return MPI_SUCCESS;
}

void a2a_init(void)
{
	pthread_once(&once, init_once);
}
