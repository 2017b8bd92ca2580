/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hide_rto_min.c - a test preload that makes this kernel look older: the
 * TCP_RTO_MIN_US socket option (Linux 6.15) is refused with ENOPROTOOPT,
 * as a kernel without it refuses an unknown TCP option. Preloaded into
 * ibnet-hosts, or into one test node's slurmd (ibnet-cluster up
 * --node-preload), it hides the feature from the plugin's probe.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

int setsockopt(int fd, int level, int name, const void *value, socklen_t len)
{
	int (*next)(int, int, int, const void *, socklen_t) =
		(int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");

	if (level == IPPROTO_TCP && name == 45) {	/* TCP_RTO_MIN_US */
		errno = ENOPROTOOPT;
		return -1;
	}
	return next(fd, level, name, value, len);
}
