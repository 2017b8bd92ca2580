/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_nodes.c - the paced exchange node to node (route PACED_NODES),
 * for nodes that hold several ranks:
 *   - A node's ranks copy the blocks they send into one shared segment of the
 *     node (shared memory with no name, made by the node's first rank), laid out by
 *     phase, lane, receiving rank, sending rank: what node i sends to node j
 *     on lane s is one contiguous message.
 *   - K lanes per node carry them (K: the fewest ranks any node has, at most
 *     IBNET_A2A_LANES_MAX). Lane s of node i sends its message to lane s of
 *     node i+p in phase p, paced exactly as ranks are paced pair by pair
 *     (paced_exchange, one lane a "rank"), the node's window shared by its K
 *     lanes. So a node pair carries K flows per phase instead of L_i x L_j,
 *     and a credit moves a chunk of the aggregated message, not of one
 *     block: the round trips a receiver waits for no longer multiply with
 *     the number of senders on a node (docs/benchmarks.md, "Many ranks per
 *     node: the cost model").
 *   - A lane receives into the node's receive segment, laid out the same
 *     way; each rank then copies its own blocks out. Blocks between ranks of
 *     one node never reach the wire: they go through the send segment.
 * Three node barriers per call (two for MPI_Alltoall, whose sizes every
 * rank knows), each also a guarantee about the segments:
 *   A  every rank has written its sizes, and every rank of the node has
 *      finished the last call (so both segments are free again);
 *   B  the send segment is complete;
 *   C  the lanes have received (every rank read what it needs of the sizes
 *      before it, so the next call may rewrite them).
 * Memory: the sizes, 2 x P MPI_Aint per rank; each segment holds at most
 * most ranks on a node x the heaviest rank's bytes (node_route's bound), and
 * calls whose bound is over IBNET_A2A_STAGE_MAX go pair by pair instead.
 *
 * Cost model (docs/bench/many-ranks.md works it through), N nodes of L
 * ranks, B bytes per pair, window W, one credit, K lanes:
 *                        pair by pair                 node to node
 *   flows per node pair  L x L                        K per phase
 *   in flight per port   max(W, L x 1 KiB)            W
 *   round trips          >= (N-1) L^2 B / W              (N-1) ceil(L ceil(L/K) B K / W)
 * The second is the bytes converging on a port over the window, the floor
 * of any scheme that keeps W in flight; pair by pair reaches it only for
 * blocks of a chunk or more (smaller ones go several per round trip, but
 * a sender answers only two phases at a time). Node to node adds two
 * copies of every byte and two or three node barriers per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ibnet_a2a_exchange.h"
#include "ibnet_a2a_nodes.h"
#include "ibnet_a2a_room.h"
#include "ibnet_a2a_state.h"

/* A communicator's node state for this scheme (in struct comm_info). */
struct node_stage {
	MPI_Comm node;		/* this node's ranks of priv, in local order */
	int lanes;		/* K, the same on every node */
	MPI_Aint *sizes;	/* shared: per local rank, 2P: bytes sent to, received from each rank */
	size_t sizes_bytes;
	char *data;		/* shared: the send segment, then the receive segment */
	size_t half;		/* each segment's size */
	MPI_Aint uniform;	/* this call's one block size (MPI_Alltoall), or -1 */
};

/*
 * How a node's segment came out: made and its pages reserved; not opened
 * by a rank (the leader's descriptor, read through /proc, was refused it:
 * a process that is not dumpable, another user namespace), for good; short
 * of room (ibnet_a2a_room.c, segment_room_allows: the pages must be reserved before they
 * are used, since a copy into a page that cannot be had is a SIGBUS, and past
 * the job's memory limit reserving them brings the OOM killer); or failed
 * otherwise. Ordered: a node's outcome is the least of its ranks'.
 */
enum segment_outcome { SEGMENT_FAILED, SEGMENT_UNSHARED, SEGMENT_SHORT, SEGMENT_MADE };

/*
 * The leader makes the segment: unnamed (memfd), so that nothing of it
 * outlives the processes that have it open or mapped, however the job ends
 * (scancel, its time limit, a rank's crash: a named one was left in
 * /dev/shm when the job ended between its making and its unlinking), and
 * its pages reserved. The file descriptor, or -1 with *outcome saying why.
 */
static int segment_make(size_t bytes, enum segment_outcome *outcome)
{
	char need[32], line[320];
	int fd, err;

	*outcome = SEGMENT_FAILED;
	if (!segment_room_allows(bytes)) {
		*outcome = SEGMENT_SHORT;
		return -1;
	}
	if ((fd = memfd_create("ibnet-a2a", MFD_CLOEXEC)) < 0)
		return -1;
	err = ftruncate(fd, (off_t)bytes) != 0 ? errno : posix_fallocate(fd, 0, (off_t)bytes);
	if (err == 0) {
		*outcome = SEGMENT_MADE;
		return fd;
	}
	if (err == ENOSPC) {
		ibnet_a2a_bytes_text(bytes, need, sizeof(need));
		snprintf(line, sizeof(line), "node to node could not reserve a shared segment of "
			 "%s on this node (%s): these calls go pair by pair", need, strerror(err));
		say(line);
		*outcome = SEGMENT_SHORT;
	}
	close(fd);
	return -1;
}

/*
 * A rank's copy of its leader's descriptor: the leader's /proc entry, which
 * the kernel lets a process of the same user open (the access of a
 * debugger's reading, not of its attaching, so Yama's ptrace_scope does not
 * refuse it); no one else can. -1 with a sentence where it cannot.
 */
static int segment_open(const char *path)
{
	char line[400];
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(line, sizeof(line), "node to node could not open its node's shared "
			 "segment, made by the node's first rank (%s: %s): this communicator's "
			 "calls go pair by pair", path, strerror(errno));
		say(line);
	}
	return fd;
}

/*
 * A shared segment of bytes for the ranks of node (collective over it):
 * made by its first rank, mapped by every rank; the leader's descriptor
 * stays open until every rank has its own, then each rank keeps only its
 * mapping. NULL on every rank of node if any could not map it (or could not
 * take part: can false), with *outcome the same on every rank of node.
 */
static void *node_segment(MPI_Comm node, size_t bytes, bool can, enum segment_outcome *outcome)
{
	/* The leader's descriptor's path, or "" and the leader's outcome after it. */
	char msg[64] = "";
	void *p = MAP_FAILED;
	int lrank = 0, fd = -1, mine, rc;
	enum segment_outcome made = SEGMENT_FAILED, opened = SEGMENT_FAILED;

	PMPI_Comm_rank(node, &lrank);
	if (lrank == 0 && can)
		fd = segment_make(bytes, &made);
	if (lrank == 0 && fd >= 0)
		snprintf(msg, sizeof(msg), "/proc/%ld/fd/%d", (long)getpid(), fd);
	if (lrank == 0 && fd < 0)
		msg[1] = (char)made;
	rc = PMPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, node);
	if (rc == MPI_SUCCESS && msg[0] && can) {
		if (lrank != 0 && (fd = segment_open(msg)) < 0)
			opened = SEGMENT_UNSHARED;
		if (fd >= 0)
			p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	test_die_in_segment(world_rank);
	if (rc == MPI_SUCCESS && p != MAP_FAILED)
		mine = SEGMENT_MADE;
	else if (rc == MPI_SUCCESS && !msg[0] && msg[1] == (char)SEGMENT_SHORT)
		mine = SEGMENT_SHORT;
	else
		mine = opened;
	rc = PMPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MIN, node);
	if (fd >= 0)
		close(fd);	/* every rank has its own, or has given up */
	*outcome = rc == MPI_SUCCESS ? (enum segment_outcome)mine : SEGMENT_FAILED;
	if (*outcome != SEGMENT_MADE) {
		if (p != MAP_FAILED)
			munmap(p, bytes);
		return NULL;
	}
	return p;
}

void nodes_free(struct node_stage *st)
{
	if (!st)
		return;
	if (st->sizes)
		munmap(st->sizes, st->sizes_bytes);
	if (st->data)
		munmap(st->data, 2 * st->half);
	if (st->node != MPI_COMM_NULL)
		PMPI_Comm_free(&st->node);
	free(st);
}

static int lanes_of(const struct comm_info *ci)
{
	int k = IBNET_A2A_LANES_MAX;

#ifdef IBNET_A2A_TESTING
	if (test_lanes > 0)
		k = test_lanes;
#endif
	return ci->least_local < k ? ci->least_local : k;
}

/*
 * Make the node state, or grow its segments to hold bound bytes each, or
 * shrink them: collective over priv, on a call every rank routes
 * PACED_NODES alike. What decides is the same on every rank (the ci->stage_*
 * fields change only here, after the allreduce, and bound is the same
 * everywhere), so every rank takes the same branch: a rank that skipped the
 * allreduce while another waited in it would hang both. *ready, on every
 * rank alike:
 *   NODES_READY    the segments hold the call;
 *   NODES_SHORT    a node had no room for them: this call, and later ones
 *                  as large, go pair by pair (the segments the communicator
 *                  had stay as they were); a rank that could not open its
 *                  node's segment: every later call;
 *   NODES_FAILED   a node could not for want of memory: this communicator
 *                  never goes node to node again (its calls are handed
 *                  over, counted as out of memory).
 * A failed MPI call's code otherwise.
 */
int nodes_ready(struct comm_info *ci, unsigned long bound, enum nodes_ready *ready)
{
	struct node_stage *st = ci->stage;
	enum segment_outcome outcome = SEGMENT_MADE;
	unsigned long cap;
	char *data = NULL;
	size_t half = 0;
	/* The segments hold the call: ready, unless they are due to shrink. */
	bool shrinking = ci->stage_ready > 0 && ci->stage_cap >= bound;
	int ok, rc;

	if (ci->stage_ready < 0) {
		*ready = NODES_FAILED;
		return MPI_SUCCESS;
	}
	/* Held at a quarter or less of its size for STAGE_SHRINK_CALLS calls
	 * in a row: the segments go down to twice the calls' size. */
	if (shrinking) {
		ci->stage_small = bound * 4 <= ci->stage_cap && !ci->stage_unshared ?
				  ci->stage_small + 1 : 0;
		if (ci->stage_small < IBNET_A2A_STAGE_SHRINK_CALLS) {
			*ready = NODES_READY;
			return MPI_SUCCESS;
		}
	}
	if (ci->stage_short_at && bound >= ci->stage_short_at) {
		*ready = NODES_SHORT;
		return MPI_SUCCESS;
	}
	/* Growing: twice the last size, so a growing program remaps a few times
	 * only. Shrinking: twice this call's. */
	if (shrinking)
		cap = bound * 2;
	else
		cap = ci->stage_cap * 2 > bound ? ci->stage_cap * 2 : bound;
	if (cap > IBNET_A2A_STAGE_MAX && bound <= IBNET_A2A_STAGE_MAX)
		cap = IBNET_A2A_STAGE_MAX;
	if (!st) {
		int local = ci->node_start[ci->mynode + 1] - ci->node_start[ci->mynode];
		size_t bytes = (size_t)local * 2 * (size_t)ci->size * sizeof(MPI_Aint);
		MPI_Comm node;
		void *sizes;

		st = test_no_segment(ci->rank) ? NULL : calloc(1, sizeof(*st));
		rc = PMPI_Comm_split(ci->priv, ci->mynode, ci->local_index[ci->rank], &node);
		if (rc != MPI_SUCCESS) {
			free(st);
			return rc;
		}
		sizes = node_segment(node, bytes, st != NULL, &outcome);
		if (!sizes) {
			PMPI_Comm_free(&node);
			free(st);
			st = NULL;
		} else {
			st->node = node;
			st->sizes = sizes;
			st->sizes_bytes = bytes;
			st->lanes = lanes_of(ci);
			ci->stage = st;
		}
	}
	if (st) {
		long page = sysconf(_SC_PAGESIZE);

		/* Whole pages, at least one: a call of empty blocks maps something.
		 * The new segments are made before the old ones go, so that a node
		 * short of room keeps what it had. */
		half = ((size_t)cap + (size_t)page) / (size_t)page * (size_t)page;
		data = node_segment(st->node, 2 * half, true, &outcome);
	}
	ok = (int)outcome;	/* the sizes' segment's, where it failed; else the data's */
	rc = PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, ci->priv);
	if (rc != MPI_SUCCESS) {
		if (data)
			munmap(data, 2 * half);
		return rc;
	}
	ci->stage_small = 0;
	if (ok == SEGMENT_FAILED) {
		if (data)
			munmap(data, 2 * half);
		nodes_free(ci->stage);	/* collective over the node: all its ranks are here */
		ci->stage = NULL;
		ci->stage_ready = -1;
		*ready = NODES_FAILED;
		return MPI_SUCCESS;
	}
	if (ok == SEGMENT_SHORT || ok == SEGMENT_UNSHARED) {
		if (data)
			munmap(data, 2 * half);	/* another node's was short */
		/* A rank that could not open a segment never will: every later
		 * call pair by pair, and no shrink tried again. */
		if (ok == SEGMENT_UNSHARED)
			ci->stage_unshared = true;
		if (shrinking) {	/* what it had still holds the call */
			*ready = NODES_READY;
			return MPI_SUCCESS;
		}
		ci->stage_short_at = ok == SEGMENT_UNSHARED ? 1 : bound;
		*ready = NODES_SHORT;
		return MPI_SUCCESS;
	}
	if (st->data)
		munmap(st->data, 2 * st->half);
#ifdef IBNET_A2A_TESTING
	test_segments_made++;
	test_segments_shrunk += shrinking;
#endif
	st->data = data;
	st->half = half;
	ci->stage_ready = 1;
	ci->stage_cap = cap;
	*ready = NODES_READY;
	return MPI_SUCCESS;
}

/* A barrier of the node's ranks, which also orders their shared memory. */
static int node_barrier(const struct node_stage *st)
{
	int rc;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	rc = PMPI_Barrier(st->node);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return rc;
}

/* Local rank m's bytes for rank d (sent), or from rank d (received). */
static MPI_Aint sent_by(const struct node_stage *st, int size, int m, int d)
{
	if (st->uniform >= 0)
		return st->uniform;
	return st->sizes[(size_t)m * 2 * (size_t)size + (size_t)d];
}

static MPI_Aint received_by(const struct node_stage *st, int size, int m, int d)
{
	if (st->uniform >= 0)
		return st->uniform;
	return st->sizes[(size_t)m * 2 * (size_t)size + (size_t)size + (size_t)d];
}

/*
 * The send segment's layout (phase 0: this node's own ranks, one group; then
 * phase p, lane s, receiving rank, sending rank). at[d]: where this rank's
 * block for d goes; local_from[q]: where the block from q of this node for
 * this rank is; the lane's message of each phase, by its partner.
 */
static MPI_Aint send_layout(const struct comm_info *ci, const struct node_stage *st, int me,
			    MPI_Aint *at, MPI_Aint *local_from, MPI_Aint *lane_off,
			    MPI_Aint *lane_len)
{
	int n = ci->nnodes, i = ci->mynode, first = ci->node_start[i];
	int local = ci->node_start[i + 1] - first, k = st->lanes, p, s, l, m;
	MPI_Aint pos = 0;

	for (p = 0; p < n; p++) {
		int j = (i + p) % n, jfirst = ci->node_start[j];
		int jlocal = ci->node_start[j + 1] - jfirst, step = p ? k : 1;

		for (s = 0; s < step; s++) {
			MPI_Aint start = pos;

			for (l = s; l < jlocal; l += step) {
				int d = ci->by_node[jfirst + l];

				for (m = 0; m < local; m++) {
					if (m == me)
						at[d] = pos;
					if (d == ci->rank)
						local_from[ci->by_node[first + m]] = pos;
					pos += sent_by(st, ci->size, m, d);
				}
			}
			if (p && s == me) {
				lane_off[ci->by_node[jfirst + s]] = start;
				lane_len[ci->by_node[jfirst + s]] = pos - start;
			}
		}
	}
	return pos;
}

/*
 * The receive segment's layout (phase p from node i-p, lane s, receiving
 * rank of this node, sending rank): the order the sending lane wrote.
 * from[q]: where the block from q (another node's) for this rank lands.
 */
static MPI_Aint receive_layout(const struct comm_info *ci, const struct node_stage *st, int me,
			       MPI_Aint *from, MPI_Aint *lane_off, MPI_Aint *lane_len)
{
	int n = ci->nnodes, i = ci->mynode;
	int local = ci->node_start[i + 1] - ci->node_start[i], k = st->lanes, p, s, l, t;
	MPI_Aint pos = 0;

	for (p = 1; p < n; p++) {
		int from_node = (i - p + n) % n, kfirst = ci->node_start[from_node];
		int klocal = ci->node_start[from_node + 1] - kfirst;

		for (s = 0; s < k; s++) {
			MPI_Aint start = pos;

			for (l = s; l < local; l += k) {
				for (t = 0; t < klocal; t++) {
					int q = ci->by_node[kfirst + t];

					if (l == me)
						from[q] = pos;
					pos += received_by(st, ci->size, l, q);
				}
			}
			if (s == me) {
				lane_off[ci->by_node[kfirst + s]] = start;
				lane_len[ci->by_node[kfirst + s]] = pos - start;
			}
		}
	}
	return pos;
}

/*
 * Move slen[r] bytes from sbuf+soff[r] to every rank r, and receive rlen[r]
 * bytes from r at rbuf+roff[r] (as paced_exchange), node to node. The
 * segments hold the call (nodes_ready).
 */
int nodes_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   MPI_Aint uniform)
{
	struct node_stage *st = ci->stage;
	size_t size = (size_t)ci->size, row = 2 * size;
	int me = ci->local_index[ci->rank], q, rc, lane_rc = MPI_SUCCESS;
	MPI_Aint *at = malloc(sizeof(MPI_Aint) * size), *from = malloc(sizeof(MPI_Aint) * size);
	MPI_Aint *lane = calloc(4 * size, sizeof(MPI_Aint));
	MPI_Aint *lane_soff = lane, *lane_slen = lane + size;
	MPI_Aint *lane_roff = lane + 2 * size, *lane_rlen = lane + 3 * size;
	char *sseg = st->data, *rseg = st->data + st->half;

	if (!at || !from || !lane)
		out_of_memory(ci, "its node-to-node schedule");
	/*
	 * A: the sizes, where they differ by rank. MPI_Alltoall's are one size
	 * every rank knows, and A's other guarantee holds without it: a rank
	 * writes the send segment only after C of the last call, when every
	 * rank has read its blocks there, and the lanes write the receive
	 * segment only after B, when every rank has read the last call's.
	 */
	st->uniform = uniform;
	if (uniform < 0) {
		memcpy(st->sizes + (size_t)me * row, slen, sizeof(MPI_Aint) * size);
		memcpy(st->sizes + (size_t)me * row + size, rlen, sizeof(MPI_Aint) * size);
		if ((rc = node_barrier(st)) != MPI_SUCCESS)
			goto out;
	}
	/* Within the bound (nodes_ready) for any correct call: the route checked
	 * that every block is received as large as it is sent. */
	if (send_layout(ci, st, me, at, from, lane_soff, lane_slen) > (MPI_Aint)st->half ||
	    receive_layout(ci, st, me, from, lane_roff, lane_rlen) > (MPI_Aint)st->half) {
		rc = MPI_ERR_INTERN;
		goto out;
	}
	for (q = 0; q < ci->size; q++)
		if (slen[q])
			memcpy(sseg + at[q], sbuf + soff[q], (size_t)slen[q]);
	if ((rc = node_barrier(st)) != MPI_SUCCESS)	/* B */
		goto out;
	if (me < st->lanes)
		lane_rc = paced_exchange(ci, sseg, lane_soff, lane_slen, rseg, lane_roff, lane_rlen,
					 st->lanes * ci->concurrent);
	/* This node's blocks, from the send segment, while the lanes work. */
	for (q = ci->node_start[ci->mynode]; q < ci->node_start[ci->mynode + 1]; q++) {
		int r = ci->by_node[q];

		if (rlen[r])
			memcpy(rbuf + roff[r], sseg + from[r], (size_t)rlen[r]);
	}
	/* C, even after a lane failed: its node's ranks must not wait forever. */
	if ((rc = node_barrier(st)) != MPI_SUCCESS)
		goto out;
	if ((rc = lane_rc) != MPI_SUCCESS)
		goto out;
	for (q = 0; q < ci->size; q++)
		if (rlen[q] && ci->node_of[q] != ci->mynode)
			memcpy(rbuf + roff[q], rseg + from[q], (size_t)rlen[q]);
out:
	free(at);
	free(from);
	free(lane);
	return rc;
}
