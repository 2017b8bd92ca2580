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

/*
 * The first host of nodelist that is not this node (by its host name up to
 * the first dot), or this node itself in a job of one node; through rule
 * (NULL: its own name) to an address (IPv4, getaddrinfo); the interface
 * that holds the address this node would send to it from (a connected UDP
 * socket's own address: no packet is sent). on_link: the peer's address
 * must also be within that interface's own subnet, so a default route
 * (another network's gateway) is never taken for the IB network. 0 with
 * the interface in found and how it was found in how ("the route to c1-2
 * (cib1-2)"); -1 with why.
 */
int ibnet_iface_route(const char *nodelist, unsigned long max_hosts, const struct ibnet_rule *rule,
		      bool on_link, char found[IBNET_IFNAME_MAX], char *how, size_t hlen,
		      char *why, size_t wlen);

#endif
