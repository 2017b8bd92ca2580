/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tally.h - what a paced step's processes did with their all-to-all
 * calls, summed for the node's log line (IBNET_A2A_ENV_TALLY in
 * contract/ibnet_a2a_settings.h says who writes what). No Slurm here: the
 * plugin calls it at the step's end, ibnet-hosts --tally reads a directory
 * the same way for tests and for an admin.
 */
#ifndef IBNET_TALLY_H
#define IBNET_TALLY_H

#include <stddef.h>
#include <sys/types.h>

#include "ibnet_a2a_settings.h"	/* contract/: the tally's format */

/* Distinct (kind, route) pairs kept: each call kind's routes, the window's
 * and floor's rows, and a row per size class and route of the route by
 * measurement (up to 2 x 31 classes). */
#define IBNET_TALLY_ROWS 128
#define IBNET_TALLY_NAME 64
#define IBNET_TALLY_MAX_READ 4096	/* files read for the sum, per step and node */
#define IBNET_TALLY_MAX_REMOVE 65536	/* entries removed at the step's end, in all */
#define IBNET_TALLY_MAX_DEPTH 4	/* subdirectories removed this deep, no deeper */

struct ibnet_tally_row {
	char kind[IBNET_TALLY_NAME], route[IBNET_TALLY_NAME];
	unsigned long count;
};

struct ibnet_tally {
	struct ibnet_tally_row row[IBNET_TALLY_ROWS];
	int rows;
	unsigned files;		/* processes that left a file with all-to-all counts */
	unsigned floor_files;	/* processes that left a file of their floored sockets (tcp.*) */
	unsigned skipped;	/* entries that were not a plain file of valid lines */
	unsigned unread;	/* entries past IBNET_TALLY_MAX_READ */
	unsigned left;		/* entries not removed (not the user's own, or past a bound) */
	int dir_removed;	/* the directory itself went */
};

/*
 * A step's tally directory as it was made, by the job's user: the root side
 * touches only this directory (device, inode, owner), whatever its name
 * comes to hold later.
 */
struct ibnet_tally_dir {
	char path[64];
	dev_t dev;
	ino_t ino;
	uid_t uid;
};

/*
 * The job preload's retransmission floor writes its sums as rows of this
 * kind (alltoall/ibnet_tcp_floor.c), in files named tcp.*: "floor\tsockets\tN",
 * "floor\ttimeouts\tN", "floor\tretransmitted\tN". They are not calls: the
 * all-to-all line leaves them out, ibnet_tally_floor sums them.
 */
#define IBNET_TALLY_FLOOR_KIND IBNET_A2A_TALLY_FLOOR_KIND
#define IBNET_TALLY_FLOOR_FILE IBNET_A2A_TALLY_FLOOR

/* The floor's rows: sockets given it, timeouts and segments retransmitted on them. */
void ibnet_tally_floor(const struct ibnet_tally *t, unsigned long *sockets,
		       unsigned long *timeouts, unsigned long *retransmitted);

/* Add one "KIND\tROUTE\tCOUNT" line; -1 if it is not one. */
int ibnet_tally_add_line(struct ibnet_tally *t, const char *line);

/*
 * Make a new directory prefix + 6 random characters (mkdtemp), as the
 * calling user, and record what it is. 0, or -1 with errno and d->path
 * empty: nothing was made, and nothing is to be removed.
 */
int ibnet_tally_dir_make(struct ibnet_tally_dir *d, const char *prefix);

/*
 * Remove a directory just made and never handed to the step (it is empty),
 * only if its name still leads to it. d->path is emptied.
 */
void ibnet_tally_dir_discard(struct ibnet_tally_dir *d);

/*
 * Read every file of the directory at path (at most IBNET_TALLY_MAX_READ,
 * each at most a few KiB, never following a link) and add them up; nothing
 * is removed (ibnet-hosts --tally). 0, or -1 with errno if the directory
 * cannot be opened.
 */
int ibnet_tally_read(struct ibnet_tally *t, const char *path);

/*
 * The step's end, as root: open d->path, and only if it is still the
 * directory d recorded (device, inode, owner), add up its files as
 * ibnet_tally_read does, remove the job user's own plain files and
 * subdirectories in it (never anything else, never by a path not checked),
 * and the directory itself. 0, or -1 with a sentence in why (then nothing
 * was read or removed).
 */
int ibnet_tally_collect(struct ibnet_tally *t, const struct ibnet_tally_dir *d, char *why,
			size_t len);

/*
 * The sum as one line: "MPI_Alltoall: 24 calls: 0 paced, 24 below the
 * threshold; MPI_Alltoallv: ..." (kinds and routes in name order, "paced"
 * first in each, as the library's own report has it). Empty when nothing was counted.
 */
void ibnet_tally_describe(const struct ibnet_tally *t, char *buf, size_t len);

/*
 * The window's rows (alltoall_window=auto), as the node's second line for a
 * paced step (after ibnet_tally_log_line's): "window reached 64 KiB to 4 MiB
 * (auto); least credit round trip 120 us; 1 call with loss". Empty when no
 * process wrote them.
 */
void ibnet_tally_window(const struct ibnet_tally *t, char *buf, size_t len);

/*
 * The route by measurement's rows (alltoall/ibnet_a2a_choice.h), a third
 * line: "route by measurement, blocks from: 1 MiB own by 4 processes, 4 KiB
 * paced by 4 processes" (each size class by its least block, the route its
 * processes chose last). Empty when no process chose one.
 */
void ibnet_tally_routes(const struct ibnet_tally *t, char *buf, size_t len);

/*
 * The node's log line for a paced step's end, after "job 12 step 0 on c1:
 * ": the sum and how many processes left it, or that none did (a process
 * that does not load the job preload, such as a static binary or one started
 * by a launcher that drops LD_PRELOAD, leaves nothing), and what was skipped
 * or left behind in path.
 */
void ibnet_tally_log_line(const struct ibnet_tally *t, const char *path, char *buf, size_t len);

#endif
