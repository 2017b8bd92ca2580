/*
 * rsocket_gate.c - preloaded before librspreload in --transport=rsocket jobs.
 *
 * librspreload (rdma-core) replaces 26 socket and I/O calls of every program
 * it is preloaded into. That is what the Linda executables need, and what
 * most other programs of a job must be spared, for reasons found in
 * rdma-core 44 (Debian 12):
 *
 * - Its wrappers of getpeername(), getsockopt(), setsockopt(), send(),
 *   recv() and shutdown() use its table of libc functions before it is
 *   filled (that happens on the first socket(), read(), write(), close()...),
 *   so bash, which calls getpeername(0) at start-up, dies with SIGSEGV.
 * - Its select()/poll() run rpoll(), which can spin on sched_yield() for
 *   ever in a multithreaded program: Open MPI's mpirun hung at exit with its
 *   runtime thread there, on kernel sockets only.
 * - On a real RDMA network, Slurm's own commands would try rsockets towards
 *   daemons that do not speak them, and fall back slowly.
 *
 * So this library defines the same 26 calls ahead of librspreload. For a
 * program whose name matches SLURM_IBNET_RSOCKET_PROGRAMS (comma-separated
 * fnmatch patterns; default "*.exel", Gaussian's Linda executables) each
 * call goes on to librspreload, and the constructor fills librspreload's
 * table with close(-1). For every other program each call goes straight to
 * libc: librspreload is loaded but never runs.
 *
 * SLURM_IBNET_RSOCKET_DEBUG=1 prints the decision for each program to stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define DEFAULT_PROGRAMS "*.exel"

/* The calls librspreload replaces: X(return type, name, parameters, arguments). */
#define RSPRELOAD_CALLS(X)                                                                  \
	X(int, socket, (int d, int t, int p), (d, t, p))                                     \
	X(int, bind, (int s, const struct sockaddr *a, socklen_t l), (s, a, l))              \
	X(int, listen, (int s, int b), (s, b))                                               \
	X(int, accept, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))                 \
	X(int, connect, (int s, const struct sockaddr *a, socklen_t l), (s, a, l))           \
	X(ssize_t, recv, (int s, void *b, size_t n, int f), (s, b, n, f))                    \
	X(ssize_t, recvfrom, (int s, void *b, size_t n, int f, struct sockaddr *a,           \
			      socklen_t *l), (s, b, n, f, a, l))                             \
	X(ssize_t, recvmsg, (int s, struct msghdr *m, int f), (s, m, f))                     \
	X(ssize_t, read, (int s, void *b, size_t n), (s, b, n))                              \
	X(ssize_t, readv, (int s, const struct iovec *v, int n), (s, v, n))                  \
	X(ssize_t, send, (int s, const void *b, size_t n, int f), (s, b, n, f))              \
	X(ssize_t, sendto, (int s, const void *b, size_t n, int f,                           \
			    const struct sockaddr *a, socklen_t l), (s, b, n, f, a, l))      \
	X(ssize_t, sendmsg, (int s, const struct msghdr *m, int f), (s, m, f))               \
	X(ssize_t, write, (int s, const void *b, size_t n), (s, b, n))                       \
	X(ssize_t, writev, (int s, const struct iovec *v, int n), (s, v, n))                 \
	X(int, poll, (struct pollfd *f, nfds_t n, int t), (f, n, t))                         \
	X(int, select, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t),          \
	  (n, r, w, e, t))                                                                   \
	X(int, shutdown, (int s, int h), (s, h))                                             \
	X(int, close, (int s), (s))                                                          \
	X(int, getpeername, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))            \
	X(int, getsockname, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))            \
	X(int, setsockopt, (int s, int lv, int o, const void *v, socklen_t l),               \
	  (s, lv, o, v, l))                                                                  \
	X(int, getsockopt, (int s, int lv, int o, void *v, socklen_t *l), (s, lv, o, v, l))  \
	X(int, dup2, (int a, int b), (a, b))                                                 \
	X(ssize_t, sendfile, (int o, int i, off_t *p, size_t n), (o, i, p, n))

/* Where each call goes: librspreload (RTLD_NEXT) or libc, decided once. */
static struct {
#define X(ret, name, params, args) ret(*name) params;
	RSPRELOAD_CALLS(X)
#undef X
	int (*fcntl)(int, int, ...);
} next;
static volatile int resolved;
static int chosen;

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

/*
 * Idempotent: threads racing here compute the same table, so no lock (a
 * lock could deadlock if dlsym ever called back into us).
 */
static void resolve(void)
{
	const char *patterns = getenv("SLURM_IBNET_RSOCKET_PROGRAMS");
	void *lib;

	chosen = program_chosen(patterns ? patterns : DEFAULT_PROGRAMS,
				program_invocation_short_name);
	lib = chosen ? RTLD_NEXT : dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	if (!lib)
		lib = RTLD_NEXT;	/* no libc.so.6 by that name: behave as before */
#define X(ret, name, params, args) next.name = (ret(*) params)dlsym(lib, #name);
	RSPRELOAD_CALLS(X)
#undef X
	next.fcntl = (int (*)(int, int, ...))dlsym(lib, "fcntl");
	__atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}

#define NEXT(name) (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE) ? next.name : (resolve(), next.name))

#define X(ret, name, params, args) \
	ret name params { return NEXT(name) args; }
RSPRELOAD_CALLS(X)
#undef X

/* fcntl's third argument is an int or a pointer; passing it on as a
 * pointer-sized value is what the variadic ABI allows (glibc does it too). */
int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	return NEXT(fcntl)(fd, cmd, arg);
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
	if (getenv("SLURM_IBNET_RSOCKET_DEBUG"))
		fprintf(stderr, "spank-ibnet rsgate: %s: %s\n", program_invocation_short_name,
			chosen ? "sockets through librspreload" : "kernel sockets");
}
