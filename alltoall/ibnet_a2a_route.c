/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_route.c - where a call goes, and why (enum route): the checks
 * every rank reaches alike, the ranks' agreement, the fan-in rule.
 */

#include "ibnet_a2a_paced.h"

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
static enum route fanin_route(const struct comm_info *ci, unsigned long pair_bytes,
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
	return (unsigned long)ci->most_local > settings.window / IBNET_A2A_CHUNK_MIN;
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

/* The route of a call the scheme could take, by its largest block and the
 * most bytes one rank sends or receives (both the same on every rank). */
enum route size_route(const struct comm_info *ci, unsigned long block_bytes,
		      unsigned long heaviest)
{
	if (block_bytes > block_limit)
		return BIG_BLOCK;
	return fanin_route(ci, block_bytes, by_node(ci, heaviest));
}

/*
 * A PACED_NODES call: its node segments made or grown (collective, so on
 * every rank alike). *route becomes NO_MEMORY on every rank when a node
 * could not.
 */
int node_route(struct comm_info *ci, unsigned long heaviest, enum route *route)
{
	bool ready;
	int rc = nodes_ready(ci, heaviest * (unsigned long)ci->most_local, &ready);

	if (rc == MPI_SUCCESS && !ready)
		*route = NO_MEMORY;
	return rc;
}

/*
 * Both calls' route before their sizes are known: common_route's checks,
 * then the communicator's layout (collective: every rank of comm reaches it
 * alike). *ci is set where the route is still PACED. A failed set-up is
 * reported and its code returned.
 */
int comm_route(MPI_Comm comm, const void *sendbuf, enum route *route, struct comm_info **ci)
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
