# SPDX-License-Identifier: GPL-2.0-or-later
# The paced all-to-all's unit tests share these launchers (tests/unit/
# alltoall.bats, alltoall-correctness.bats): real Open MPI and MPICH runs on
# this machine with the test build preloaded, each K consecutive ranks a
# pretend node (SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE).

A2A=$BUILD/libibnet-alltoall.so
A2A_TEST=$BUILD/tests/libibnet-alltoall.so
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RANK_OUTPUT=$BATS_TEST_DIRNAME/../helpers/rank-output
# Each MPI run is bounded: a hang shows its processes' stacks before they
# are stopped (helpers/bounded says why), then fails as timeout(1) would.
BOUNDED=$BATS_TEST_DIRNAME/../helpers/bounded

# ranks LAUNCHER-COMMAND... -- PROGRAM ARGS...: the launcher's command with
# each rank's output in a file of its own (helpers/rank-output says why),
# then every rank's file in rank order; the launcher's status. The
# launcher's own messages come first, as it prints them.
ranks() {
	local dir rc=0 launcher=() f
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		launcher+=("$1")
		shift
	done
	if [ $# -eq 0 ]; then
		echo "ranks: no '--' before the program" >&2
		return 2
	fi
	shift
	dir=$(mktemp -d "${BATS_TEST_TMPDIR:-/tmp}/ranks.XXXXXX")
	"${launcher[@]}" "$RANK_OUTPUT" "$dir" "$@" || rc=$?
	for f in $(ls "$dir" | sort -n); do
		cat "$dir/$f"
	done
	rm -rf "$dir"
	return "$rc"
}

# launcher_text LAUNCHER: ompi or mpich with what it needs (ranks, the
# paths it reads), as shell text for a job run by a shell of its own (in a
# namespace, say), where this file's functions and variables are not: one
# list, so that a launcher's new need reaches every such job.
launcher_text() {
	declare -f ranks "$1"
	declare -p A2A_TEST RANK_OUTPUT BOUNDED
}

# ompi NP RANKS_PER_NODE PROGRAM ARGS...: a real Open MPI run with the preload
# (the test build; PRELOAD= another), killed after TIMEOUT seconds (120);
# AGGREGATE=N the node-to-node setting (unset: the default, off);
# EXTRA=VAR=VALUE one more variable.
ompi() {
	local np=$1 rpn=$2
	shift 2
	ranks "$BOUNDED" "${TIMEOUT:-120}" mpirun.openmpi --oversubscribe --bind-to none --mca btl self,vader,tcp -np "$np" \
		-x LD_PRELOAD="${PRELOAD:-$A2A_TEST}" -x SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE="$rpn" \
		-x SLURM_IBNET_ALLTOALL_THRESHOLD="${THRESHOLD:-0}" -x SLURM_IBNET_ALLTOALL_REPORT=1 \
		${AGGREGATE:+-x SLURM_IBNET_ALLTOALL_AGGREGATE="$AGGREGATE"} ${EXTRA:+-x "$EXTRA"} -- "$@"
}

# ompi_threads_hang: true where this Open MPI is one whose own all-to-alls
# hang under MPI_THREAD_MULTIPLE (two threads, two communicators, nothing of
# ours loaded: tests/programs/mpi_threads_alltoallv.c): 6.0.0rc2, Debian
# forky's in November 2026, hung 1 run in 3 to 16 there; 4.1.4 did not in 30
# runs. Its release candidates only, so a fixed 6.0 is tested again.
ompi_threads_hang() {
	mpirun.openmpi --version 2>/dev/null | grep -q 'Open MPI) 6\.0\.0rc'
}

# mpich NP RANKS_PER_NODE PROGRAM ARGS...: the same with MPICH (Hydra).
mpich() {
	local np=$1 rpn=$2
	shift 2
	ranks "$BOUNDED" "${TIMEOUT:-120}" mpiexec.mpich -n "$np" -env LD_PRELOAD "${PRELOAD:-$A2A_TEST}" \
		-env SLURM_IBNET_ALLTOALL_TEST_RANKS_PER_NODE "$rpn" \
		-env SLURM_IBNET_ALLTOALL_THRESHOLD "${THRESHOLD:-0}" -env SLURM_IBNET_ALLTOALL_REPORT 1 \
		${AGGREGATE:+-env SLURM_IBNET_ALLTOALL_AGGREGATE "$AGGREGATE"} \
		${EXTRA:+-env "${EXTRA%%=*}" "${EXTRA#*=}"} -- "$@"
}
