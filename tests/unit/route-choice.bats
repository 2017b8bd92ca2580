#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The route by measurement (alltoall/ibnet_a2a_choice.c): driven with a fake
# clock and a fake loss feed for 4 ranks (tests/programs/route_choice.c), and
# inside real Open MPI and MPICH programs on this machine, each rank a
# pretend node (loopback and shared memory: nothing is lost here, so the
# MPI's own is the faster, as on the 16-core machine's unshaped ports).

load ../helpers/common
load ../helpers/alltoall

setup() {
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE alltoall_lib=$A2A"
}

@test "the route by measurement with a fake clock and loss feed: own where it is faster and clean, paced where it loses, follows a change, every rank alike" {
	run "$BUILD/tests/route_choice"
	assert_success
	refute_line --partial 'FAIL:'
	assert_line --regexp "^ok: unshaped ports, .*: the MPI's own chosen after 11 calls \(8 paced, 3 own\)$"
	assert_line --regexp "^ok: the storm .*: paced chosen after 9 calls, one of them the MPI's own$"
	assert_line --regexp "^ok: the storm .*: 4000 calls later: [1-4] of the MPI's own "
	assert_line --regexp "^ok: the storm, the link's rate told, .*: paced chosen after 8 paced calls, no call of the MPI's own$"
	assert_line --regexp "^ok: own loses a little but paced takes 3x as long: the MPI's own, and the report says it lost packets$"
	assert_line --regexp "^ok: the fabric starts to lose mid-job .*: paced within [0-9]+ calls of the change \(bound: 20\)$"
	assert_line --regexp "^ok: the fabric stops losing mid-job .*: the MPI's own within [0-9]+ calls of the change \(bound: 1024 \+ 6\)$"
	assert_line --regexp "^ok: a shared host: .*: no look again in 1600 calls \(1 look\)$"
	assert_line --regexp "^ok: a shared host: .*: own 4x slower for good: looked at again within two watches, and paced$"
	[ "$(grep -c 'every rank took the same route on every call' <<<"$output")" -eq 4 ]
	assert_line 'all expectations held'
	[ "$(grep -c '^ok: ' <<< "$output")" -eq 19 ]
}

# The window held at 16 KiB (alltoall_window_max=16k), so that no call of
# 64 KiB or 1 MiB per pair fits in it whole and every one reaches the choice.
@test "in a real program: each size measured on both routes, the MPI's own kept where it was faster, said per size; the same calls as before with alltoall_measure=0" {
	needs openmpi
	EXTRA=SLURM_IBNET_ALLTOALL_WINDOW_MAX=16k THRESHOLD=16k run ompi 4 1 "$BUILD/tests/a2a_bench" 0.3 65536 1048576
	assert_success
	assert_line --regexp '^RESULT size=65536 ranks=4 '
	# 8 paced and 3 of the MPI's own on trial per size, then the MPI's own.
	assert_line --regexp "^spank-ibnet alltoall: rank 0: MPI_Alltoall: [0-9]+ calls: 16 paced, 6 the MPI's own on trial, [1-9][0-9]* the MPI's own measured faster$"
	assert_line --regexp "^spank-ibnet alltoall: rank 0: route by measurement: blocks of 64 KiB to 128 KiB: own [0-9.]+ ms, paced [0-9.]+ ms \(best of each\): the MPI's own \(no loss, no slower\); 11 calls on trial, 1 look$"
	assert_line --regexp "^spank-ibnet alltoall: rank 0: route by measurement: blocks of 1 MiB to 2 MiB: own [0-9.]+ ms, paced [0-9.]+ ms \(best of each\): the MPI's own \(no loss, no slower\); 11 calls on trial, 1 look$"
	# Every rank took the same routes.
	[ "$(grep -c "^spank-ibnet alltoall: rank [0-3]: MPI_Alltoall: [0-9]* calls: 16 paced, 6 the MPI's own on trial, " <<<"$output")" -eq 4 ]
	# Pinned: every call paced, nothing measured.
	EXTRA=SLURM_IBNET_ALLTOALL_MEASURE=0 THRESHOLD=16k run ompi 4 1 "$BUILD/tests/a2a_bench" 0.05 1048576
	assert_success
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoall: [0-9]+ calls: [1-9][0-9]* paced(, [0-9]+ within the window)?$'
	refute_output --partial 'route by measurement'
}

@test "in a real MPICH program: each size measured, the same routes on every rank" {
	needs mpich
	EXTRA=SLURM_IBNET_ALLTOALL_WINDOW_MAX=16k THRESHOLD=16k run mpich 4 1 "$BUILD/tests/a2a_bench.mpich" 3 65536
	assert_success
	assert_line --regexp '^RESULT size=65536 ranks=4 '
	assert_line --regexp "^spank-ibnet alltoall: rank 0: route by measurement: blocks of 64 KiB to 128 KiB: own [0-9.]+ ms, paced [0-9.]+ ms \\(best of each\\): .*; 11 calls on trial, 1 look$"
	# Whatever was chosen, every rank chose it and counted the same calls.
	[ "$(grep "^spank-ibnet alltoall: rank [0-3]: MPI_Alltoall: " <<<"$output" | sed 's/rank [0-3]//' | sort -u | wc -l)" -eq 1 ]
	[ "$(grep "^spank-ibnet alltoall: rank [0-3]: route by measurement: " <<<"$output" | sed 's/rank [0-3]//; s/own [0-9.]* ms, paced [0-9.]* ms//' | sort -u | wc -l)" -eq 1 ]
}

@test "alltoall_measure: 1 by default, reaching the job; 0 from the site; anything else refused by name" {
	run plan -- --ordered-alltoall
	assert_success
	assert_line 'SLURM_IBNET_ALLTOALL_MEASURE=1'
	CONF="$CONF alltoall_measure=0" run plan -- --ordered-alltoall
	assert_line 'SLURM_IBNET_ALLTOALL_MEASURE=0'
	run "$IBNET_HOSTS" --config "alltoall_measure=yes" --check
	assert_failure
	assert_output --partial "alltoall_measure"
	assert_output --partial "'yes'"
}
