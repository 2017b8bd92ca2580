#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Faults on the real cluster while jobs run: daemons restarted, an IB
# interface taken down, librspreload removed, plugstack.conf edited between
# steps. Each step either gets the network it asked for or fails with a
# sentence; no daemon dies and no node drains.

load ../helpers/common
load ../helpers/cluster

teardown_file() {
	cluster_down
}

assert_all_idle() {
	local n i
	n=$(wc -l < "$IBNET_CLUSTER_DIR/nodes")
	for i in $(seq 1 40); do	# a node may still be completing its last job
		[ "$(sinfo -h -N -t idle -o %N | sort -u | wc -l)" -eq "$n" ] && break
		sleep 0.5
	done
	run sinfo -h -N -o '%N %t'
	refute_output --regexp 'drain|down|fail'
	[ "$(grep -c ' idle$' <<<"$output")" -eq "$n" ]
}

# wait_for FILE: until the job has written FILE (30 s at most).
wait_for() {
	local i
	for i in $(seq 1 60); do
		[ -e "$1" ] && return 0
		sleep 0.5
	done
	echo "timed out waiting for $1"
	return 1
}

# stepper STEP...: a batch script running each STEP (a command line) in turn,
# step N only once the test has created go-N (it signals ready-N when it
# waits), printing "step N ok" or "step N failed". Prints the script's path.
stepper() {
	local n=0 step f=$BATS_TEST_TMPDIR/stepper.sh
	printf '#!/bin/bash\n' > "$f"
	for step in "$@"; do
		n=$((n + 1))
		printf 'touch %q\n' "$BATS_TEST_TMPDIR/ready-$n" >> "$f"
		printf 'for i in $(seq 1 60); do [ -e %q ] && break; sleep 0.5; done\n' \
			"$BATS_TEST_TMPDIR/go-$n" >> "$f"
		printf '%s && echo "step %d ok" || echo "step %d failed"\n' "$step" "$n" "$n" >> "$f"
	done
	echo "$f"
}

# go N: let step N start, once the job waits for it.
go() {
	wait_for "$BATS_TEST_TMPDIR/ready-$1"
	touch "$BATS_TEST_TMPDIR/go-$1"
}

# start_steps STEP...: submit a stepper job on 2 nodes, run its step 1, and
# return once step 2 waits, for the test to make its fault there. Prints the
# job id.
start_steps() {
	local f jid
	f=$(stepper "$@")
	jid=$(sbatch --parsable -N2 -o "$BATS_TEST_TMPDIR/out" "$f") || return 1
	go 1 >&2 || return 1
	wait_for "$BATS_TEST_TMPDIR/ready-2" >&2 || return 1
	echo "$jid"
}

@test "slurmctld restarted while jobs run and queue: every job finishes with its network" {
	cluster_up -n 3
	local jids=() i t
	for i in $(seq 1 12); do
		t=$(echo ipoib tcp rsocket | cut -d' ' -f$((i % 3 + 1)))
		printf '#!/bin/bash\nsleep 2\nsrun -N1 printenv SLURM_IBNET_TRANSPORT\n' > "$BATS_TEST_TMPDIR/j$i.sh"
		jids+=("$(sbatch --parsable -N1 --transport="$t" -o "$BATS_TEST_TMPDIR/j$i.out" "$BATS_TEST_TMPDIR/j$i.sh")")
	done
	run "$CLUSTER" restart slurmctld
	assert_success
	for i in "${!jids[@]}"; do
		"$CLUSTER" wait "${jids[$i]}" 120
	done
	for i in $(seq 1 12); do
		t=$(echo ipoib tcp rsocket | cut -d' ' -f$((i % 3 + 1)))
		# srun's own notices aside ("Job 8 step creation temporarily
		# disabled, retrying (Requested nodes are busy)", then "Step created
		# for StepId=8.0": the nodes are shared, and a loaded CI machine
		# releases the last step's CPUs late).
		run grep -v -E '^srun: (Job [0-9]+ step creation temporarily disabled|Step created for StepId=)' \
			"$BATS_TEST_TMPDIR/j$i.out"
		assert_output "$t"
	done
	assert_all_idle
}

@test "a node's IB interface taken down between steps: the next ipoib step fails with its sentence, tcp still runs" {
	cluster_up -n 2
	local jid
	jid=$(start_steps 'srun -N2 --transport=ipoib true' 'srun -N2 --transport=ipoib true' \
		'srun -N2 --transport=tcp true')
	ip -n ibnet-c1-2 link set ib0 down
	go 2
	go 3
	"$CLUSTER" wait "$jid" 120
	ip -n ibnet-c1-2 link set ib0 up
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line 'step 1 ok'
	assert_line 'step 2 failed'
	assert_output --partial 'spank-ibnet: --transport=ipoib needs network interface ib0, which is down or has no address on this node'
	assert_line 'step 3 ok'
	assert_all_idle
}

@test "librspreload removed from one node mid-job: the next rsocket step fails there with its sentence" {
	mkdir -p "$IBNET_CLUSTER_DIR/rs-c1-2"
	cp "$RSPRELOAD" "$IBNET_CLUSTER_DIR/rs-c1-2/librspreload.so"
	cluster_up -n 2 --node-plugin-args 2 "rspreload=$IBNET_CLUSTER_DIR/rs-c1-2/librspreload.so"
	local jid
	jid=$(start_steps 'srun -N2 --transport=rsocket true' 'srun -N2 --transport=rsocket true' \
		'srun -N2 --transport=ipoib true')
	rm "$IBNET_CLUSTER_DIR/rs-c1-2/librspreload.so"
	go 2
	go 3
	"$CLUSTER" wait "$jid" 120
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line 'step 1 ok'
	assert_line 'step 2 failed'
	assert_output --partial "spank-ibnet: --transport=rsocket: librspreload not found at $IBNET_CLUSTER_DIR/rs-c1-2/librspreload.so"
	assert_line 'step 3 ok'
	assert_all_idle
}

@test "plugstack.conf edited between two steps: each step follows the file it starts with, or is refused with a sentence" {
	cluster_up -n 2
	local jid conf=$IBNET_CLUSTER_DIR/plugstack.conf
	cp "$conf" "$BATS_TEST_TMPDIR/plugstack.orig"
	jid=$(start_steps 'srun -N2 --transport=ipoib true' 'srun -N2 --transport=ipoib true' \
		'srun -N2 --transport=tcp true' 'srun -N2 --transport=tcp true')
	sed -i 's/$/ allowed=tcp/' "$conf"	# narrower: ipoib no longer allowed
	go 2
	go 3
	wait_for "$BATS_TEST_TMPDIR/ready-4"
	sed -i 's/$/ transprot=x/' "$conf"	# broken: an unknown key
	go 4
	"$CLUSTER" wait "$jid" 120
	cp "$BATS_TEST_TMPDIR/plugstack.orig" "$conf"
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line 'step 1 ok'
	assert_line 'step 2 failed'
	assert_output --partial 'spank-ibnet: --transport=ipoib is not allowed on this cluster (allowed: tcp)'
	assert_line 'step 3 ok'
	assert_line 'step 4 failed'
	assert_output --partial "unknown key 'transprot'"
	assert_all_idle
	run assert_daemons_healthy
	assert_success
}

@test "a node's slurmd restarted during a job: the job's later steps still get their network" {
	cluster_up -n 2
	local jid
	jid=$(start_steps 'srun -N2 --transport=ipoib printenv SLURM_IBNET_TRANSPORT' \
		'srun -N2 --transport=ipoib printenv SLURM_IBNET_TRANSPORT')
	run "$CLUSTER" restart c1-2
	assert_success
	go 2
	"$CLUSTER" wait "$jid" 120
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line 'step 1 ok'
	assert_line 'step 2 ok'
	[ "$(grep -c '^ipoib$' <<<"$output")" -eq 4 ]
	assert_all_idle
	run assert_daemons_healthy
	assert_success
}
