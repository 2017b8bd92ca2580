/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tcp_floor.c - a retransmission floor for the job's TCP sockets.
 *
 * Linked into libibnet-alltoall.so, the one preload the plugin manages for
 * a step's Ethernet remedies (--ordered-alltoall, --tcp-rto-min). Linux
 * waits at least 200 ms (TCP_RTO_MIN) before it resends a segment that
 * nothing acknowledged, such as the tail of a message a switch without flow
 * control dropped: that wait, not the loss, is what stalls MPI, halo
 * exchanges and Linda's sockets (Vasudevan et al., SIGCOMM 2009, on incast).
 * Linux 6.15 and later let any process lower it on its own sockets
 * (TCP_RTO_MIN_US). The plugin checked that the node's kernel takes it and
 * put the value it reads back in SLURM_IBNET_TCP_RTO_MIN_US; here each TCP
 * socket the process creates gets it. Sockets accept() returns inherit
 * their listener's value in the kernel.
 *
 * Inert unless asked: no constructor, nothing runs until the process
 * creates a socket, and with the variable unset socket() is just the next
 * library's. The call goes on to the next socket() in the preload chain
 * (the rsocket gate, librspreload or the C library). In an rsocket job the
 * programs the gate sends to the kernel get the floor; rsockets do not need
 * it (the setsockopt is refused there), and a socket librspreload makes
 * itself when it falls back to TCP at connect() does not get it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibnet_a2a_settings.h"
#include "ibnet_job_vars.h"

#ifndef TCP_RTO_MIN_US
#define TCP_RTO_MIN_US 45	/* Linux 6.15; Debian 12's headers predate it */
#endif

#define EXPORT __attribute__((visibility("default")))

typedef int (*socket_fn)(int, int, int);
typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static socket_fn next_socket;
static setsockopt_fn next_setsockopt;
static int floor_us;			/* 0: no floor asked */
static unsigned long floored, refused;	/* sockets given the floor, or not */

static void report(void)
{
	if (floored || refused)
		fprintf(stderr, "spank-ibnet tcp: pid %d: %lu TCP socket%s given a %d us "
			"retransmission floor%s\n", (int)getpid(), floored, floored == 1 ? "" : "s",
			floor_us, refused ? " (refused on some: rsockets, or the kernel)" : "");
}

static void init(void)
{
	const char *v = getenv(IBNET_RTO_ENV_US);
	unsigned long us;
	char msg[160];

	next_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	next_setsockopt = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	if (!v)
		return;
	if (ibnet_rto_parse_us(v, &us, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spank-ibnet tcp: %s; no retransmission floor\n", msg);
		return;
	}
	floor_us = (int)us;
	if (ibnet_flag_on(getenv(IBNET_A2A_ENV_REPORT)))	/* as the paced all-to-all reads it */
		atexit(report);
}

static int is_tcp(int domain, int type, int protocol)
{
	/* The type also carries SOCK_NONBLOCK and SOCK_CLOEXEC. */
	return (domain == AF_INET || domain == AF_INET6) &&
	       (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) == SOCK_STREAM &&
	       (protocol == 0 || protocol == IPPROTO_TCP);
}

EXPORT int socket(int domain, int type, int protocol)
{
	int fd, saved;

	pthread_once(&once, init);
	if (!next_socket) {
		errno = ENOSYS;
		return -1;
	}
	fd = next_socket(domain, type, protocol);
	if (fd < 0 || !floor_us || !next_setsockopt || !is_tcp(domain, type, protocol))
		return fd;
	saved = errno;
	if (next_setsockopt(fd, IPPROTO_TCP, TCP_RTO_MIN_US, &floor_us, sizeof(floor_us)) == 0)
		__atomic_add_fetch(&floored, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
	errno = saved;
	return fd;
}
