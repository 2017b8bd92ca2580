/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_tally.h - what a paced step's processes did with their all-to-all
 * calls, summed for the node's log line (IBNET_A2A_ENV_TALLY in
 * alltoall/ibnet_a2a_settings.h says who writes what). No Slurm here: the
 * plugin calls it at the step's end, ibnet-hosts --tally reads a directory
 * the same way for tests and for an admin.
 */
#ifndef IBNET_TALLY_H
#define IBNET_TALLY_H

#include <stddef.h>

#define IBNET_TALLY_ROWS 32	/* distinct (call kind, route) pairs kept */
#define IBNET_TALLY_NAME 64

struct ibnet_tally_row {
	char kind[IBNET_TALLY_NAME], route[IBNET_TALLY_NAME];
	unsigned long count;
};

struct ibnet_tally {
	struct ibnet_tally_row row[IBNET_TALLY_ROWS];
	int rows;
	unsigned files;		/* processes that left a file */
	unsigned skipped;	/* entries that were not a plain file of valid lines */
};

/* Add one "KIND\tROUTE\tCOUNT" line; -1 if it is not one. */
int ibnet_tally_add_line(struct ibnet_tally *t, const char *line);

/*
 * Read every file of the directory at path (at most a bounded number, each
 * at most a few KiB, never following a link), add them up, and remove them
 * and the directory when remove is set. 0, or -1 with errno if the directory
 * cannot be opened.
 */
int ibnet_tally_collect(struct ibnet_tally *t, const char *path, int remove);

/*
 * The sum as one line: "MPI_Alltoall: 24 calls: 0 paced, 24 below the
 * threshold; MPI_Alltoallv: ..." (kinds and routes in name order, "paced"
 * first in each, as the library's own report has it). Empty when nothing was counted.
 */
void ibnet_tally_describe(const struct ibnet_tally *t, char *buf, size_t len);

#endif
