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
 * library's (close() tests one bit of a table that stays empty). The call goes on to the next socket() in the preload chain
 * (the rsocket gate, librspreload or the C library). In an rsocket job the
 * programs the gate sends to the kernel get the floor; rsockets do not need
 * it (the setsockopt is refused there), and a socket librspreload makes
 * itself when it falls back to TCP at connect() does not get it.
 *
 * What the sockets met: each socket given the floor (and each accept()ed
 * from one) is remembered by its descriptor; when it is closed, and at exit
 * for those still open, its TCP_INFO gives the retransmission timeouts that
 * fired on it (tcpi_total_rto, Linux 6.7; every kernel with the option has
 * it) and the segments it retransmitted. The sums go into the step's tally
 * directory (IBNET_A2A_ENV_TALLY, a file tcp.*), which the plugin adds up
 * for the node's log line, as the BPF tier's counters are. A descriptor
 * past IBNET_FLOOR_FDS, a socket a dup2() closes, and a process killed by a
 * signal are not counted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ibnet_a2a_settings.h"	/* the tally's format */
#include "ibnet_floor_settings.h"
#include "ibnet_job_vars.h"

#ifndef TCP_RTO_MIN_US
#define TCP_RTO_MIN_US 45	/* Linux 6.15; Debian 12's headers predate it */
#endif

#define EXPORT __attribute__((visibility("default")))

typedef int (*socket_fn)(int, int, int);
typedef int (*setsockopt_fn)(int, int, int, const void *, socklen_t);
typedef int (*accept4_fn)(int, struct sockaddr *, socklen_t *, int);
typedef int (*close_fn)(int);

/* Descriptors below this are remembered (a bit each: 8 KiB). */
#define IBNET_FLOOR_FDS 65536

/*
 * struct tcp_info as Linux 6.7 and later fill it: the two fields read, at
 * their offsets in the kernel's ABI (Debian 12's headers predate the second).
 */
#define TCPI_TOTAL_RETRANS_AT 100	/* __u32 tcpi_total_retrans */
#define TCPI_TOTAL_RTO_AT 240		/* __u16 tcpi_total_rto (6.7) */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static socket_fn next_socket;
static setsockopt_fn next_setsockopt;
static accept4_fn next_accept4;
static close_fn next_close;
static int floor_us;			/* 0: no floor asked */
static unsigned long floored, refused;	/* sockets given the floor, or not */
static unsigned long timeouts, retransmitted;	/* what the closed ones met */
static unsigned char remembered[IBNET_FLOOR_FDS / 8];
static pid_t floor_pid;			/* the process that counts (not a fork of it) */

static void remember(int fd)
{
	if (fd >= 0 && fd < IBNET_FLOOR_FDS)
		__atomic_fetch_or(&remembered[fd / 8], (unsigned char)(1u << (fd % 8)),
				  __ATOMIC_RELAXED);
}

/* Forget fd; was it one of ours? */
static int forget(int fd)
{
	unsigned char bit = (unsigned char)(1u << (fd % 8));

	if (fd < 0 || fd >= IBNET_FLOOR_FDS)
		return 0;
	return (__atomic_fetch_and(&remembered[fd / 8], (unsigned char)~bit,
				   __ATOMIC_RELAXED) & bit) != 0;
}

/* Add what fd's connection met to the sums (before it is closed). */
static void count_socket(int fd)
{
	unsigned char info[256];
	socklen_t len = sizeof(info);
	uint32_t retrans;
	uint16_t rto;

	memset(info, 0, sizeof(info));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &len) < 0)
		return;
	if (len >= TCPI_TOTAL_RETRANS_AT + sizeof(retrans)) {
		memcpy(&retrans, info + TCPI_TOTAL_RETRANS_AT, sizeof(retrans));
		__atomic_add_fetch(&retransmitted, retrans, __ATOMIC_RELAXED);
	}
	if (len >= TCPI_TOTAL_RTO_AT + sizeof(rto)) {
		memcpy(&rto, info + TCPI_TOTAL_RTO_AT, sizeof(rto));
		__atomic_add_fetch(&timeouts, rto, __ATOMIC_RELAXED);
	}
}

/* The step's tally: one file of this process's sums (ibnet_tally.c reads it). */
static void write_tally(const char *dir)
{
	FILE *f = ibnet_a2a_tally_open(dir, IBNET_A2A_TALLY_FLOOR);

	if (!f)
		return;
	fprintf(f, "%s\tsockets\t%lu\n%s\ttimeouts\t%lu\n%s\tretransmitted\t%lu\n",
		IBNET_A2A_TALLY_FLOOR_KIND, floored, IBNET_A2A_TALLY_FLOOR_KIND, timeouts,
		IBNET_A2A_TALLY_FLOOR_KIND, retransmitted);
	fclose(f);
}

static void at_exit(void)
{
	const char *dir = getenv(IBNET_A2A_ENV_TALLY);
	int fd;

	if (getpid() != floor_pid)
		return;
	for (fd = 0; fd < IBNET_FLOOR_FDS; fd++)	/* the ones still open */
		if (remembered[fd / 8] && forget(fd))
			count_socket(fd);
	if (floored && dir && *dir)
		write_tally(dir);
	if ((floored || refused) && ibnet_flag_on(getenv(IBNET_A2A_ENV_REPORT)))
		fprintf(stderr, "spank-ibnet tcp: pid %d: %lu TCP socket%s given a %d us "
			"retransmission floor%s; %lu retransmission timeout%s, %lu segment%s "
			"retransmitted\n", (int)getpid(), floored, floored == 1 ? "" : "s",
			floor_us, refused ? " (refused on some: rsockets, or the kernel)" : "",
			timeouts, timeouts == 1 ? "" : "s", retransmitted,
			retransmitted == 1 ? "" : "s");
}

static void init(void)
{
	const char *v = getenv(IBNET_RTO_ENV_US);
	unsigned long us;
	char msg[160];

	next_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	next_setsockopt = (setsockopt_fn)dlsym(RTLD_NEXT, "setsockopt");
	next_accept4 = (accept4_fn)dlsym(RTLD_NEXT, "accept4");
	if (!v)
		return;
	if (ibnet_rto_parse_us(v, &us, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "spank-ibnet tcp: %s; no retransmission floor\n", msg);
		return;
	}
	floor_us = (int)us;
	floor_pid = getpid();
	atexit(at_exit);
}

/*
 * close() of every descriptor passes here: one bit test for the others. Its
 * own next is looked up on first use, before init (a process may close
 * descriptors before it makes a socket).
 */
EXPORT int close(int fd)
{
	close_fn next = __atomic_load_n(&next_close, __ATOMIC_ACQUIRE);

	if (!next) {
		next = (close_fn)dlsym(RTLD_NEXT, "close");
		if (!next) {
			errno = ENOSYS;
			return -1;
		}
		__atomic_store_n(&next_close, next, __ATOMIC_RELEASE);
	}
	if (forget(fd))
		count_socket(fd);
	return next(fd);
}

/* A connection accepted on a listener with the floor has it (the kernel copies it). */
EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	int conn, listening;

	pthread_once(&once, init);
	if (!next_accept4) {
		errno = ENOSYS;
		return -1;
	}
	listening = fd >= 0 && fd < IBNET_FLOOR_FDS &&
		    (__atomic_load_n(&remembered[fd / 8], __ATOMIC_RELAXED) & (1u << (fd % 8)));
	conn = next_accept4(fd, addr, len, flags);
	if (conn >= 0 && listening)
		remember(conn);
	return conn;
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	return accept4(fd, addr, len, 0);
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
	if (next_setsockopt(fd, IPPROTO_TCP, TCP_RTO_MIN_US, &floor_us, sizeof(floor_us)) == 0) {
		__atomic_add_fetch(&floored, 1, __ATOMIC_RELAXED);
		remember(fd);
	} else
		__atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
	errno = saved;
	return fd;
}
