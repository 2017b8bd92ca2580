/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * swap_on_realpath.c - a preload for the BPF tier's loader test
 * (tests/unit/tcp-floor-bpf.bats): realpath() of SWAP_LINK resolves it as it
 * stands, then swaps the symbolic link to point at SWAP_TO, as a user
 * swapping it in a loop would between root's check and root's open. The
 * swap is made once per process, by a rename over the link (atomic).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* After path resolved to r: the swap, once. */
static void swap_after(const char *path, const char *r)
{
	static int swapped;
	const char *link = getenv("SWAP_LINK"), *to = getenv("SWAP_TO");
	char tmp[4096];

	if (r && link && to && !swapped && !strcmp(path, link)) {
		swapped = 1;
		snprintf(tmp, sizeof(tmp), "%s.swap", link);
		unlink(tmp);
		if (symlink(to, tmp) == 0 && rename(tmp, link) == 0)
			fprintf(stderr, "swap_on_realpath: %s now points at %s\n", link, to);
	}
}

char *realpath(const char *path, char *resolved)
{
	static char *(*next)(const char *, char *);
	char *r;

	if (!next)
		next = (char *(*)(const char *, char *))dlsym(RTLD_NEXT, "realpath");
	r = next(path, resolved);
	swap_after(path, r);
	return r;
}

/* What a caller built with _FORTIFY_SOURCE calls instead, where the buffer's size is known. */
char *__realpath_chk(const char *path, char *resolved, size_t len)
{
	static char *(*next)(const char *, char *, size_t);
	char *r;

	if (!next)
		next = (char *(*)(const char *, char *, size_t))dlsym(RTLD_NEXT, "__realpath_chk");
	r = next(path, resolved, len);
	swap_after(path, r);
	return r;
}
