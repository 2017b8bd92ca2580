/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_exchange.c - the paced exchange pair by pair, one of the two
 * algorithms (ibnet_a2a_nodes.c, the other, runs its lanes through it):
 *   - Ranks are grouped by node (ibnet_a2a_layout.c). Pairs on one node
 *     exchange through the MPI's shared memory, all at once.
 *   - Between nodes, each rank receives from the other nodes in phases:
 *     in phase p, node i receives from node i-p, so one node sends to each
 *     port at a time (the ordered all-to-all of Kutzner et al., "Improved
 *     GROMACS scaling on Ethernet switched clusters", 2006).
 *   - The receiver paces its sender: it grants credits, each for one chunk of
 *     its share of the window (a node's ranks share it), and never has more
 *     than that share outstanding. The bytes in flight towards a node's
 *     switch port stay under the window, which is what 802.3x flow control
 *     would do in the switch. The next phase's grants start as soon as the
 *     window has room, so there is no barrier and no idle wire between phases.
 *   - Senders answer any credit at once: the receivers drive the schedule, so
 *     nothing waits in a cycle.
 *   - With alltoall_window=auto the window is this process's controller's
 *     (ibnet_a2a_window.c): each call measures what it needs - the least
 *     time from a grant to its data, whether a grant waited for room, the
 *     rate the node received at, and the node's TCP retransmissions during
 *     the call - and hands it over once the call is done.
 * Traffic runs on the communicator's private duplicate: its tags cannot
 * meet the application's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_a2a_exchange.h"
#include "ibnet_a2a_netstat.h"
#include "ibnet_a2a_state.h"

enum { TAG_LOCAL = 1, TAG_CREDIT = 2, TAG_DATA = 3 };

/*
 * The requests one exchange has posted. A finished request's slot goes on a
 * free list and is reused, so a post costs O(1) and the arrays (what
 * Waitsome scans) are only as long as the most requests outstanding at once:
 * the current phases', not the whole call's.
 */
struct events {
	MPI_Request *req;
	int *kind, *peer, *bytes;	/* bytes: a data receive's, for the window */
	int *round;		/* a data receive's round trip on the critical path */
	double *granted;	/* a data receive's grant, MPI_Wtime (auto: the round trip) */
	int *free_slot;		/* slots below n whose request has finished */
	int *done;		/* Waitsome's indices, and then the peers */
	MPI_Status *status;	/* Waitsome's statuses (their MPI_TAG then holds the kind) */
	int n, cap, nfree;	/* slots handed out so far, allocated, free */
	int active;		/* requests posted and not yet finished */
	/*
	 * Round trips on the critical path: a grant made after data of round r
	 * arrived is of round r + 1 (the first grants are round 1); the highest
	 * round is how many round trips this receiver waited for in a row.
	 */
	int next_round, most_round;
	bool timed;		/* alltoall_window=auto: grants are timed */
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
	EV_GROW(bytes);
	EV_GROW(round);
	EV_GROW(granted);
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
	free(e->bytes);
	free(e->round);
	free(e->granted);
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
	e->bytes[i] = n;
	e->round[i] = e->next_round;
	e->granted[i] = kind == EV_DATA && e->timed ? PMPI_Wtime() : 0;
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

/* The node's count at the end of this process's last paced call: the next
 * call starts from it (one read a call, not two). */
static unsigned long retrans_mark;

/* What one call showed, gathered as it runs (alltoall_window=auto). */
struct call_measure {
	double started;			/* the first grant */
	unsigned long retrans;		/* the node's, before */
	MPI_Aint remote;		/* bytes received from other nodes */
	MPI_Aint peak;			/* the most this rank had granted and not received */
	struct window_sample s;
};

/* A data receive of n bytes granted at `granted` finished at `now`. */
static void measure_data(struct call_measure *m, double granted, double now, int n)
{
	double rt = now - granted;

	if (link_rate > 0)
		rt -= n / link_rate;	/* the chunk's own time on the wire */
	if (rt > 0 && (m->s.round_trip <= 0 || rt < m->s.round_trip))
		m->s.round_trip = rt;
}

/* The call is done: its sample to the controller. */
static void measure_end(struct call_measure *m, int sharers)
{
	double took = PMPI_Wtime() - m->started;
	unsigned long now = node_retransmits();

	__atomic_store_n(&retrans_mark, now, __ATOMIC_RELAXED);
	m->s.lost = now > m->retrans ? now - m->retrans : 0;
	m->s.received = (unsigned long)m->remote * (unsigned long)sharers;
	m->s.delivered = took > 0 ? (double)m->s.received / took : 0;
	m->s.peak = (unsigned long)m->peak * (unsigned long)sharers;
	window_learn(&m->s);
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
int paced_exchange(struct comm_info *ci, const char *sbuf, const MPI_Aint *soff,
		   const MPI_Aint *slen, char *rbuf, const MPI_Aint *roff, const MPI_Aint *rlen,
		   int sharers)
{
	struct events ev = { .next_round = 1, .timed = settings.window == IBNET_A2A_WINDOW_AUTO };
	struct call_measure m = { 0 };
	unsigned long window = window_now();
	struct send_phases sp = { .current = 1, .posted = 0 };
	MPI_Aint *sent = calloc((size_t)ci->size, sizeof(MPI_Aint));
	int *credit_in = calloc((size_t)ci->size, sizeof(int));
	int *order = malloc(sizeof(int) * (size_t)ci->size);
	int me = ci->rank, mynode = ci->mynode, my_credits, norder = 0;
	int oi = 0, outstanding = 0, rc = MPI_ERR_NO_MEM, i, p;
	MPI_Aint chunk, share, in_flight = 0, off = 0;

	sp.unsent = calloc((size_t)ci->nnodes, sizeof(int));
	if (!sent || !credit_in || !order || !sp.unsent)
		out_of_memory(ci, "its schedule");
	/*
	 * The node's receiving ranks (sharers: all its ranks pair by pair, its
	 * lanes node to node) share its window: each grants window/sharers
	 * bytes, in its share of the credits (at least one, of at least 1 KiB).
	 * With two ranks per node and one credit, each grants half the chunk.
	 */
	my_credits = (int)settings.credits / sharers;
	if (my_credits < 1)
		my_credits = 1;
	chunk = (MPI_Aint)(window / (unsigned long)sharers / (unsigned long)my_credits);
	if (chunk < IBNET_A2A_CHUNK_MIN)
		chunk = IBNET_A2A_CHUNK_MIN;
	/*
	 * The window is counted in bytes: grants go out while the bytes granted
	 * and not yet received stay within this receiver's share, so blocks
	 * smaller than a chunk (many ranks per node, small calls) are granted
	 * several at a time instead of one round trip each; blocks of a chunk
	 * or more are granted my_credits at a time, as before.
	 */
	share = chunk * my_credits;

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
				order[norder++] = s, m.remote += rlen[s];
		}
	}

	if (ev.timed) {
		m.retrans = __atomic_load_n(&retrans_mark, __ATOMIC_RELAXED);
		if (!m.retrans)
			m.retrans = node_retransmits();
		m.started = PMPI_Wtime();
	}
	for (;;) {
		int ndone = 0, j;
		double now;

		/* Grant while the window has room (share, in bytes). */
		while (oi < norder && outstanding < IBNET_A2A_GRANTS_MAX) {
			int s = order[oi];
			MPI_Aint len = rlen[s] - off < chunk ? rlen[s] - off : chunk;
			int grant = (int)len;	/* at most the window, 64 MiB */

			if (outstanding && in_flight + len > share) {
				m.s.filled = true;	/* bytes wait for room */
				break;
			}

			rc = ev_post(&ev, EV_DATA, s, rbuf + roff[s] + off, grant, TAG_DATA, ci->priv);
			if (rc != MPI_SUCCESS)
				goto out;
			/* Four bytes, eager in every MPI: returns at once. As bytes,
			 * the type the credit receive posts (ev_post). */
			rc = injected_failure() ? MPI_ERR_OTHER :
				PMPI_Send(&grant, sizeof(grant), MPI_BYTE, s, TAG_CREDIT, ci->priv);
			if (rc != MPI_SUCCESS)
				goto out;
#ifdef IBNET_A2A_TESTING
			__atomic_fetch_add(&test_grants, 1, __ATOMIC_RELAXED);
#endif
			if (ev.next_round > ev.most_round)
				ev.most_round = ev.next_round;
			outstanding++;
			in_flight += len;
			if (in_flight > m.peak)
				m.peak = in_flight;
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
		now = ev.timed ? PMPI_Wtime() : 0;
		/* Read every finished slot and free it before any is reused below. */
		for (j = 0; j < ndone; j++) {
			int slot = ev.done[j];

			if (ev.timed && ev.kind[slot] == EV_DATA)
				measure_data(&m, ev.granted[slot], now, ev.bytes[slot]);
			/* Each finished request's kind, bytes and peer, kept in fields
			 * of its status nothing reads after Waitsome. */
			ev.status[j].MPI_TAG = ev.kind[slot], ev.status[j].MPI_SOURCE = ev.bytes[slot];
			ev.done[j] = ev.peer[slot];
			if (ev.kind[slot] == EV_DATA && ev.round[slot] + 1 > ev.next_round)
				ev.next_round = ev.round[slot] + 1;
			ev_release(&ev, slot);
		}
		ev.active -= ndone;
		for (j = 0; j < ndone; j++) {
			int kind = ev.status[j].MPI_TAG, d = ev.done[j];
			MPI_Aint len;

			if (kind == EV_DATA)
				outstanding--, in_flight -= ev.status[j].MPI_SOURCE;
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
	if (ev.timed && norder)
		measure_end(&m, sharers);
out:
#ifdef IBNET_A2A_TESTING
	__atomic_fetch_add(&test_round_trips, (unsigned long)ev.most_round, __ATOMIC_RELAXED);
	{
		int most = __atomic_load_n(&test_most_slots, __ATOMIC_RELAXED);

		while (ev.n > most && !__atomic_compare_exchange_n(&test_most_slots, &most, ev.n,
								   false, __ATOMIC_RELAXED,
								   __ATOMIC_RELAXED))
			;
	}
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
