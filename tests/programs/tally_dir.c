/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tally_dir.c - the plugin's tally directory life, without Slurm, for
 * tests/unit/tally.bats: what user_init makes (as the user) and what
 * slurm_spank_exit collects (as root), through the same ibnet_tally.c.
 *
 *   tally_dir make PREFIX                 -> "PATH DEV INO UID"
 *   tally_dir collect PATH DEV INO UID    -> the node's log line, or the refusal (exit 1)
 *   tally_dir discard PATH DEV INO UID
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_tally.h"

static int record(struct ibnet_tally_dir *d, char **argv)
{
	unsigned long long dev, ino;
	unsigned long uid;

	if (snprintf(d->path, sizeof(d->path), "%s", argv[0]) >= (int)sizeof(d->path) ||
	    sscanf(argv[1], "%llu", &dev) != 1 || sscanf(argv[2], "%llu", &ino) != 1 ||
	    sscanf(argv[3], "%lu", &uid) != 1)
		return -1;
	d->dev = (dev_t)dev;
	d->ino = (ino_t)ino;
	d->uid = (uid_t)uid;
	return 0;
}

int main(int argc, char **argv)
{
	struct ibnet_tally_dir d;
	struct ibnet_tally t = { 0 };
	char line[2048];

	if (argc == 3 && !strcmp(argv[1], "make")) {
		if (ibnet_tally_dir_make(&d, argv[2]) < 0) {
			printf("not made: %s; path='%s'\n", strerror(errno), d.path);
			return 1;
		}
		printf("%s %llu %llu %lu\n", d.path, (unsigned long long)d.dev,
		       (unsigned long long)d.ino, (unsigned long)d.uid);
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "collect") && record(&d, argv + 2) == 0) {
		if (ibnet_tally_collect(&t, &d, line, sizeof(line)) < 0) {
			puts(line);
			return 1;
		}
		ibnet_tally_log_line(&t, d.path, line, sizeof(line));
		puts(line);
		return 0;
	}
	if (argc == 6 && !strcmp(argv[1], "discard") && record(&d, argv + 2) == 0) {
		ibnet_tally_dir_discard(&d);
		return 0;
	}
	fputs("usage: tally_dir make PREFIX | collect|discard PATH DEV INO UID\n", stderr);
	return 2;
}
