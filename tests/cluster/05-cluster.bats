#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# devel/ibnet-cluster itself: up, up again, status, where, shape, down.

load ../helpers/common
load ../helpers/cluster

teardown_file() {
	cluster_down
}

@test "up -n 8 brings eight idle nodes; up twice in a row works" {
	run "$CLUSTER" up -n 8
	assert_success
	assert_output --partial "export SLURM_CONF=$IBNET_CLUSTER_DIR/slurm.conf"
	[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq 8 ]
	run "$CLUSTER" up -n 3
	assert_success
	[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -eq 3 ]
	[ "$(ip netns list | grep -c '^ibnet-c1-')" -eq 3 ]
}

@test "each node has its own hostname, both networks, and both names of every node" {
	run timeout 30 srun -N3 bash -c 'echo "$(hostname) $(ip -o -4 addr show eth0 | awk "{print \$4}") $(ip -o -4 addr show ib0 | awk "{print \$4}") $(getent hosts cib1-3 | cut -d" " -f1)"'
	assert_success
	assert_line 'c1-1 198.18.0.11/24 198.18.1.11/24 198.18.1.13'
	assert_line 'c1-3 198.18.0.13/24 198.18.1.13/24 198.18.1.13'
	# The machine's own /etc/hosts is untouched.
	run grep -c cib1- /etc/hosts
	assert_output 0
}

@test "status says what runs" {
	run "$CLUSTER" status
	assert_success
	assert_line --regexp '^slurmctld: running \(pid [0-9]+\)$'
	assert_line --regexp '^slurmd-c1-3: running \(pid [0-9]+\)$'
}

# Scripts and tests ask where the cluster's parts are (devel/ibnet-bench,
# devel/a2a-versus, tests/helpers/cluster.bash) instead of knowing the layout.
@test "where says where each part of the running cluster is, and follows IBNET_CLUSTER_DIR" {
	run "$CLUSTER" where slurm.conf
	assert_success
	assert_output "$IBNET_CLUSTER_DIR/slurm.conf"
	[ "$SLURM_CONF" = "$output" ]
	[ -f "$("$CLUSTER" where plugstack.conf)" ]
	[ -d "$("$CLUSTER" where log)" ]
	[ -f "$("$CLUSTER" where run)/slurmctld.pid" ]
	[ "$(wc -l < "$("$CLUSTER" where nodes)")" -eq 3 ]
	[ -e "$("$CLUSTER" where netns 3)" ]
	IBNET_CLUSTER_DIR=$BATS_TEST_TMPDIR/other run "$CLUSTER" where nodes
	assert_success
	assert_output "$BATS_TEST_TMPDIR/other/nodes"
	run "$CLUSTER" where netns c1-3
	assert_failure
	assert_output --partial "expected a node number"
}

@test "shape puts a token bucket on the switch ports; unshape removes it; netem is checked" {
	run "$CLUSTER" shape eth --rate 100mbit --buffer 24kb
	assert_success
	run tc qdisc show dev ibe-c1-2
	assert_output --partial 'tbf'
	assert_output --partial 'rate 100Mbit'
	run tc qdisc show dev ibi-c1-2
	refute_output --partial 'tbf'
	run "$CLUSTER" unshape eth
	run tc qdisc show dev ibe-c1-2
	refute_output --partial 'tbf'
	run "$CLUSTER" shape ib --rate fast
	assert_failure
	if ! tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then
		run "$CLUSTER" shape eth --rate 100mbit --delay 1ms
		assert_failure
		assert_output --partial "need the kernel's netem qdisc, which this kernel lacks"
	else
		tc qdisc del dev lo root
	fi
}

@test "wait returns when a job is done, and cancels one past its limit" {
	local jid
	jid=$(sbatch --parsable -N1 -o /dev/null --wrap 'sleep 1')
	run "$CLUSTER" wait "$jid" 60
	assert_success
	jid=$(sbatch --parsable -N1 -o /dev/null --wrap 'sleep 120')
	run "$CLUSTER" wait "$jid" 2
	assert_failure
	assert_output "ibnet-cluster: job $jid still queued after 2 s; cancelled"
	run "$CLUSTER" wait "$jid" 30
	assert_success
	run "$CLUSTER" wait notajob
	assert_failure
	assert_output --partial "expected a job id, not 'notajob'"
}

@test "up refuses when another cluster owns the names, and leaves it running" {
	IBNET_CLUSTER_DIR=$BATS_TEST_TMPDIR/other run "$CLUSTER" up -n 2
	assert_failure
	assert_output --partial "another ibnet cluster is running, from $IBNET_CLUSTER_DIR; take it down with: IBNET_CLUSTER_DIR=$IBNET_CLUSTER_DIR devel/ibnet-cluster down"
	IBNET_CLUSTER_DIR=$BATS_TEST_TMPDIR/other run "$CLUSTER" free
	assert_failure
	assert_output --partial "another ibnet cluster is running, from $IBNET_CLUSTER_DIR"
	run timeout 30 srun -N1 true
	assert_success
}

# A run killed before its 'down' (a CI cut at its time limit, a session's
# end) leaves the bridge and namespaces with nothing in them; the next run
# is told whose they are and how to remove them, not only that they exist.
@test "names a killed run left behind are said to be left, with the directory whose 'down' removes them" {
	local f pids="" pid i
	for f in "$IBNET_CLUSTER_DIR"/run/*.pid; do
		pids+=" $(cat "$f")"
	done
	kill -9 $pids 2>/dev/null || true
	for pid in $pids; do
		for i in $(seq 1 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	IBNET_CLUSTER_DIR=$BATS_TEST_TMPDIR/other run "$CLUSTER" free
	assert_failure
	assert_output --partial "bridge and namespaces are left, from $IBNET_CLUSTER_DIR, with no process of it alive"
	assert_output --partial "IBNET_CLUSTER_DIR=$IBNET_CLUSTER_DIR devel/ibnet-cluster down"
	# Asked from the directory that left them: its own, and its own down.
	run "$CLUSTER" free
	assert_failure
	assert_output --partial "this directory's ibnet cluster left its bridge and namespaces ($IBNET_CLUSTER_DIR), with no process of it alive"
	assert_output --partial "take them down with: devel/ibnet-cluster down"
	run "$CLUSTER" up -n 2
	assert_success
	run "$CLUSTER" free
	assert_failure
	assert_output --partial "this directory's ibnet cluster is running ($IBNET_CLUSTER_DIR); take it down with: devel/ibnet-cluster down"
}

@test "down removes its processes, namespaces and links, and nothing else" {
	local pids
	pids=$(cat "$IBNET_CLUSTER_DIR"/run/*.pid)
	ip link add ibnet-keepme type bridge
	run "$CLUSTER" down
	assert_success
	for pid in $pids; do
		run kill -0 "$pid"
		assert_failure
	done
	[ "$(ip netns list | grep -c '^ibnet-c1-')" -eq 0 ]
	run ip link show ibnbr-eth
	assert_failure
	run ip link show ibnet-keepme
	assert_success
	ip link del ibnet-keepme
	run "$CLUSTER" status
	assert_failure
	assert_output 'not running'
	run "$CLUSTER" free
	assert_success
	assert_output 'ibnet-cluster: no ibnet cluster on this machine'
}
