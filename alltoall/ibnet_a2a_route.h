/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_route.h - where a call goes and why (ibnet_a2a_route.c): the
 * checks every rank reaches alike, the ranks' agreement, the sizes, the
 * fan-in rule and the window the ranks agreed.
 */
#ifndef IBNET_A2A_ROUTE_H
#define IBNET_A2A_ROUTE_H

#include <stdbool.h>

#include "ibnet_a2a_comm.h"
#include "ibnet_a2a_host.h"
#include "ibnet_a2a_pack.h"
#include "ibnet_a2a_report.h"

/* Read the settings and set up once, from the first call of any kind. */
void a2a_init(void);

/*
 * Where a call goes, counted under its kind (uniform: MPI_Alltoall's one
 * block size; wide: this rank's counts or displacements pass an int). *ci
 * is set for a paced route. A failure is reported and its code returned.
 */
int call_route(enum kind k, MPI_Comm comm, const struct a2a_side *send,
	       const struct a2a_side *recv, bool uniform, bool wide, enum route *route,
	       struct comm_info **ci);
/* The route of an agreement's verdict that is not to pace. */
enum route verdict_route(enum ibnet_a2a_verdict v);
/* MPI_Ialltoall(v): always the MPI's own, counted. */
enum route nonblocking_route(void);
/*
 * After a paced call, with alltoall_window=auto, after the communicator's
 * first paced calls and now and then later: the ranks agree the window the
 * next calls' routes are taken from (collective, every rank alike).
 */
int window_agree(struct comm_info *ci);
/*
 * After every call that call_route gave a route (any route; collective where
 * the route's class measured it, ibnet_a2a_choice.h): the route by
 * measurement hears the call's figures.
 */
int choice_done(struct comm_info *ci);
/* After a call "within the window" (collective): now and then, whether such
 * calls lose packets; if so, they are paced again. */
int window_watch(struct comm_info *ci);

#endif
