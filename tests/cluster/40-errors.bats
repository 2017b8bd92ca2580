#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input from users and admins on the real cluster: refused before
# queueing with the plugin's message; no daemon crashes; no node drained.

CLUSTER_NODES=2
load ../helpers/common
load ../helpers/cluster

setup() {
	printf '#!/bin/bash\necho ran\n' > "$BATS_TEST_TMPDIR/job.sh"
}


@test "bad --transport values are refused by sbatch, srun and salloc before queueing" {
	local long bad cmd before
	long=$(printf 'x%.0s' $(seq 1 10000))
	before=$(sacct_count)
	for bad in bogus '' "$long" 'rsocket;rm -rf /' '$(id)' 'tcp ipoib'; do
		run sbatch --transport="$bad" "$BATS_TEST_TMPDIR/job.sh"
		assert_failure
		assert_output --partial "spank-ibnet: invalid --transport"
		run timeout 30 srun --transport="$bad" true
		assert_failure
		assert_output --partial "spank-ibnet: invalid --transport"
		run timeout 30 salloc --transport="$bad" true
		assert_failure
		assert_output --partial "spank-ibnet: invalid --transport"
	done
	run sbatch --transport=bogus "$BATS_TEST_TMPDIR/job.sh"
	assert_output --partial "spank-ibnet: invalid --transport 'bogus' (expected rsocket, ipoib, tcp or none)"
	[ "$(sacct_count)" -eq "$before" ]
}

@test "bad SLURM_IBNET_TRANSPORT and SLURM_IBNET_ALLTOALL defaults are refused before queueing" {
	local before
	before=$(sacct_count)
	SLURM_IBNET_TRANSPORT=infiniband run sbatch "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "spank-ibnet: invalid SLURM_IBNET_TRANSPORT 'infiniband'"
	SLURM_IBNET_ALLTOALL=yes run timeout 30 srun true
	assert_failure
	assert_output --partial "spank-ibnet: invalid SLURM_IBNET_ALLTOALL 'yes'"
	[ "$(sacct_count)" -eq "$before" ]
}

@test "a bad GAUSS_WDEF fails the job with the reason in its output, and drains no node" {
	GAUSS_WDEF='c1-1 c1-2' run batch "$BATS_TEST_TMPDIR/out" -N2 --transport=ipoib "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "spank-ibnet: invalid GAUSS_WDEF 'c1-1 c1-2'"
	refute_output --partial "ran"
	run nodes_state
	assert_line 'c1-1 idle'
	assert_line 'c1-2 idle'
}

@test "after all that, every daemon is alive and no log shows a crash" {
	run assert_daemons_healthy
	assert_success
}

@test "a bad plugstack.conf argument: an admin-readable error, slurmd keeps running" {
	cluster_up -n 2 --plugin-args 'allowed=tcp,ipoib transprot=rsocket'
	run timeout 30 srun -N1 true
	assert_failure
	assert_output --partial "spank-ibnet: plugstack.conf: unknown key 'transprot' (value 'rsocket')"
	run sbatch "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "unknown key 'transprot'"
	run assert_daemons_healthy
	assert_success
}

@test "a transport the site does not allow is refused before queueing" {
	cluster_up -n 2 --plugin-args 'allowed=tcp,ipoib'
	run sbatch --transport=rsocket "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "spank-ibnet: --transport=rsocket is not allowed on this cluster (allowed: tcp, ipoib)"
	run timeout 60 srun -N1 --transport=ipoib printenv SLURM_IBNET_TRANSPORT
	assert_success
	assert_output ipoib
}

@test "a node without librspreload fails rsocket jobs with a sentence, and stays in service" {
	cluster_up -n 2 --plugin-args 'rspreload=/nonexistent/librspreload.so'
	run batch "$BATS_TEST_TMPDIR/out" -N1 --transport=rsocket "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "spank-ibnet: --transport=rsocket: librspreload not found at /nonexistent/librspreload.so"
	run nodes_state
	assert_line 'c1-1 idle'
	run assert_daemons_healthy
	assert_success
}

@test "a node without the IB interface fails ipoib jobs with a sentence; tcp jobs still run" {
	cluster_up -n 2 --plugin-args 'ib_iface=ib7'
	run timeout 60 srun -N1 --transport=ipoib true
	assert_failure
	assert_output --partial "spank-ibnet: --transport=ipoib needs network interface ib7, which is down or has no address on this node"
	run timeout 60 srun -N1 --transport=tcp printenv SLURM_IBNET_TRANSPORT
	assert_success
	assert_output tcp
}

@test "a floor below the site's least (tcp_rto_min_least) is refused before queueing, naming both values; one at the least runs" {
	cluster_up -n 2 --plugin-args 'tcp_rto_min_least=5ms'
	local before
	before=$(squeue -h | wc -l)
	run sbatch --tcp-rto-min=2ms "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "spank-ibnet: --tcp-rto-min: a retransmission floor of 2000us is below this site's least, 5000us (plugstack.conf tcp_rto_min_least)"
	[ "$(squeue -h | wc -l)" -eq "$before" ]
	run timeout 60 srun -N1 --transport=tcp --tcp-rto-min=5ms printenv SLURM_IBNET_TCP_RTO_MIN
	assert_success
	assert_output 5ms
	run assert_daemons_healthy
	assert_success
}
