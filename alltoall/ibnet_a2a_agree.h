/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_a2a_agree.h - one route per communicator for every rank
 * (ibnet_a2a_agree.c).
 */
#ifndef IBNET_A2A_AGREE_H
#define IBNET_A2A_AGREE_H

#include <stdbool.h>
#include <stdint.h>

#include "ibnet_a2a_host.h"
#include "ibnet_a2a_settings.h"	/* enum ibnet_a2a_abi */

/*
 * Once, before the first agreement: the process's MPI ABI (as the
 * dispatcher found it) and whether a paced build serves it here. Without an ABI we know, there is nothing to
 * agree with (every rank of a job runs the same MPI library): every
 * communicator is IBNET_A2A_AGREED and the build's own checks decide.
 */
void ibnet_a2a_agree_setup(enum ibnet_a2a_abi abi, bool have_build);

/* Collective over comm on its first call there (ibnet_a2a_host.h). */
enum ibnet_a2a_verdict ibnet_a2a_agree(uintptr_t comm);

/*
 * What a process brings to the agreement about its settings: a hash of
 * every variable that can change a rank's route (SLURM_IBNET_ALLTOALL*,
 * but not _REPORT or _TALLY, and the MPI algorithm choices the paced scheme
 * stands aside for), in 31 bits. vars is an environ-style list.
 */
int ibnet_a2a_settings_hash(char *const *vars);

#endif
