#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Safe to switch on: on the real cluster, a job that asks for nothing gets
# exactly the environment it gets without the plugin, and every step's
# decision is in the node's log.

load ../helpers/common
load ../helpers/cluster

teardown_file() {
	cluster_down
}

# envdump DIR: a batch script writing its own environment and that of one
# task on each of 3 nodes, sorted, one file each.
envdump_script() {
	cat > "$BATS_TEST_TMPDIR/envdump.sh" <<'SH'
#!/bin/bash
env -0 | sort -z | tr '\0' '\n' > "$1/batch.env"
srun -N3 bash -c 'env -0 | sort -z | tr "\0" "\n" > "$0/task-$(hostname).env"' "$1"
SH
	chmod +x "$BATS_TEST_TMPDIR/envdump.sh"
}

# run_envdump DIR: the same job, with the same user environment, into DIR.
# Process ids and srun's ports differ from run to run, and so do the job's
# start and end times, which Slurm 24.11 adds to the environment; nothing
# else may.
run_envdump() {
	mkdir -p "$1"
	env LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libm.so.6 OMPI_MCA_btl_tcp_if_include=lo \
		GAUSS_WDEF=c1-1:2 UCX_TLS=tcp \
		sbatch --parsable -N3 -o "$1/out" "$BATS_TEST_TMPDIR/envdump.sh" "$1" > "$1/jobid"
	"$CLUSTER" wait "$(cat "$1/jobid")" 120
	# Per job, whatever the plugin does: pids, ports, times, and Slurm 26.05's
	# job's unique id (SLURM_JOB_SLUID; found on Debian forky).
	sed -i -E '/^SLURM_(TASK_PID|SRUN_COMM_PORT|STEP_LAUNCHER_PORT|JOB_START_TIME|JOB_END_TIME|JOB_SLUID)=/d' "$1"/*.env
}

@test "a job that asks for nothing: the script and every task see the same environment as without the plugin" {
	envdump_script
	cluster_up -n 3 --no-plugin
	run_envdump "$BATS_TEST_TMPDIR/without"
	cluster_up -n 3
	run_envdump "$BATS_TEST_TMPDIR/with"
	[ "$(ls "$BATS_TEST_TMPDIR/with"/*.env | wc -l)" -eq 4 ]
	run diff -r "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with"
	assert_success
	assert_output ''
	# The comparison can fail: the same job asking for tcp differs.
	cluster_up -n 3
	SLURM_IBNET_TRANSPORT=tcp run_envdump "$BATS_TEST_TMPDIR/tcp"
	run diff "$BATS_TEST_TMPDIR/without/task-c1-2.env" "$BATS_TEST_TMPDIR/tcp/task-c1-2.env"
	assert_failure
	assert_output --partial '> UCX_NET_DEVICES=eth0'
}

@test "each step's decision is logged on its node: transport, where it came from, interface, preload" {
	cluster_up -n 2
	run timeout 60 srun -N2 --transport=rsocket true
	assert_success
	run timeout 60 srun -N1 true
	assert_success
	run grep -h 'spank-ibnet: job 1 step 0 on' "$IBNET_CLUSTER_DIR"/log/slurmd-c1-1.log "$IBNET_CLUSTER_DIR"/log/slurmd-c1-2.log
	assert_line --regexp "spank-ibnet: job 1 step 0 on c1-1: transport=rsocket \(--transport\), alltoall=default \(default\), interface ib0, preload $RSGATE:$RSPRELOAD; [0-9]+ environment changes$"
	assert_line --regexp "spank-ibnet: job 1 step 0 on c1-2: transport=rsocket \(--transport\)"
	# A step that got nothing is logged at verbose level, not at info.
	run grep -c 'spank-ibnet: job 2 ' "$IBNET_CLUSTER_DIR"/log/slurmd-c1-1.log
	assert_output 0
}

@test "a site can still choose a default transport" {
	cluster_up -n 2 --plugin-args 'default_transport=ipoib'
	run timeout 60 srun -N2 bash -c 'echo "$(hostname) $SLURM_IBNET_TRANSPORT $OMPI_MCA_btl_tcp_if_include"'
	assert_success
	assert_line 'c1-2 ipoib ib0'
	run timeout 60 srun -N1 --transport=none bash -c 'echo "${SLURM_IBNET_TRANSPORT-unset} ${OMPI_MCA_btl_tcp_if_include-unset}"'
	assert_success
	# A line, not the whole output: srun says "job 2 queued and waiting for
	# resources" when the first job's nodes are still completing (a loaded machine).
	assert_line 'unset unset'
	run grep -h 'transport=ipoib (site default)' "$IBNET_CLUSTER_DIR"/log/slurmd-c1-1.log
	assert_success
}
