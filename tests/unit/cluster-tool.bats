#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# devel/ibnet-cluster's commands that need no cluster, with Slurm's client
# stood in for: what the demo, the benchmarks and the cluster tests wait on.

load ../helpers/common

setup() {
	WORK=$(mktemp -d)
	mkdir "$WORK/bin"
	# A stand-in squeue that answers from a script of lines, one per call:
	# "timeout" fails as a loaded slurmctld does, "running" prints the state,
	# "gone" prints nothing ("warned" with a warning on stderr), "purged" fails
	# as for an unknown job id.
	cat > "$WORK/bin/squeue" <<-'EOF'
	#!/bin/bash
	n=$(($(cat "$SQUEUE_CALLS" 2>/dev/null || echo 0) + 1))
	echo "$n" > "$SQUEUE_CALLS"
	case $(sed -n "${n}p" "$SQUEUE_SCRIPT") in
	timeout) echo "squeue: error: slurm_load_jobs error: Socket timed out on send/recv operation" >&2; exit 1 ;;
	running) echo RUNNING ;;
	gone) ;;
	warned) echo "squeue: warning: a deprecated option" >&2 ;;
	purged) echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1 ;;
	*) echo "squeue stand-in: no line $n" >&2; exit 2 ;;
	esac
	EOF
	chmod +x "$WORK/bin/squeue"
	export PATH=$WORK/bin:$PATH SQUEUE_CALLS=$WORK/calls SQUEUE_SCRIPT=$WORK/script
	export IBNET_CLUSTER_DIR=$WORK/cluster
}
teardown() { rm -rf "$WORK"; }

@test "wait: a job is gone only when squeue says so, not when squeue fails" {
	printf '%s\n' running timeout timeout running gone > "$WORK/script"
	run "$REPO/devel/ibnet-cluster" wait 8 30
	assert_success
	# Returned on the fifth answer, the first that said the job had left.
	run cat "$WORK/calls"
	assert_output 5
}

@test "wait: a job slurmctld has already purged is gone" {
	printf '%s\n' timeout purged > "$WORK/script"
	run "$REPO/devel/ibnet-cluster" wait 8 30
	assert_success
	run cat "$WORK/calls"
	assert_output 2
}

@test "wait: an empty answer with a warning on stderr is still gone" {
	printf '%s\n' running warned > "$WORK/script"
	run "$REPO/devel/ibnet-cluster" wait 8 30
	assert_success
	run cat "$WORK/calls"
	assert_output 2
}
