/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_preload.h - the one rule for our libraries in LD_PRELOAD: after the
 * user's, each listed once (a library of the same name already there, at
 * any path and with any version suffix, is not added again: two copies would
 * clash); the job preload
 * (paced all-to-all, TCP floor) first, so that its socket() sees every
 * socket and passes each on down the chain; for rsocket the gate before
 * librspreload (its socket() decides). The plugin and linda-rsockets (through
 * ibnet-hosts --probe's ld_preload=) both compose it here; plan_preload is
 * its part of a step's plan (ibnet_planner.h lists every part).
 */
#ifndef IBNET_PRELOAD_H
#define IBNET_PRELOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "ibnet_job.h"

struct planner;		/* ibnet_planner.h: the plan's inside, not for ibnet-hosts */

/* LD_PRELOAD's entries into list. -1 when out of memory. */
int ibnet_preload_split(struct ibnet_strvec *list, const char *ld_preload);

/*
 * The entry of list that is the library lib (the same file name up to
 * ".so", at any path), or NULL.
 */
const char *ibnet_preload_find(const struct ibnet_strvec *list, const char *lib);

/* Our libraries for this step, in their order; returns how many (0..3). */
size_t ibnet_preload_ours(const struct ibnet_job *job, bool job_preload, const char *ours[3]);

/*
 * cur (the job's LD_PRELOAD, or NULL) with each of ours[0..n) that is not
 * already in it (ibnet_preload_find) appended, ':'-separated. *out is malloc'd, or NULL when
 * there is nothing at all. -1 when out of memory.
 */
int ibnet_preload_compose(const char *cur, const char *const *ours, size_t n, char **out);

/* The step's LD_PRELOAD: ours for this step (job_preload: the job preload too), by this rule. */
void plan_preload(struct planner *pl, const struct ibnet_job *job, bool job_preload);

#endif
