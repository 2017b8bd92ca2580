/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_preload.h - the one rule for our libraries in LD_PRELOAD: after the
 * user's, each listed once (a library of the same file name already there,
 * at any path, is not added again: two copies would clash); the job preload
 * (paced all-to-all, TCP floor) first, so that its socket() sees every
 * socket and passes each on down the chain; for rsocket the gate before
 * librspreload (its socket() decides). The plugin and linda-rsockets (through
 * ibnet-hosts --probe's ld_preload=) both compose it here.
 */
#ifndef IBNET_PRELOAD_H
#define IBNET_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "ibnet_job.h"

/* Our libraries for this step, in their order; returns how many (0..3). */
size_t ibnet_preload_ours(const struct ibnet_job *job, bool job_preload, const char *ours[3]);

/*
 * cur (the job's LD_PRELOAD, or NULL) with each of ours[0..n) whose file
 * name is not already in it appended, ':'-separated. *out is malloc'd, or NULL when
 * there is nothing at all. -1 when out of memory.
 */
int ibnet_preload_compose(const char *cur, const char *const *ours, size_t n, char **out);

#endif
