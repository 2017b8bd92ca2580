#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo's script (devel/demo) on the test cluster: each headline feature
# prints its evidence, and the evidence says what the feature promises.

load ../helpers/common
load ../helpers/cluster

teardown_file() {
	cluster_down
}

@test "the demo shows the four features, each with its evidence line" {
	local start=$SECONDS
	run timeout 400 "$REPO/devel/demo"
	echo "the demo took $((SECONDS - start)) s"
	assert_success
	# 1. --transport: rsocket's bytes cross ib0, tcp's and nothing-asked's eth0.
	[ "$(grep -c 'the bytes crossed ib0' <<<"$output")" -eq 1 ]
	[ "$(grep -c 'the bytes crossed eth0' <<<"$output")" -eq 2 ]
	assert_line --regexp '^  transport: +\(not set: nothing asked, nothing changed\)$'
	# 2. --ordered-alltoall: the job without it is the MPI's own, the job
	# with it has its calls paced; both give a time and the switch's drops.
	[ "$(grep -c '^  all-to-all: *median [0-9]* ms a call over [0-9]* calls; the switch dropped [0-9]* packets$' <<<"$output")" -eq 2 ]
	assert_line --regexp "^  rank 0's calls: +none paced: the MPI library's own algorithm"
	assert_line --regexp "^  rank 0's calls: +[0-9]+ calls?: [1-9][0-9]* paced"
	# 3. --tcp-rto-min: 200 ms without (Linux's minimum plus the clock's
	# granularity), under 50 ms with, on both ends of the connection.
	[ "$(grep -cE '^  tcpi_rto on c1-[12]: +2[0-9]{2} ms$' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  tcpi_rto on c1-[12]: +[1-4]?[0-9] ms$' <<<"$output")" -eq 2 ]
	assert_line --regexp '^  floor the job got: +1[0-9]000 us \(SLURM_IBNET_TCP_RTO_MIN_US\)$'
	assert_line --regexp '^  floor the job got: +none \(SLURM_IBNET_TCP_RTO_MIN_US\)$'
	# 4. gaussian-ib: three workers, steps of the job, reached over ib0 with
	# librspreload in them.
	assert_line --regexp '^  Linda workers: +cib1-1,cib1-2,cib1-3 '
	assert_line --regexp '^  started by: +linda-srun: 3 workers seen as steps of job [0-9]+$'
	local n
	for n in 1 2 3; do
		assert_line "  worker on c1-$n:        4000000 bytes from the master to cib1-$n (198.18.1.1$n on ib0), librspreload yes"
	done
	# Bounded: about a minute on an idle machine.
	[ $((SECONDS - start)) -lt 300 ]
}
