#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The paced all-to-all (alltoall/) without Slurm: what the plugin plans for
# --ordered-alltoall (ibnet-hosts --env, the plugin's own code), and the
# library inside real Open MPI and MPICH programs on this machine.
#
# Simulated: MPI sees this machine as one node, and a job whose ranks are
# all on one node is handed to the MPI's own all-to-all (nothing to pace).
# So the library runs here with SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE=K,
# which groups each K consecutive ranks into a pretend node. The cluster
# tests (tests/cluster/35-alltoall.bats) run it across the simulated nodes,
# where MPI finds the nodes itself.

load ../helpers/common

A2A=$BUILD/libibnet-alltoall.so
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

setup() {
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE alltoall_lib=$A2A"
}

# ompi NP RANKS_PER_NODE PROGRAM ARGS...: a real Open MPI run with the preload.
ompi() {
	local np=$1 rpn=$2
	shift 2
	timeout 120 mpirun.openmpi --oversubscribe --bind-to none --mca btl self,vader,tcp -np "$np" \
		-x LD_PRELOAD="$A2A" -x SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE="$rpn" \
		-x SLURM_IBNET_ALLTOALL_THRESHOLD="${THRESHOLD:-0}" -x SLURM_IBNET_ALLTOALL_REPORT=1 \
		${EXTRA:+-x "$EXTRA"} "$@"
}

mpich() {
	local np=$1 rpn=$2
	shift 2
	timeout 120 mpiexec.mpich -n "$np" -env LD_PRELOAD "$A2A" \
		-env SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE "$rpn" \
		-env SLURM_IBNET_ALLTOALL_THRESHOLD "${THRESHOLD:-0}" -env SLURM_IBNET_ALLTOALL_REPORT 1 \
		${EXTRA:+-env "${EXTRA%%=*}" "${EXTRA#*=}"} "$@"
}

# paced_calls OUTPUT: how many calls rank 0 says were paced.
paced_calls() {
	sed -n 's/^spank-ibnet alltoall: rank 0: MPI_Alltoall: [0-9]* calls\{0,1\}: \([0-9]*\) paced.*/\1/p' <<<"$1"
}

@test "--ordered-alltoall with the library on the node: preloaded after the user's, the site's settings, no pairwise variables" {
	run plan LD_PRELOAD=/opt/mine.so -- --transport=tcp --ordered-alltoall --nodelist 'c1-[1-2]'
	assert_success
	assert_line "LD_PRELOAD=/opt/mine.so:$A2A"
	assert_line 'SLURM_IBNET_ALLTOALL=paced'
	assert_line 'SLURM_IBNET_ALLTOALL_WINDOW=16384'
	assert_line 'SLURM_IBNET_ALLTOALL_CREDITS=1'
	assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=16384'
	assert_line --partial "alltoall=paced (--ordered-alltoall), interface eth0, paced all-to-all $A2A"
	refute_line --partial 'OMPI_MCA_coll_tuned'
	refute_line --partial 'MPIR_CVAR_ALLTOALL'
	# A job that asks for nothing gets none of it.
	run plan -- --transport=tcp --nodelist c1-1
	refute_output --partial "$A2A"
	refute_output --partial 'SLURM_IBNET_ALLTOALL_'
}

@test "the site's keys reach the job; the job's own values win; a bad value is refused by name" {
	CONF="$CONF alltoall_window=128k alltoall_credits=8 alltoall_threshold=4k"
	run plan SLURM_IBNET_ALLTOALL_WINDOW=32k -- --ordered-alltoall
	assert_success
	assert_line 'SLURM_IBNET_ALLTOALL_WINDOW=32k'
	assert_line 'SLURM_IBNET_ALLTOALL_CREDITS=8'
	assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=4096'
	run plan SLURM_IBNET_ALLTOALL_CREDITS=lots -- --ordered-alltoall
	assert_failure
	assert_output --partial "SLURM_IBNET_ALLTOALL_CREDITS: 'lots' is not a number of credits (1 to 64)"
	run "$IBNET_HOSTS" --config "alltoall_window=12" --check
	assert_failure
	assert_output "spank-ibnet: plugstack.conf: alltoall_window: '12' is not a window size (bytes in flight towards one node, 1k to 64m, e.g. 64k)"
	# The threshold per transport: InfiniBand's default is higher (measured:
	# 128 KiB converging on a port, docs/benchmarks.md).
	setup
	run plan -- --transport=ipoib --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=131072'
	CONF="$CONF alltoall_threshold=tcp:2k,rsocket:64k"
	run plan -- --transport=ipoib --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=131072'
	run plan -- --transport=tcp --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=2048'
	run plan -- --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=2048'
	run "$IBNET_HOSTS" --config "alltoall_threshold=tcp:2k,bus:1k" --check
	assert_failure
	assert_output "spank-ibnet: invalid transport in plugstack.conf alltoall_threshold= 'bus' (expected rsocket, ipoib, tcp or none)"
	run "$IBNET_HOSTS" --config "alltoall_lib=lib.so" --check
	assert_failure
	assert_output --partial "alltoall_lib='lib.so': expected an absolute path"
}

@test "the user's MPI algorithm, SLURM_IBNET_ALLTOALL=pairwise or alltoall_lib=none: the MPI's pairwise, and the log says why" {
	run plan OMPI_MCA_coll_tuned_alltoall_algorithm=3 -- --ordered-alltoall
	assert_success
	assert_line 'SLURM_IBNET_ALLTOALL=pairwise'
	assert_line 'OMPI_MCA_coll_tuned_alltoall_algorithm=3'
	assert_line 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise'
	assert_output --partial 'OMPI_MCA_coll_tuned_alltoall_algorithm is set by the job: its MPI algorithm choice stands, the paced all-to-all stands aside'
	# The preload still comes for the TCP floor --ordered-alltoall implies;
	# SLURM_IBNET_ALLTOALL=pairwise keeps its all-to-all out of the way.
	assert_line "LD_PRELOAD=$A2A"
	run plan OMPI_MCA_coll_tuned_alltoall_algorithm=3 SLURM_IBNET_TCP_RTO_MIN=off -- --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL=pairwise'
	refute_output --partial "LD_PRELOAD"
	run plan SLURM_IBNET_ALLTOALL=pairwise SLURM_IBNET_TCP_RTO_MIN=off -- --transport=tcp --nodelist c1-1
	assert_line 'SLURM_IBNET_ALLTOALL=pairwise'
	assert_line 'OMPI_MCA_coll_tuned_alltoall_algorithm=2'
	refute_output --partial "$A2A"
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE alltoall_lib=none"
	run plan -- --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL=pairwise'
	assert_output --partial 'the paced all-to-all (alltoall_lib=none) is not on this node'
}

@test "a later step undoes the preload and settings exactly: srun --no-ordered-alltoall inside a paced job" {
	run env -i PATH="$PATH" bash -c '
		eval "$("$0" --config "$1" --env --iface eth0 --transport=tcp --ordered-alltoall --nodelist c1-1 2>/dev/null)"
		echo "job: $SLURM_IBNET_ALLTOALL $LD_PRELOAD $SLURM_IBNET_ALLTOALL_WINDOW"
		eval "$("$0" --config "$1" --env --iface eth0 --no-ordered-alltoall 2>/dev/null)"
		echo "step: $SLURM_IBNET_ALLTOALL ${LD_PRELOAD-unset} ${SLURM_IBNET_ALLTOALL_WINDOW-unset}"' \
		"$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line "job: paced $A2A 16384"
	assert_line "step: default unset unset"
}

@test "Open MPI: byte-identical to PMPI_Alltoall/v over random sizes, datatypes, sub-communicators, 1 to 3 ranks per node" {
	local np rpn out
	for np in 3 5 6 7; do
		for rpn in 1 2 3; do
			run ompi "$np" "$rpn" "$BUILD/tests/a2a_check.openmpi" "$np$rpn" 40
			assert_success
			assert_line "CHECK cases=40 ranks=$np failures=0"
			out=$output
			# Every node count > 1 paces some calls: the check ran the scheme.
			if [ $(( (np + rpn - 1) / rpn )) -gt 1 ]; then
				[ "$(paced_calls "$out")" -gt 0 ]
			fi
		done
	done
}

@test "MPICH: byte-identical to PMPI_Alltoall/v over the same cases" {
	local np rpn
	for np in 3 5 7; do
		for rpn in 1 2 3; do
			run mpich "$np" "$rpn" "$BUILD/tests/a2a_check.mpich" "$np$rpn" 40
			assert_success
			assert_line "CHECK cases=40 ranks=$np failures=0"
			if [ $(( (np + rpn - 1) / rpn )) -gt 1 ]; then
				[ "$(paced_calls "$output")" -gt 0 ]
			fi
		done
	done
}

@test "alltoall_threshold per transport does not depend on the order of the list, and a transport listed twice is refused" {
	local base=$CONF order
	# none takes tcp's value only when it is not listed itself, wherever it is.
	for order in 'none:4k,tcp:8k' 'tcp:8k,none:4k'; do
		CONF="$base alltoall_threshold=$order"
		run plan -- --ordered-alltoall
		assert_success
		assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=4096'
		run plan -- --transport=tcp --ordered-alltoall
		assert_line 'SLURM_IBNET_ALLTOALL_THRESHOLD=8192'
	done
	run "$IBNET_HOSTS" --config "alltoall_threshold=tcp:8k,tcp:9k" --check
	assert_failure
	assert_output "spank-ibnet: plugstack.conf: alltoall_threshold='tcp:8k,tcp:9k': tcp is given twice"
}

@test "the fan-in rule: 4 KiB per pair is paced on 8 nodes (28 KiB converge on a port), not on 4 (12 KiB), at the default threshold" {
	# The bytes per pair are below the 0.4 threshold (16 KiB) in both runs.
	THRESHOLD=16k run ompi 8 1 "$BUILD/bench/a2a_bench" 0.05 4096
	assert_success
	assert_line --regexp '^RESULT size=4096 ranks=8 '
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoall: [0-9]+ calls: [1-9][0-9]* paced$'
	THRESHOLD=16k run ompi 4 1 "$BUILD/bench/a2a_bench" 0.05 4096
	assert_success
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoall: [0-9]+ calls: 0 paced, [0-9]+ below the threshold$'
	# Two pretend nodes of 4 ranks: 4 x 4 pairs of 1 KiB converge, 16 KiB.
	THRESHOLD=16k run ompi 8 4 "$BUILD/bench/a2a_bench" 0.05 1024
	assert_success
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoall: [0-9]+ calls: [1-9][0-9]* paced$'
}

@test "what the scheme does not take goes to the MPI: in place, one node, MPI_THREAD_MULTIPLE, below the threshold" {
	run ompi 4 1 "$BUILD/tests/a2a_check.openmpi" 5 40
	assert_success
	assert_output --regexp 'rank 0: MPI_Alltoall: [0-9]+ calls: [0-9]+ paced, .*[0-9]+ MPI_IN_PLACE'
	# 2 ranks on 2 nodes are one flow, paced too (0.5: one flow overflows a
	# shallow port in slow start); none is handed over for its size alone.
	run ompi 2 1 "$BUILD/tests/a2a_check.openmpi" 5 20
	assert_success
	assert_line 'CHECK cases=20 ranks=2 failures=0'
	[ "$(paced_calls "$output")" -gt 0 ]
	refute_output --partial '2 ranks or fewer'
	run ompi 4 4 "$BUILD/tests/a2a_check.openmpi" 5 20
	assert_success
	assert_output --regexp 'rank 0: MPI_Alltoall: [0-9]+ calls: 0 paced, .*all ranks on one node'
	EXTRA=A2A_CHECK_THREAD_MULTIPLE=1 run ompi 4 1 "$BUILD/tests/a2a_check.openmpi" 5 20
	assert_success
	assert_line 'CHECK cases=20 ranks=4 failures=0'
	assert_output --regexp 'rank 0: MPI_Alltoall: ([0-9]+) calls: 0 paced, ([0-9]+ MPI_THREAD_MULTIPLE)'
	THRESHOLD=1m run mpich 4 1 "$BUILD/tests/a2a_check.mpich" 5 20 300000
	assert_success
	assert_output --regexp 'rank 0: MPI_Alltoall: [0-9]+ calls: 0 paced, .*below the threshold'
}

@test "Fortran (use mpi): MPI_Alltoall, MPI_Alltoallv and MPI_IN_PLACE, Open MPI and MPICH" {
	run ompi 4 1 "$BUILD/tests/a2a_fortran.openmpi"
	assert_success
	assert_line 'FORTRAN ranks=4 bad=0'
	# Open MPI's Fortran calls PMPI_Alltoall itself: paced only because we take its names.
	assert_line 'spank-ibnet alltoall: rank 0: MPI_Alltoall: 2 calls: 1 paced, 1 MPI_IN_PLACE'
	assert_line 'spank-ibnet alltoall: rank 0: MPI_Alltoallv: 1 call: 1 paced'
	run mpich 4 1 "$BUILD/tests/a2a_fortran.mpich"
	assert_success
	assert_line 'FORTRAN ranks=4 bad=0'
	assert_line 'spank-ibnet alltoall: rank 0: MPI_Alltoall: 2 calls: 1 paced, 1 MPI_IN_PLACE'
}

@test "the user wins at run time: SLURM_IBNET_ALLTOALL_PACED=0, an MPI algorithm variable, a bad setting" {
	EXTRA=SLURM_IBNET_ALLTOALL_PACED=0 run ompi 4 1 "$BUILD/tests/a2a_check.openmpi" 9 10
	assert_success
	assert_output --regexp 'rank 0: MPI_Alltoall: [0-9]+ calls: 0 paced, [0-9]+ switched off'
	EXTRA=MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks run mpich 4 1 "$BUILD/tests/a2a_check.mpich" 9 10
	assert_success
	assert_output --partial 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM is set: the MPI library'"'"'s own all-to-all runs, as the user chose'
	assert_output --regexp 'rank 0: MPI_Alltoall: [0-9]+ calls: 0 paced'
	EXTRA=SLURM_IBNET_ALLTOALL_WINDOW=huge run ompi 4 1 "$BUILD/tests/a2a_check.openmpi" 9 10
	assert_success
	assert_output --partial "spank-ibnet alltoall: SLURM_IBNET_ALLTOALL_WINDOW: 'huge' is not a window size"
	assert_line 'CHECK cases=10 ranks=4 failures=0'
}

@test "inert outside MPI: bash, python3 and srun run exactly as without the preload, and load no MPI" {
	local cmd
	for cmd in "bash -c 'echo \$((6*7)); cat /proc/self/maps | grep -c libmpi'" \
		"python3 -c 'import json,sys; print(json.dumps({\"a\": [1,2]})); print(sum(\"libmpi\" in l for l in open(\"/proc/self/maps\")))'" \
		"srun --version" "srun --help"; do
		run bash -c "$cmd"
		local plain=$output plain_status=$status
		run env LD_PRELOAD="$A2A" bash -c "$cmd"
		[ "$status" = "$plain_status" ]
		[ "$output" = "$plain" ] || { echo "differs under the preload: $cmd"; echo "$output"; return 1; }
	done
	run env LD_PRELOAD="$A2A" bash -c 'grep -c libmpi /proc/self/maps'
	assert_output 0
	# It defines the MPI all-to-all names and socket() (the TCP floor,
	# tests/unit/tcp-floor.bats), nothing else, and needs no libmpi.
	run nm -D --defined-only "$A2A"
	[ "$(grep -c ' T ' <<<"$output")" -eq 11 ]
	assert_line --regexp ' T socket$'
	run readelf -d "$A2A"
	refute_output --partial 'libmpi'
}
