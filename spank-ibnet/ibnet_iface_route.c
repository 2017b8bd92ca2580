/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_iface_route.c - the interface that holds this node's route to the
 * job's other nodes (ibnet_iface_route.h).
 */
#include "ibnet_iface_route.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <net/route.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ibnet_hostlist.h"
#include "ibnet_util.h"

/* The discard port: a connected UDP socket only needs one; nothing is sent. */
#define ROUTE_PROBE_PORT 9
/* This node's own names: its Slurm name and its host name. */
#define ROUTE_OWN_NAMES 2

/*
 * One name's look-up. Heap-held as a whole: a look-up glibc cannot cancel
 * when the time is up goes on in glibc's thread and writes here later, so
 * such a one is left allocated (a few hundred bytes, once per step).
 */
struct lookup {
	struct gaicb cb;
	struct addrinfo hints;
	char *name;		/* the name looked up: the node's, through the rule */
	const char *host;	/* the node list's name */
	bool late;		/* not answered within the time */
};

/* This node's host name up to its first dot (as Slurm's short node names). */
static void short_hostname(char *buf, size_t len)
{
	if (gethostname(buf, len - 1) < 0)
		buf[0] = '\0';
	buf[len - 1] = '\0';
	buf[strcspn(buf, ".")] = '\0';
}

static bool is_loopback(struct in_addr a)
{
	return (ntohl(a.s_addr) >> 24) == 127;	/* 127.0.0.0/8, 127.0.1.1 included */
}

/* The interface (not loopback) holding address a, or whose subnet holds it (subnet). */
static const struct ifaddrs *iface_holding(const struct ifaddrs *all, struct in_addr a, bool subnet)
{
	for (; all; all = all->ifa_next) {
		const struct sockaddr_in *ad = (const struct sockaddr_in *)all->ifa_addr;
		const struct sockaddr_in *m = (const struct sockaddr_in *)all->ifa_netmask;

		if (!ad || ad->sin_family != AF_INET || (all->ifa_flags & IFF_LOOPBACK))
			continue;
		if (ad->sin_addr.s_addr == a.s_addr ||
		    (subnet && m && !((ad->sin_addr.s_addr ^ a.s_addr) & m->sin_addr.s_addr)))
			return all;
	}
	return NULL;
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

/* The interface of this node's default route (lowest metric), from the kernel's table. */
static int default_route_iface(char out[IBNET_IFNAME_MAX])
{
	FILE *f = fopen("/proc/net/route", "re");
	char line[256], ifname[IBNET_IFNAME_MAX];
	unsigned long dest, mask, flags, metric, best = (unsigned long)-1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%15s %lx %*x %lx %*d %*d %lu %lx", ifname, &dest, &flags, &metric,
			   &mask) == 5 && !dest && !mask && (flags & RTF_UP) && metric < best) {
			best = metric;
			snprintf(out, IBNET_IFNAME_MAX, "%s", ifname);
		}
	fclose(f);
	return best == (unsigned long)-1 ? -1 : 0;
}

static struct timespec after_ms(unsigned long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += (time_t)(ms / 1000);
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

/*
 * Every name looked up at once, waited for until the deadline: a name
 * server that does not answer costs the step ms in all, not its timeout
 * times its attempts for each node. 0, or -1 (none could be started).
 */
static int look_up_all(struct lookup **lk, size_t n, unsigned long ms)
{
	struct gaicb *list[IBNET_ROUTE_PEERS];
	struct timespec end = after_ms(ms), now, left;
	size_t i, pending;

	for (i = 0; i < n; i++)
		list[i] = &lk[i]->cb;
	if (getaddrinfo_a(GAI_NOWAIT, list, (int)n, NULL) != 0)
		return -1;
	for (;;) {
		for (pending = 0, i = 0; i < n; i++) {
			if (list[i] && gai_error(list[i]) != EAI_INPROGRESS)
				list[i] = NULL;	/* answered: gai_suspend waits for the rest */
			pending += list[i] != NULL;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!pending || now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
			break;
		left.tv_sec = end.tv_sec - now.tv_sec;
		left.tv_nsec = end.tv_nsec - now.tv_nsec;
		if (left.tv_nsec < 0) {
			left.tv_sec--;
			left.tv_nsec += 1000000000L;
		}
		gai_suspend((const struct gaicb *const *)list, (int)n, &left);
	}
	for (i = 0; i < n; i++)
		lk[i]->late = list[i] != NULL;
	return 0;
}

/* A look-up freed, or left to glibc where it is still running (struct lookup). */
static void lookup_free(struct lookup *l, bool started)
{
	int e;

	if (!l)
		return;
	e = started ? gai_error(&l->cb) : EAI_CANCELED;
	if (e == EAI_INPROGRESS && gai_cancel(&l->cb) == EAI_NOTCANCELED)
		return;
	if (gai_error(&l->cb) == 0 && l->cb.ar_result && started)
		freeaddrinfo(l->cb.ar_result);
	free(l->name);
	free(l);
}

/*
 * A peer's address: not loopback; one a network of this node holds
 * directly before the first. 1 with it in peer, 0 for none but loopback,
 * 2 where one is this node's own (the peer is this node).
 */
static int peer_address(const struct addrinfo *ai, const struct ifaddrs *all, struct in_addr *peer)
{
	const struct addrinfo *p;
	bool any = false;

	for (p = ai; p; p = p->ai_next) {
		struct in_addr a = ((const struct sockaddr_in *)p->ai_addr)->sin_addr;

		if (is_loopback(a))
			continue;
		if (iface_holding(all, a, false)) {
			*peer = a;
			return 2;
		}
		if (!any || (!iface_holding(all, *peer, true) && iface_holding(all, a, true)))
			*peer = a;
		any = true;
	}
	return any;
}

/* This node's own address: the first not loopback that an interface holds; else as peer_address. */
static int own_address(const struct addrinfo *ai, const struct ifaddrs *all, struct in_addr *own)
{
	const struct addrinfo *p;

	for (p = ai; p; p = p->ai_next) {
		*own = ((const struct sockaddr_in *)p->ai_addr)->sin_addr;
		if (!is_loopback(*own) && iface_holding(all, *own, false))
			return 1;
	}
	return peer_address(ai, all, own) != 0;
}

/* The interface this node reaches peer by (or holds, own): 0, or -1 with why. */
static int iface_towards(const struct ifaddrs *all, struct in_addr peer, bool own, bool on_link,
			 const char *name, char found[IBNET_IFNAME_MAX], char *why, size_t wlen)
{
	const struct ifaddrs *p;
	struct in_addr local;
	char peer_text[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &peer, peer_text, sizeof(peer_text));
	if (own)
		local = peer;
	else if (source_address(&peer, &local) < 0) {
		snprintf(why, wlen, "this node has no route to %s (%s)", name, peer_text);
		return -1;
	}
	for (p = all; p; p = p->ifa_next) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)p->ifa_addr;
		const struct sockaddr_in *m = (const struct sockaddr_in *)p->ifa_netmask;

		if (!a || a->sin_family != AF_INET || a->sin_addr.s_addr != local.s_addr)
			continue;
		if (p->ifa_flags & IFF_LOOPBACK) {
			snprintf(why, wlen, "%s (%s) is reached over loopback here, not a network",
				 name, peer_text);
			return -1;
		}
		if (on_link && !own && m &&
		    ((a->sin_addr.s_addr ^ peer.s_addr) & m->sin_addr.s_addr)) {
			snprintf(why, wlen, "%s (%s) is not on the network of %s, the interface of "
				 "this node's route to it (a gateway's)", name, peer_text, p->ifa_name);
			return -1;
		}
		snprintf(found, IBNET_IFNAME_MAX, "%s", p->ifa_name);
		return 0;
	}
	snprintf(why, wlen, "no interface of this node holds %s, its address towards %s",
		 inet_ntop(AF_INET, &local, peer_text, sizeof(peer_text)) ? peer_text : "?", name);
	return -1;
}

/* A sentence part, "; " between. */
static void note(struct ibnet_buf *b, const char *s)
{
	if (b->len)
		ibnet_buf_adds(b, "; ");
	ibnet_buf_adds(b, s);
}

/* The rule's sentence (or the list's), without the prefix the caller's has. */
static const char *unprefixed(const char *msg)
{
	return strncmp(msg, IBNET_PREFIX, strlen(IBNET_PREFIX)) == 0 ?
	       msg + strlen(IBNET_PREFIX) : msg;
}

/* The names to look up: the first peers, or this node's own names; 0, or -1 with why. */
static int names_to_look_up(const struct ibnet_route_ask *ask, const struct ibnet_strvec *hosts,
			    const char *self, struct lookup **lk, size_t *n, bool *own,
			    char *why, size_t wlen)
{
	const char *pick[IBNET_ROUTE_PEERS];
	struct ibnet_err err = { "" };
	size_t i, k = 0;

	for (i = 0; i < hosts->n && k < IBNET_ROUTE_PEERS; i++)
		if (strcmp(hosts->v[i], self) != 0 &&
		    !(ask->node_name && strcmp(hosts->v[i], ask->node_name) == 0))
			pick[k++] = hosts->v[i];
	*own = !k;
	if (*own) {	/* a job of one node: its own address, by its Slurm name, then its host's */
		if (ask->node_name && ask->node_name[0])
			pick[k++] = ask->node_name;
		if (self[0] && !(k && strcmp(self, pick[0]) == 0))
			pick[k++] = self;
	}
	if (!k) {
		snprintf(why, wlen, "this node has no host name");
		return -1;
	}
	for (*n = 0; *n < k; (*n)++) {
		struct lookup *l = calloc(1, sizeof(*l));

		if (!l) {
			snprintf(why, wlen, "out of memory");
			return -1;
		}
		lk[*n] = l;
		l->host = pick[*n];
		l->name = ask->rule ? ibnet_rule_apply(ask->rule, l->host, &err) : strdup(l->host);
		if (!l->name) {
			snprintf(why, wlen, "%s", !ask->rule ? "out of memory" : unprefixed(err.msg));
			(*n)++;
			return -1;
		}
		l->hints.ai_family = AF_INET;
		l->hints.ai_socktype = SOCK_DGRAM;
		l->cb.ar_name = l->name;
		l->cb.ar_request = &l->hints;
	}
	return 0;
}

int ibnet_iface_route(const struct ibnet_route_ask *ask, char found[IBNET_IFNAME_MAX], char *how,
		      size_t hlen, char *why, size_t wlen)
{
	struct ibnet_strvec hosts = { 0 };
	struct ibnet_err err = { "" };
	struct lookup *lk[IBNET_ROUTE_PEERS] = { 0 };
	struct ibnet_buf notes = { 0 }, late = { 0 };
	struct ifaddrs *all = NULL;
	struct in_addr addr;
	unsigned long ms = ask->lookup_ms ? ask->lookup_ms : IBNET_ROUTE_LOOKUP_MS;
	char self[256], part[300], text[INET_ADDRSTRLEN];
	const struct lookup *only_loopback = NULL, *took = NULL;
	bool own = false, started = false;
	size_t i, n = 0;
	int rc = -1;

	short_hostname(self, sizeof(self));
	if (ask->nodelist && ibnet_hostlist_expand_max(ask->nodelist, ask->max_hosts ? ask->max_hosts :
						       IBNET_JOB_HOSTS_MAX, &hosts, &err) < 0) {
		snprintf(why, wlen, "the job's nodes: %s", unprefixed(err.msg));
		goto out;
	}
	if (names_to_look_up(ask, &hosts, self, lk, &n, &own, why, wlen) < 0)
		goto out;
	started = true;	/* even where it fails: some may have been queued */
	if (look_up_all(lk, n, ms) < 0) {
		snprintf(why, wlen, "cannot look up the names of the job's nodes (getaddrinfo_a)");
		goto out;
	}
	if (getifaddrs(&all) < 0) {
		snprintf(why, wlen, "cannot list network interfaces");
		goto out;
	}
	for (i = 0; i < n && !took; i++) {
		const struct lookup *l = lk[i];
		int got;

		if (l->late) {
			if (late.len)
				ibnet_buf_adds(&late, ", ");
			ibnet_buf_adds(&late, l->name);
			continue;
		}
		if (gai_error((struct gaicb *)&l->cb) != 0 || !l->cb.ar_result) {
			snprintf(part, sizeof(part), "%s has no IPv4 address here (getaddrinfo)", l->name);
			note(&notes, part);
			continue;
		}
		got = own ? own_address(l->cb.ar_result, all, &addr) :
			    peer_address(l->cb.ar_result, all, &addr);
		inet_ntop(AF_INET, &addr, text, sizeof(text));
		if (got == 0) {
			/* Debian's and Ubuntu's /etc/hosts: the host name is 127.0.1.1. */
			snprintf(part, sizeof(part), "%s has only a loopback address here", l->name);
			note(&notes, part);
			only_loopback = only_loopback ? only_loopback : l;
			continue;
		}
		if (got == 2) {
			snprintf(part, sizeof(part), "%s is this node (%s is its own address)",
				 l->name, text);
			note(&notes, part);
			continue;
		}
		if (iface_towards(all, addr, own, ask->on_link, l->name, found, part,
				  sizeof(part)) == 0)
			took = l;
		else
			note(&notes, part);
	}
	if (late.len) {
		snprintf(part, sizeof(part), " not resolved within %lu ms", ms);
		ibnet_buf_adds(&late, part);
		note(&notes, late.s);
	}
	if (!took && own && only_loopback && !ask->on_link && default_route_iface(found) == 0) {
		/* The node's name says nothing of its network here; its default route does. */
		snprintf(how, hlen, "the interface of this node's default route; %s",
			 notes.s ? notes.s : "");
		rc = 0;
		goto out;
	}
	if (!took) {
		snprintf(why, wlen, "%s", notes.s ? notes.s : "no name to look up");
		goto out;
	}
	if (own)
		snprintf(how, hlen, "the interface of this node's own address (%s)", took->name);
	else
		snprintf(how, hlen, "the route to %s", took->name);
	if (notes.len)
		snprintf(how + strlen(how), hlen - strlen(how), "; %s", notes.s);
	rc = 0;
out:
	if (all)
		freeifaddrs(all);
	for (i = 0; i < n; i++)
		lookup_free(lk[i], started);
	ibnet_buf_free(&notes);
	ibnet_buf_free(&late);
	ibnet_strvec_free(&hosts);
	return rc;
}
