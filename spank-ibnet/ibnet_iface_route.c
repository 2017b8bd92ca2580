/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_iface_route.c - the interface that holds this node's route to the
 * job's other nodes (ibnet_iface_route.h).
 */
#include "ibnet_iface_route.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibnet_hostlist.h"
#include "ibnet_util.h"

/* The discard port: a connected UDP socket only needs one; nothing is sent. */
#define ROUTE_PROBE_PORT 9

/* This node's host name up to its first dot (as Slurm's short node names). */
static void short_hostname(char *buf, size_t len)
{
	if (gethostname(buf, len - 1) < 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}

/* The address this node sends to peer from: 0, or -1 (no route). */
static int source_address(const struct in_addr *peer, struct in_addr *local)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(ROUTE_PROBE_PORT),
				  .sin_addr = *peer };
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&to, sizeof(to)) == 0 &&
	    getsockname(s, (struct sockaddr *)&me, &len) == 0) {
		*local = me.sin_addr;
		rc = 0;
	}
	close(s);
	return rc;
}

int ibnet_iface_route(const char *nodelist, unsigned long max_hosts, const struct ibnet_rule *rule,
		      bool on_link, char found[IBNET_IFNAME_MAX], char *how, size_t hlen,
		      char *why, size_t wlen)
{
	struct ibnet_strvec hosts = { 0 };
	struct ibnet_err err = { "" };
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *ai = NULL;
	struct ifaddrs *all = NULL, *p;
	struct in_addr peer, local;
	char self[256], *name = NULL, peer_text[INET_ADDRSTRLEN];
	const char *host = NULL;
	bool own;
	size_t i;
	int rc = -1;

	short_hostname(self, sizeof(self));
	if (nodelist && ibnet_hostlist_expand_max(nodelist, max_hosts ? max_hosts :
						  IBNET_JOB_HOSTS_MAX, &hosts, &err) < 0) {
		snprintf(why, wlen, "the job's nodes: %s",
			 strncmp(err.msg, IBNET_PREFIX, strlen(IBNET_PREFIX)) == 0 ?
			 err.msg + strlen(IBNET_PREFIX) : err.msg);
		goto out;
	}
	for (i = 0; i < hosts.n && !host; i++)
		if (strcmp(hosts.v[i], self) != 0)
			host = hosts.v[i];
	own = !host;
	if (own)
		host = self;	/* a job of one node: its own address */
	if (!host[0]) {
		snprintf(why, wlen, "this node has no host name");
		goto out;
	}
	name = rule ? ibnet_rule_apply(rule, host, &err) : strdup(host);
	if (!name) {
		/* The rule's sentence, without the prefix the caller's has. */
		snprintf(why, wlen, "%s", !rule ? "out of memory" :
			 strncmp(err.msg, IBNET_PREFIX, strlen(IBNET_PREFIX)) == 0 ?
			 err.msg + strlen(IBNET_PREFIX) : err.msg);
		goto out;
	}
	if (getaddrinfo(name, NULL, &hints, &ai) != 0 || !ai) {
		snprintf(why, wlen, "%s has no IPv4 address here (getaddrinfo)", name);
		goto out;
	}
	peer = ((const struct sockaddr_in *)ai->ai_addr)->sin_addr;
	inet_ntop(AF_INET, &peer, peer_text, sizeof(peer_text));
	if (own)
		local = peer;
	else if (source_address(&peer, &local) < 0) {
		snprintf(why, wlen, "this node has no route to %s (%s)", name, peer_text);
		goto out;
	}
	if (getifaddrs(&all) < 0) {
		snprintf(why, wlen, "cannot list network interfaces");
		goto out;
	}
	for (p = all; p; p = p->ifa_next) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)p->ifa_addr;
		const struct sockaddr_in *m = (const struct sockaddr_in *)p->ifa_netmask;

		if (!a || a->sin_family != AF_INET || a->sin_addr.s_addr != local.s_addr)
			continue;
		if (p->ifa_flags & IFF_LOOPBACK) {
			snprintf(why, wlen, "%s (%s) is reached over loopback here, not a network",
				 name, peer_text);
			goto out;
		}
		if (on_link && !own && m &&
		    ((a->sin_addr.s_addr ^ peer.s_addr) & m->sin_addr.s_addr)) {
			snprintf(why, wlen, "%s (%s) is not on the network of %s, the interface of "
				 "this node's route to it (a gateway's)", name, peer_text, p->ifa_name);
			goto out;
		}
		snprintf(found, IBNET_IFNAME_MAX, "%s", p->ifa_name);
		if (own)
			snprintf(how, hlen, "the interface of this node's own address (%s)", name);
		else
			snprintf(how, hlen, "the route to %s", name);
		rc = 0;
		goto out;
	}
	snprintf(why, wlen, "no interface of this node holds %s, its address towards %s",
		 inet_ntop(AF_INET, &local, peer_text, sizeof(peer_text)) ? peer_text : "?", name);
out:
	if (all)
		freeifaddrs(all);
	if (ai)
		freeaddrinfo(ai);
	free(name);
	ibnet_strvec_free(&hosts);
	return rc;
}
