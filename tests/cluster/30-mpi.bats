#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Real Open MPI (mpirun inside the allocation) and MPICH (Hydra mpiexec) with
# each transport; the library itself reports its all-to-all algorithm
# through MPI_T (tests/programs/alltoall_probe.c).

CLUSTER_NODES=3
load ../helpers/common
load ../helpers/cluster

mpi_job() {
	{
		echo '#!/bin/bash'
		echo 'echo "env $SLURM_IBNET_TRANSPORT $SLURM_IBNET_ALLTOALL"'
		echo "timeout 90 mpirun.openmpi -np 6 $BUILD/tests/alltoall_probe.openmpi 4096"
		echo "timeout 90 mpiexec.mpich -n 6 $BUILD/tests/alltoall_probe.mpich 4096"
	} > "$BATS_TEST_TMPDIR/mpi.sh"
	batch "$BATS_TEST_TMPDIR/out" -N3 -n6 "$@" "$BATS_TEST_TMPDIR/mpi.sh"
}

@test "tcp: Open MPI and MPICH run to completion across 3 nodes, default all-to-all" {
	run mpi_job --transport=tcp
	assert_success
	assert_line 'env tcp default'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI v4\.1.* coll_tuned_alltoall_algorithm=ignore'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="MPICH.* MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=auto'
}

@test "ipoib --ordered-alltoall: the paced library is preloaded and each MPI keeps its own algorithm below the threshold" {
	run mpi_job --transport=ipoib --ordered-alltoall
	assert_success
	assert_line 'env ipoib paced'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI.* coll_tuned_alltoall_algorithm=ignore'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="MPICH.* MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=auto'
	refute_output --partial 'WARN'
}

@test "SLURM_IBNET_ALLTOALL=pairwise: both libraries report the pairwise algorithm" {
	SLURM_IBNET_ALLTOALL=pairwise run mpi_job --transport=ipoib
	assert_success
	assert_line 'env ipoib pairwise'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI.* coll_tuned_alltoall_algorithm=pairwise'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="MPICH.* MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise'
	refute_output --partial 'WARN'
}

@test "rsocket: both libraries run to completion with librspreload in the environment" {
	run mpi_job --transport=rsocket
	assert_success
	assert_line 'env rsocket default'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="MPICH'
}

@test "the user's own alltoall setting wins over --ordered-alltoall" {
	OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_alltoall_algorithm=3 \
		MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks run mpi_job --transport=tcp --ordered-alltoall
	assert_success
	assert_line --regexp 'coll_tuned_alltoall_algorithm=modified_bruck'
	assert_line --regexp 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks'
}
