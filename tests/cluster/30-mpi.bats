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

# mpich_algorithm NAME: "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=N", the number
# this machine's MPICH holds for algorithm NAME, learned from the probe run
# alone (a singleton, no cluster) with the variable set by name. MPICH
# numbers its algorithms by position, and positions move between releases
# (4.2 put k_brucks before pairwise: 3 on 4.0, 4 on 4.2).
mpich_algorithm() {
	MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=$1 timeout 30 "$BUILD/tests/alltoall_probe.mpich" 16 |
		grep -o 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=[0-9]*'
}

@test "the probe reads MPICH's algorithm as a number: auto is 0, and pairwise and brucks are others" {
	local auto pairwise brucks
	auto=$(mpich_algorithm auto)
	pairwise=$(mpich_algorithm pairwise)
	brucks=$(mpich_algorithm brucks)
	echo "auto: $auto pairwise: $pairwise brucks: $brucks"
	[ "$auto" = MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=0 ]
	[ -n "${pairwise#*=}" ]
	[ "$pairwise" != "$auto" ]
	[ "$pairwise" != "$brucks" ]
	[ -n "${brucks#*=}" ]
	[ "$brucks" != "$auto" ]
}

@test "tcp: Open MPI and MPICH run to completion across 3 nodes, default all-to-all" {
	run mpi_job --transport=tcp
	assert_success
	assert_line 'env tcp default'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI v[0-9].* coll_tuned_alltoall_algorithm=ignore'
	assert_line --regexp "^alltoall ok ranks=6 hosts=3 library=\"MPICH.* $(mpich_algorithm auto)\$"
}

@test "ipoib --ordered-alltoall: the paced library is preloaded and each MPI keeps its own algorithm below the threshold" {
	run mpi_job --transport=ipoib --ordered-alltoall
	assert_success
	assert_line 'env ipoib paced'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI.* coll_tuned_alltoall_algorithm=ignore'
	assert_line --regexp "^alltoall ok ranks=6 hosts=3 library=\"MPICH.* $(mpich_algorithm auto)\$"
	refute_output --partial 'WARN'
}

@test "SLURM_IBNET_ALLTOALL=pairwise: both libraries report the pairwise algorithm" {
	SLURM_IBNET_ALLTOALL=pairwise run mpi_job --transport=ipoib
	assert_success
	assert_line 'env ipoib pairwise'
	assert_line --regexp '^alltoall ok ranks=6 hosts=3 library="Open MPI.* coll_tuned_alltoall_algorithm=pairwise'
	assert_line --regexp "^alltoall ok ranks=6 hosts=3 library=\"MPICH.* $(mpich_algorithm pairwise)\$"
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
	assert_line --regexp "MPICH.* $(mpich_algorithm brucks)\$"
}

# runtime_iface: the interface list the MPI's runtime will use, as the
# runtime itself reads its variables: Open MPI 4.1's oob (ompi_info), or
# Open MPI 5's PRRTE (prte_info), whichever this stack has.
@test "the Open MPI runtime takes the job's network: oob_tcp_if_include on 4.1, PRRTE's prte_if_include on 5" {
	{
		echo '#!/bin/bash'
		echo 'if command -v prte_info >/dev/null; then'
		echo '  prte_info --all | grep -o "\"prte_if_include\" (current value: \"[^\"]*\""'
		echo 'else'
		echo '  ompi_info --param oob tcp --level 9 --parsable | grep ":oob_tcp_if_include:value:"'
		echo 'fi'
	} > "$BATS_TEST_TMPDIR/rt.sh"
	run batch "$BATS_TEST_TMPDIR/out" -N1 --transport=ipoib "$BATS_TEST_TMPDIR/rt.sh"
	assert_success
	if command -v prte_info >/dev/null; then
		assert_line '"prte_if_include" (current value: "ib0"'
	else
		assert_line 'mca:oob:tcp:param:oob_tcp_if_include:value:ib0'
	fi
}
