/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rsocket_gate.c - preloaded before librspreload in --transport=rsocket jobs.
 *
 * librspreload (rdma-core) replaces socket and I/O calls of every program it
 * is preloaded into: 26 in rdma-core 44 (Debian 12), 34 in its newest
 * release; rspreload_calls.h lists them all. That is what the Linda executables need, and what
 * most other programs of a job must be spared, for reasons found in
 * rdma-core 44 (Debian 12):
 *
 * - Its wrappers of getpeername(), getsockopt(), setsockopt(), send(),
 *   recv() and shutdown() use its table of libc functions before it is
 *   filled (that happens on the first socket(), read(), write(), close()...),
 *   so bash up to 5.2, which calls getpeername(0) at start-up, dies with
 *   SIGSEGV (still so in rdma-core 65; bash 5.3 no longer makes that call).
 * - Its select()/poll() run rpoll(), which can spin on sched_yield() for
 *   ever in a multithreaded program: Open MPI's mpirun hung at exit with its
 *   runtime thread there, on kernel sockets only.
 * - On a real RDMA network, Slurm's own commands would try rsockets towards
 *   daemons that do not speak them, and fall back slowly.
 *
 * So this library defines every call of every release ahead of
 * librspreload (the plugin's probe refuses a librspreload exporting one it
 * does not know). For a program whose name matches
 * SLURM_IBNET_RSOCKET_PROGRAMS (comma-separated fnmatch patterns; default
 * "*.exel", Gaussian's Linda executables) each call goes on to librspreload,
 * and the constructor fills librspreload's table with close(-1). For every
 * other program each call goes straight to libc: librspreload is loaded but
 * never runs.
 *
 * For the chosen programs, select() is served through librspreload's poll()
 * when librspreload predates rdma-core 63: its own select() there maps the
 * ready descriptors back wrongly and can report the wrong sockets as ready
 * (fixed upstream in 63, "librdmacm: Fix select function"). rdma-core 63 is
 * also the release that added accept4, so a librspreload that exports
 * accept4 keeps its own select().
 *
 * SLURM_IBNET_RSOCKET_DEBUG=1 prints the decision for each program to stderr;
 * unset, empty, 0, no, off or false keep it quiet.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ibnet_job_vars.h"
#include "ibnet_say_line.h"
#include "rspreload_calls.h"

/* Where each call goes: librspreload (RTLD_NEXT) or libc, decided once. */
static struct {
#define X(ret, name, params, args) ret(*name) params;
	RSPRELOAD_CALLS(X)
#undef X
	int (*select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
	int (*fcntl)(int, int, ...);
	int (*fcntl64)(int, int, ...);
} next;
static volatile int resolved;
static int chosen;
static int select_via_poll;	/* chosen, and librspreload's select() is wrong */

/* Does prog match one of the comma-separated fnmatch patterns? */
static int program_chosen(const char *patterns, const char *prog)
{
	const char *p = patterns;

	while (*p) {
		size_t n = strcspn(p, ",");
		char pat[256];

		if (n > 0 && n < sizeof(pat)) {
			memcpy(pat, p, n);
			pat[n] = '\0';
			if (fnmatch(pat, prog, 0) == 0)
				return 1;
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* Do two symbols come from the same loaded library (here: librspreload)? */
static int same_library(void *a, void *b)
{
	Dl_info ia, ib;

	return a && b && dladdr(a, &ia) && dladdr(b, &ib) && ia.dli_fbase == ib.dli_fbase;
}

/*
 * Idempotent: threads racing here compute the same table, so no lock (a
 * lock could deadlock if dlsym ever called back into us).
 */
static void resolve(void)
{
	const char *patterns = getenv(IBNET_RSOCKET_PROGRAMS_VAR);
	void *lib;

	chosen = program_chosen(patterns ? patterns : IBNET_RSOCKET_PROGRAMS_DEFAULT,
				program_invocation_short_name);
	lib = chosen ? RTLD_NEXT : dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!lib)
		lib = RTLD_NEXT;	/* no libc.so.6 by that name: behave as before */
#define X(ret, name, params, args) next.name = (ret(*) params)dlsym(lib, #name);
	RSPRELOAD_CALLS(X)
#undef X
	next.select = (int (*)(int, fd_set *, fd_set *, fd_set *, struct timeval *))
		dlsym(lib, "select");
	next.fcntl = (int (*)(int, int, ...))dlsym(lib, "fcntl");
	next.fcntl64 = (int (*)(int, int, ...))dlsym(lib, "fcntl64");
	if (chosen)
		select_via_poll = !same_library(next.socket, dlsym(RTLD_NEXT, "accept4"));
	__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

#define NEXT(name) (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) ? next.name : (resolve(), next.name))

#define X(ret, name, params, args) \
	ret name params { return NEXT(name) args; }
RSPRELOAD_CALLS(X)
#undef X

/* fcntl's third argument is an int or a pointer; passing it on as a
 * pointer-sized value is what the variadic ABI allows (glibc does it too). */
#define VARIADIC_FCNTL(name)                             \
	int name(int fd, int cmd, ...)                   \
	{                                                \
		va_list ap;                              \
		void *arg;                               \
                                                         \
		va_start(ap, cmd);                       \
		arg = va_arg(ap, void *);                \
		va_end(ap);                              \
		return NEXT(name)(fd, cmd, arg);         \
	}
VARIADIC_FCNTL(fcntl)
VARIADIC_FCNTL(fcntl64)
#undef VARIADIC_FCNTL

/* Linux select()'s sets in poll() terms (fs/select.c: POLLIN_SET and friends). */
#define READ_READY (POLLIN | POLLRDNORM | POLLRDBAND | POLLHUP | POLLERR)
#define WRITE_READY (POLLOUT | POLLWRNORM | POLLWRBAND | POLLERR)
#define EXCEPT_READY (POLLPRI)

/*
 * A select() timeout as poll()'s milliseconds, rounded up. Linux's select
 * takes any tv_usec (it carries whole seconds over), so both fields may be
 * huge: anything past INT_MAX ms (24 days) waits INT_MAX ms, where the sum
 * would wrap into a negative timeout, which poll() takes as "forever".
 */
static int poll_timeout(const struct timeval *tv)
{
	long long ms;

	if (tv->tv_sec > INT_MAX / 1000 || tv->tv_usec / 1000000 > INT_MAX / 1000)
		return INT_MAX;
	ms = (long long)tv->tv_sec * 1000 + ((long long)tv->tv_usec + 999) / 1000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

/*
 * select() through the poll() that follows us (librspreload's rpoll for the
 * chosen programs), mapping each result back to the caller's own
 * descriptor. The timeout is not updated with the time left (POSIX allows
 * either; callers that loop on it re-arm it).
 */
static int select_through_poll(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	struct pollfd *fds;
	int fd, n = 0, i, rc, timeout = -1, ready = 0;

	if (nfds < 0 || nfds > FD_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	if (tv) {
		if (tv->tv_sec < 0 || tv->tv_usec < 0) {
			errno = EINVAL;
			return -1;
		}
		timeout = poll_timeout(tv);
	}
	fds = calloc((size_t)(nfds ? nfds : 1), sizeof(*fds));
	if (!fds) {
		errno = ENOMEM;
		return -1;
	}
	for (fd = 0; fd < nfds; fd++) {
		short ev = (short)((r && FD_ISSET(fd, r) ? POLLIN : 0) |
				   (w && FD_ISSET(fd, w) ? POLLOUT : 0) |
				   (e && FD_ISSET(fd, e) ? POLLPRI : 0));
		if (ev) {
			fds[n].fd = fd;
			fds[n++].events = ev;
		}
	}
	rc = NEXT(poll)(fds, (nfds_t)n, timeout);
	if (rc < 0) {
		free(fds);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (fds[i].revents & POLLNVAL) {
			free(fds);
			errno = EBADF;
			return -1;
		}
	}
	if (r)
		FD_ZERO(r);
	if (w)
		FD_ZERO(w);
	if (e)
		FD_ZERO(e);
	for (i = 0; i < n; i++) {
		short got = fds[i].revents;

		if (r && (fds[i].events & POLLIN) && (got & READ_READY)) {
			FD_SET(fds[i].fd, r);
			ready++;
		}
		if (w && (fds[i].events & POLLOUT) && (got & WRITE_READY)) {
			FD_SET(fds[i].fd, w);
			ready++;
		}
		if (e && (fds[i].events & POLLPRI) && (got & EXCEPT_READY)) {
			FD_SET(fds[i].fd, e);
			ready++;
		}
	}
	free(fds);
	return ready;
}

int select(int nfds, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	if (!select_via_poll)
		return next.select(nfds, r, w, e, tv);
	return select_through_poll(nfds, r, w, e, tv);
}

__attribute__((constructor)) static void gate_init(void)
{
	if (!__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
		resolve();
	if (chosen) {
		int saved = errno;

		close(-1);	/* fills librspreload's table; EBADF is expected */
		errno = saved;
	}
	if (ibnet_flag_on(getenv(IBNET_RSOCKET_DEBUG_VAR)))
		ibnet_say_line("spank-ibnet rsgate: %s: %s%s", program_invocation_short_name,
			chosen ? "sockets through librspreload" : "kernel sockets",
			select_via_poll ? ", select() through its poll()" : "");
}
