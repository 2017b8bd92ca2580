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
 * socket the process creates gets it, spread (issue 49): a whole number of
 * jiffies drawn per socket from the floor's to twice it
 * (contract/ibnet_tcp_floor_rule.h), so that flows a shallow switch port
 * dropped together do not all time out, resend and be dropped on the same
 * tick again. Sockets accept() returns would inherit their listener's
 * value in the kernel; each gets a draw of its own, since about half a
 * rank's connections are accepted ones. SLURM_IBNET_TCP_RTO_SPREAD=off,
 * for measurements, gives every socket the floor itself.
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
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ibnet_a2a_settings.h"	/* the tally's format */
#include "ibnet_floor_settings.h"
#include "ibnet_job_vars.h"
#include "ibnet_say_line.h"
#include "ibnet_tcp_floor_rule.h"

#ifndef TCP_RTO_MIN_US
#define TCP_RTO_MIN_US 45	/* Linux 6.15; Debian 12's headers predate it */
#endif
#ifndef TCP_DELACK_MAX_US
#define TCP_DELACK_MAX_US 46	/* Linux 6.15, with TCP_RTO_MIN_US */
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
static unsigned int kernel_hz;		/* 0: every socket gets floor_us (not spread) */
static const char *unspread_why;	/* why not spread, for the report */
static unsigned long long draw_seed, draws;	/* the process's sequence of draws */

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
	if ((floored || refused) && ibnet_flag_on(getenv(IBNET_A2A_ENV_REPORT))) {
		char spread[96];

		if (kernel_hz)
			snprintf(spread, sizeof(spread), "the floor spread to %u-%u us per socket (HZ %u)",
				 ibnet_floor_spread((unsigned int)floor_us, kernel_hz, 0),
				 ibnet_floor_spread((unsigned int)floor_us, kernel_hz, 0xffffffffu),
				 kernel_hz);
		else
			snprintf(spread, sizeof(spread), "the floor not spread: %s", unspread_why);
		ibnet_say_line("spank-ibnet tcp: pid %d: %lu TCP socket%s given a %d us "
			       "retransmission floor%s; %lu retransmission timeout%s, %lu segment%s "
			       "retransmitted; %s", (int)getpid(), floored, floored == 1 ? "" : "s",
			       floor_us, refused ? " (refused on some: rsockets, or the kernel)" : "",
			       timeouts, timeouts == 1 ? "" : "s", retransmitted,
			       retransmitted == 1 ? "" : "s", spread);
	}
}

/*
 * The kernel's HZ, which the spread needs to draw whole jiffies. No file
 * tells it to any process (sysconf's clock tick is USER_HZ, 100 on every
 * kernel; /proc/config.gz and /boot/config-* need not be there), so it is
 * read back from the kernel: on a socket of its own, made with the system
 * call itself (the next socket() in the chain may be librspreload's), the
 * floor reads back as its j0 jiffies in microseconds, and one microsecond
 * more as j0 + 1 jiffies. Their difference is a jiffy to within the
 * microsecond the kernel rounds down, which is close enough for j0 (at
 * most 205 jiffies, each at least 976 us) but not for HZ itself at 1024
 * (1e6 / 976 is 1025); HZ is then j0 x 1e6 over the floor read back,
 * rounded, and kept only if the rule, given it, says the floor as the
 * kernel read it back. Four system calls and a socket, once per process.
 * 0, with why, where there is nothing to spread or the kernel does not say.
 */
static unsigned int learn_hz(int floor, const char **why)
{
	int fd = (int)syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int v = floor, at = 0, above = 0;
	socklen_t len = sizeof(at);
	unsigned long long jiffy, j0;
	unsigned int hz = 0;

	*why = "the kernel's HZ could not be read back";
	if (fd < 0)
		return 0;
	if (syscall(SYS_setsockopt, fd, IPPROTO_TCP, TCP_RTO_MIN_US, &v, sizeof(v)) != 0)
		*why = "the kernel refuses the floor itself";
	else if (syscall(SYS_getsockopt, fd, IPPROTO_TCP, TCP_RTO_MIN_US, &at, &len) == 0 &&
		 at > 0) {
		v = at + 1;
		len = sizeof(above);
		if (syscall(SYS_setsockopt, fd, IPPROTO_TCP, TCP_RTO_MIN_US, &v, sizeof(v)) != 0)
			*why = "the floor is already the kernel's most (200 ms)";
		else if (syscall(SYS_getsockopt, fd, IPPROTO_TCP, TCP_RTO_MIN_US, &above,
				 &len) == 0 && above > at) {
			jiffy = (unsigned long long)(above - at);
			j0 = ((unsigned long long)at + jiffy / 2) / jiffy;
			hz = (unsigned int)((j0 * 1000000ull + (unsigned long long)at / 2) /
					    (unsigned long long)at);
			if (ibnet_floor_as_kernel_takes((unsigned int)floor, hz) != (unsigned int)at)
				hz = 0;
		}
	}
	/* The spread needs the delayed ACK bounded too (ibnet_floor_delack_us). */
	v = (int)ibnet_floor_delack_us((unsigned int)floor, hz);
	if (hz && syscall(SYS_setsockopt, fd, IPPROTO_TCP, TCP_DELACK_MAX_US, &v, sizeof(v)) != 0) {
		*why = "the kernel cannot bound a socket's delayed ACKs (TCP_DELACK_MAX_US)";
		hz = 0;
	}
	syscall(SYS_close, fd);
	return hz;
}

/*
 * The seed of the process's draws: the kernel's random bytes; where it has
 * none yet (early boot) or no getrandom (before 3.17), the process and the
 * moment, which differ between the ranks of a node.
 */
static unsigned long long fresh_seed(void)
{
	unsigned long long seed;
	struct timespec now;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed))
		return seed;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return ((unsigned long long)getpid() << 32) ^
	       ((unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec);
}

/* A forked child draws a sequence of its own, not its parent's next ones. */
static void reseed_child(void)
{
	draw_seed = fresh_seed();
	draws = 0;
}

/*
 * A spread floor's companion on a socket: its ACKs held back no longer than
 * one floor for all would hold them (ibnet_floor_delack_us). Where the floor
 * is not spread, the kernel's own bound (the floor less a jiffy) is the same.
 */
static void bound_delack(int fd)
{
	int v;

	if (!kernel_hz || !next_setsockopt)
		return;
	v = (int)ibnet_floor_delack_us((unsigned int)floor_us, kernel_hz);
	next_setsockopt(fd, IPPROTO_TCP, TCP_DELACK_MAX_US, &v, sizeof(v));
}

/* The floor for the next socket: the process's next draw, spread. */
static int socket_floor(void)
{
	unsigned long long n;

	if (!kernel_hz)
		return floor_us;
	n = __atomic_add_fetch(&draws, 1, __ATOMIC_RELAXED);
	return (int)ibnet_floor_spread((unsigned int)floor_us, kernel_hz,
				       ibnet_floor_sequence_draw(draw_seed, n));
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
		ibnet_say_line("spank-ibnet tcp: %s; no retransmission floor", msg);
		return;
	}
	floor_us = (int)us;
	floor_pid = getpid();
	atexit(at_exit);
}

/*
 * The spread's set-up, at the process's first TCP socket, not at its first
 * socket of any kind: a process of the job that never makes one (a shell,
 * a tool over a Unix socket) pays nothing for it. Every spread floor comes
 * after it (a listener's accepted sockets too: the listener came first).
 */
static pthread_once_t spread_once = PTHREAD_ONCE_INIT;

static void init_spread(void)
{
	const char *v = getenv(IBNET_RTO_ENV_SPREAD);

	if (v && !ibnet_flag_on(v)) {
		unspread_why = IBNET_RTO_ENV_SPREAD " is off";
		return;
	}
	kernel_hz = learn_hz(floor_us, &unspread_why);
	if (kernel_hz) {
		draw_seed = fresh_seed();
		pthread_atfork(NULL, NULL, reseed_child);
	}
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

/*
 * A connection accepted on a listener with the floor has it (the kernel
 * copies it), and then a draw of its own: otherwise every connection a
 * listener accepts would time out on the same tick. Refused, it keeps the
 * listener's, still a floor; counted with its listener, as before.
 */
EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	int conn, listening, saved, floor;

	pthread_once(&once, init);
	if (!next_accept4) {
		errno = ENOSYS;
		return -1;
	}
	listening = fd >= 0 && fd < IBNET_FLOOR_FDS &&
		    (__atomic_load_n(&remembered[fd / 8], __ATOMIC_RELAXED) & (1u << (fd % 8)));
	conn = next_accept4(fd, addr, len, flags);
	if (conn < 0 || !listening)
		return conn;
	remember(conn);
	if (kernel_hz && next_setsockopt) {
		saved = errno;
		floor = socket_floor();
		next_setsockopt(conn, IPPROTO_TCP, TCP_RTO_MIN_US, &floor, sizeof(floor));
		bound_delack(conn);
		errno = saved;
	}
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
	int fd, saved, floor;

	pthread_once(&once, init);
	if (!next_socket) {
		errno = ENOSYS;
		return -1;
	}
	fd = next_socket(domain, type, protocol);
	if (fd < 0 || !floor_us || !next_setsockopt || !is_tcp(domain, type, protocol))
		return fd;
	saved = errno;
	pthread_once(&spread_once, init_spread);
	floor = socket_floor();
	if (next_setsockopt(fd, IPPROTO_TCP, TCP_RTO_MIN_US, &floor, sizeof(floor)) == 0) {
		__atomic_add_fetch(&floored, 1, __ATOMIC_RELAXED);
		bound_delack(fd);
		remember(fd);
	} else
		__atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
	errno = saved;
	return fd;
}
