#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The TCP retransmission floor in real jobs: connections between simulated
# nodes (network namespaces, CUBIC as at sites), the kernel's own tcpi_rto
# of each end. Node c1-3 runs its slurmd with a test preload that hides
# TCP_RTO_MIN_US from the plugin's probe: an older kernel (Linux < 6.15).

load ../helpers/common
load ../helpers/cluster

setup_file() {
	python3 -c 'import socket; s = socket.socket(); s.setsockopt(6, 45, 10000)' 2>/dev/null ||
		skip "this kernel has no TCP_RTO_MIN_US (Linux 6.15 or later)"
	cluster_up -n 3 --node-preload 3 "$BUILD/tests/libhide-rto-min.so"
}
teardown_file() { cluster_down; }

PAIR=$REPO/tests/programs/tcp_rto_pair.py

# pair_job PORT SBATCH-ARGS...: a 2-node job whose step opens one TCP
# connection from c1-2 to c1-1 over eth0; prints each end's RTO line.
pair_job() {
	local port=$1
	shift
	printf '#!/bin/bash\necho "got ${SLURM_IBNET_TCP_RTO_MIN_US:-none}"\nsrun -N2 --ntasks-per-node=1 %s c1-1 %s\n' \
		"$PAIR" "$port" > "$BATS_TEST_TMPDIR/job.sh"
	batch "$BATS_TEST_TMPDIR/out" "$@" "$BATS_TEST_TMPDIR/job.sh"
}

@test "sbatch --ordered-alltoall: both ends of a connection between two nodes have a retransmission floor; a job that asks for nothing keeps 200 ms; the nodes run CUBIC" {
	run pair_job 5611 -w c1-[1-2] --transport=tcp --ordered-alltoall
	assert_success
	assert_line --regexp '^got 1[0-9]000$'
	[ "$(grep -c '^RTO ' <<<"$output")" = 2 ]
	local line us
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -lt 100000 ] || { echo "no floor: $line"; return 1; }
		[[ "$line" == *" cc=cubic" ]]
	done < <(grep '^RTO ' <<<"$output")
	run pair_job 5612 -w c1-[1-2]
	assert_success
	assert_line 'got none'
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge 200000 ] || { echo "touched: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

@test "sbatch --transport=tcp --tcp-rto-min=20ms, no MPI: the floor alone, 20 ms" {
	run pair_job 5613 -w c1-[1-2] --transport=tcp --tcp-rto-min=20ms
	assert_success
	assert_line 'got 20000'
	local line
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge 20000 ] && [ "$us" -lt 100000 ] || { echo "not 20 ms: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

@test "sbatch --tcp-rto-min without a value: the site's floor in the batch script and its srun steps" {
	# sbatch hands an optional argument it was not given to the steps as "(null)".
	run pair_job 5615 -w c1-[1-2] --transport=tcp --tcp-rto-min
	assert_success
	assert_line --regexp '^got 1[0-9]000$'
	[ "$(grep -c '^RTO ' <<<"$output")" = 2 ]
	local line
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -lt 100000 ] || { echo "no floor: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

@test "a node whose kernel lacks TCP_RTO_MIN_US runs the step without the floor, logs why, and stays up" {
	printf '#!/bin/bash\necho "got ${SLURM_IBNET_TCP_RTO_MIN_US:-none}"\nsrun -n2 %s c1-3 5614\n' \
		"$PAIR" > "$BATS_TEST_TMPDIR/job.sh"
	run batch "$BATS_TEST_TMPDIR/out" -w c1-3 -n2 --transport=tcp --ordered-alltoall "$BATS_TEST_TMPDIR/job.sh"
	assert_success
	assert_line 'got none'
	local line
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge 200000 ] || { echo "floor on a node without it: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
	run grep -c "no TCP retransmission floor (--ordered-alltoall): this node's kernel has no TCP_RTO_MIN_US socket option (Linux 6.15 or later)" \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-3.log"
	[ "$output" -ge 1 ]
	run sinfo -h -n c1-3 -o %t
	assert_output idle
	assert_daemons_healthy
}
