/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_iface_route.h - the interface a step's traffic leaves this node by,
 * found rather than assumed: the one that holds this node's route to the
 * job's other nodes (their Ethernet names, or their InfiniBand names
 * through the site's rule). Where eth_iface/ib_iface are left at their
 * defaults (eth0, ib0) and this node has no such interface, or where the
 * admin's list names "route", the probe (ibnet_probe.c) asks this.
 */
#ifndef IBNET_IFACE_ROUTE_H
#define IBNET_IFACE_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "ibnet_job.h"
#include "ibnet_rule.h"

/* The list item that asks for the route (eth_iface=eno1,route). */
#define IBNET_IFACE_ROUTE "route"
/* How many of the job's other nodes are looked up (at once), and the time
   all their look-ups get together: a name server that does not answer
   holds user_init (the step's start) no longer than this. */
#define IBNET_ROUTE_PEERS 4
#define IBNET_ROUTE_LOOKUP_MS 2000

struct ibnet_route_ask {
	const char *nodelist;		/* the job's nodes; NULL: none */
	unsigned long max_hosts;	/* 0: IBNET_JOB_HOSTS_MAX */
	const char *node_name;		/* this node's Slurm name; NULL: its host name only */
	const struct ibnet_rule *rule;	/* a node's name to the one looked up; NULL: itself */
	bool on_link;			/* only an interface whose own network holds the peer */
	unsigned long lookup_ms;	/* 0: IBNET_ROUTE_LOOKUP_MS */
};

/*
 * The first IBNET_ROUTE_PEERS hosts of the node list that are not this
 * node (by its Slurm name or its host name up to the first dot), or this
 * node itself in a job of one node, through the rule to names, looked up
 * together (IPv4) within lookup_ms. A peer's address: not a loopback one,
 * one that a network of this node holds directly (no gateway) before the
 * first; a peer whose address is this node's own is this node under
 * another name, and is passed over. The first peer with an address gives
 * the interface that holds the address this node would send to it from
 * (a connected UDP socket's own address: no packet is sent); on_link: the
 * peer's address must also be within that interface's own subnet, so a
 * default route (another network's gateway) is never taken for the IB
 * network. This node's own name resolving only to loopback (127.0.1.1 in
 * Debian's /etc/hosts) gives, without on_link, the interface of its
 * default route. 0 with the interface in found and how it was found in how
 * ("the route to c1-2 (cib1-2)", and the peers passed over, and why); -1
 * with why.
 */
int ibnet_iface_route(const struct ibnet_route_ask *ask, char found[IBNET_IFNAME_MAX], char *how,
		      size_t hlen, char *why, size_t wlen);

#endif
