#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Compute nodes configured differently from the login node, as during an
# upgrade or in a mixed partition. Each node has its own mount namespace, so
# node c1-2 gets its own plugstack.conf (ibnet-cluster --node-plugin-args)
# while srun and sbatch here read the cluster's. Whatever a node's
# configuration, no job silently runs on another network and no node drains.

load ../helpers/common
load ../helpers/cluster

teardown_file() {
	cluster_down
}

setup() {
	printf '#!/bin/bash\necho "ran on $(hostname) ${SLURM_IBNET_TRANSPORT-nothing}"\n' > "$BATS_TEST_TMPDIR/job.sh"
}

assert_all_idle() {
	run nodes_state
	assert_line 'c1-1 idle'
	assert_line 'c1-2 idle'
}

@test "a node whose allowed= is narrower than the login node's fails the step with the reason, never falls back" {
	cluster_up -n 2 --node-plugin-args 2 'allowed=tcp'
	# The login node accepts --transport=ipoib; c1-2 does not.
	run timeout 60 srun -N1 -w c1-2 --transport=ipoib printenv SLURM_IBNET_TRANSPORT
	assert_failure
	assert_output --partial 'spank-ibnet: --transport=ipoib is not allowed on this cluster (allowed: tcp)'
	refute_output --partial 'tcp'$'\n'
	run batch "$BATS_TEST_TMPDIR/out" -N1 -w c1-2 --transport=ipoib "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial 'spank-ibnet: --transport=ipoib is not allowed on this cluster (allowed: tcp)'
	refute_output --partial 'ran on'
	# The same request runs where it is allowed.
	run timeout 60 srun -N1 -w c1-1 --transport=ipoib printenv SLURM_IBNET_TRANSPORT
	assert_success
	assert_output ipoib
	assert_all_idle
}

@test "a node whose file: table is missing fails the jobs that ask for a network, with the reason; the node stays in service" {
	cluster_up -n 2 --node-plugin-args 2 'ib_hostname=file:/nonexistent/ib-hostnames'
	run batch "$BATS_TEST_TMPDIR/out" -N1 -w c1-2 --transport=ipoib "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "spank-ibnet: ib_hostname=file:'/nonexistent/ib-hostnames': cannot read"
	assert_output --partial 'plugstack.conf of node c1-2'
	refute_output --partial 'ran on'
	assert_all_idle
	# A job that asks for nothing runs there, untouched, and the node's log says why.
	run batch "$BATS_TEST_TMPDIR/out2" -N1 -w c1-2 "$BATS_TEST_TMPDIR/job.sh"
	assert_success
	assert_output 'ran on c1-2 nothing'
	run grep -c "plugstack.conf arguments are invalid, and the step asked for nothing" \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-2.log"
	assert_output 1
	assert_all_idle
	run assert_daemons_healthy
	assert_success
}

@test "a node with a broken config and a site default other than none fails even jobs that ask for nothing" {
	cluster_up -n 2 --plugin-args 'default_transport=tcp' \
		--node-plugin-args 2 'default_transport=tcp ib_hostname=file:/nonexistent/ib-hostnames'
	run batch "$BATS_TEST_TMPDIR/out" -N1 -w c1-2 "$BATS_TEST_TMPDIR/job.sh"
	assert_failure
	assert_output --partial "cannot read"
	assert_all_idle
}

@test "a node whose librspreload exports a call the gate does not know refuses rsocket with a sentence" {
	printf '%s\n' '#include <sys/socket.h>' \
		'int socket(int d, int t, int p) { (void)d; (void)t; (void)p; return -1; }' \
		'int epoll_pwait2(int e) { (void)e; return -1; }' > "$BATS_TEST_TMPDIR/standin.c"
	mkdir -p "$IBNET_CLUSTER_DIR/standin"
	cc -shared -fPIC -o "$IBNET_CLUSTER_DIR/standin/librspreload.so" "$BATS_TEST_TMPDIR/standin.c"
	cluster_up -n 2 --node-plugin-args 2 "rspreload=$IBNET_CLUSTER_DIR/standin/librspreload.so"
	run timeout 60 srun -N1 -w c1-2 --transport=rsocket true
	assert_failure
	assert_output --partial "spank-ibnet: --transport=rsocket refused on this node: its librspreload ($IBNET_CLUSTER_DIR/standin/librspreload.so) replaces epoll_pwait2, which this spank-ibnet's rsocket gate does not know"
	run timeout 60 srun -N1 -w c1-1 --transport=rsocket printenv SLURM_IBNET_TRANSPORT
	assert_success
	assert_output rsocket
	assert_all_idle
}

@test "interface lists: each node uses the first entry it has, and the MPI variables name it" {
	# ibp65s0 (a predictable IB name) exists on no node here; the pattern i?0 finds ib0.
	cluster_up -n 2 --plugin-args 'ib_iface=ibp65s0,i?0 eth_iface=eno*,eth0'
	run timeout 60 srun -N2 --transport=ipoib bash -c 'echo "$(hostname) $OMPI_MCA_btl_tcp_if_include $UCX_NET_DEVICES"'
	assert_success
	assert_line 'c1-1 ib0 ib0'
	assert_line 'c1-2 ib0 ib0'
	run timeout 60 srun -N1 --transport=tcp printenv HYDRA_IFACE
	assert_success
	# A line: srun may first say the job is queued while the last one's
	# nodes complete (the job epilog of the BPF tier's sweep runs there).
	assert_line eth0
	run grep -h 'transport=ipoib (--transport), alltoall=default (default), interface ib0;' \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-2.log"
	assert_success
}
