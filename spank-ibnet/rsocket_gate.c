/*
 * rsocket_gate.c - preloaded before librspreload in --transport=rsocket jobs.
 *
 * Two jobs, both found by reading rdma-core's librdmacm/preload.c:
 *
 * 1. librspreload fills its table of libc functions lazily, on the first
 *    socket(), read(), write(), close() (and a few others). Its wrappers of
 *    getpeername(), getsockopt(), setsockopt(), send(), recv() and
 *    shutdown() call through that table without filling it, so a program
 *    whose first socket call is one of those dies with SIGSEGV. bash is
 *    one: isnetconn() calls getpeername(0) at start-up. Our constructor
 *    calls close(-1), which goes through librspreload's close() and fills
 *    the table before main() runs.
 *
 * 2. Only librspreload's socket() turns a descriptor into an rsocket
 *    (accept() merely follows a listener that already is one). So this
 *    library defines socket() ahead of it and forwards to librspreload only
 *    for programs whose name matches SLURM_IBNET_RSOCKET_PROGRAMS (comma-
 *    separated fnmatch patterns, default "*.exel": Gaussian's Linda
 *    executables). Every other program, srun and scontrol among them, gets
 *    the kernel's socket, and librspreload's other wrappers pass its
 *    descriptors straight to libc.
 *
 * SLURM_IBNET_RSOCKET_DEBUG=1 prints the decision for each program to stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DEFAULT_PROGRAMS "*.exel"

typedef int (*socket_fn)(int, int, int);

/* librspreload's socket() for chosen programs; NULL: the kernel's. */
static socket_fn rsocket_socket;

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

__attribute__((constructor)) static void gate_init(void)
{
	const char *patterns = getenv("SLURM_IBNET_RSOCKET_PROGRAMS");
	int saved = errno;

	close(-1);	/* fills librspreload's table; EBADF is expected */
	errno = saved;
	if (!patterns)
		patterns = DEFAULT_PROGRAMS;
	if (program_chosen(patterns, program_invocation_short_name))
		rsocket_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	if (getenv("SLURM_IBNET_RSOCKET_DEBUG"))
		fprintf(stderr, "spank-ibnet rsgate: %s: %s\n", program_invocation_short_name,
			rsocket_socket ? "sockets through librspreload" : "kernel sockets");
}

int socket(int domain, int type, int protocol)
{
	if (rsocket_socket)
		return rsocket_socket(domain, type, protocol);
	return (int)syscall(SYS_socket, domain, type, protocol);
}
