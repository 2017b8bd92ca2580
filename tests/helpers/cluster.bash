# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for tests on the real test cluster (devel/ibnet-cluster).
# Every wait is bounded; the cluster is taken down in teardown_file.

CLUSTER=$REPO/devel/ibnet-cluster
# The cluster's layout is ibnet-cluster's to say (it honours IBNET_CLUSTER_DIR).
IBNET_CLUSTER_DIR=$("$CLUSTER" where dir)
SLURM_CONF=$("$CLUSTER" where slurm.conf)
export IBNET_CLUSTER_DIR SLURM_CONF
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# A test file with CLUSTER_NODES set before "load ../helpers/cluster" gets a
# cluster of that size for its tests, taken down at the end even on failure.
if [ -n "${CLUSTER_NODES:-}" ]; then
	setup_file() { cluster_up -n "$CLUSTER_NODES"; }
	teardown_file() { cluster_down; }
fi

cluster_up() {
	"$CLUSTER" up "$@" >/dev/null
}

cluster_down() {
	"$CLUSTER" down >/dev/null 2>&1 || true
}

# batch OUTFILE SBATCH-ARGS... : submit, wait, print the output; status is
# 0 only if the job COMPLETED.
batch() {
	local out=$1 jid state
	shift
	jid=$(sbatch --parsable -o "$out" "$@") || return 1
	"$CLUSTER" wait "$jid" 180 || return 1
	cat "$out"
	state=$(sacct_state "$jid")
	[ "$state" = COMPLETED ]
}

# The job's final state, from slurmctld (no accounting database here); for
# a heterogeneous job, that of its first component.
sacct_state() {
	scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1
}

# How many jobs slurmctld has ever been given (the next job id minus one):
# proves a refused submission queued nothing, even briefly.
sacct_count() {
	scontrol show config | sed -n 's/^NEXT_JOB_ID *= *//p'
}

# The nodes' states ("NODE STATE" lines) once none is completing its last
# job, 20 s at most: a job's end runs its epilog on each node (spank-ibnet's
# job_epilog among them) before the node is idle again. A drained or down
# node stays so, and the caller's assertion fails.
nodes_state() {
	local i
	for i in $(seq 1 40); do
		sinfo -h -N -o '%N %t' | grep -q ' comp' || break
		sleep 0.5
	done
	sinfo -h -N -o '%N %t'
}

# No slurmd may have died, and no log may show a crash.
assert_daemons_healthy() {
	local n pid rundir logdir
	rundir=$("$CLUSTER" where run) logdir=$("$CLUSTER" where log)
	for n in $(cat "$("$CLUSTER" where nodes)"); do
		pid=$(cat "$rundir/slurmd-c1-$n.pid")
		kill -0 "$pid" || { echo "slurmd c1-$n (pid $pid) is gone"; return 1; }
	done
	pid=$(cat "$rundir/slurmctld.pid")
	kill -0 "$pid" || { echo "slurmctld is gone"; return 1; }
	if grep -l -i -E 'segfault|segmentation|fatal|core dumped|abort' "$logdir"/*.log; then
		echo "a daemon log shows a crash"
		return 1
	fi
}
