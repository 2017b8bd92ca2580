#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The paced all-to-all in real jobs: --ordered-alltoall preloads it, and
# each MPI finds the job's nodes itself (MPI_Comm_split_type), here the
# simulated nodes (network namespaces; they share the machine's 2 cores).
# Every exchange is compared byte for byte with the MPI's own
# (tests/programs/a2a_check.c). The threshold is set to 0 for these jobs so
# that every size, from 0 bytes up, takes the paced path.

CLUSTER_NODES=3
load ../helpers/common
load ../helpers/cluster

# a2a_job RANKS_PER_NODE COMMAND...: a 3-node batch job with --ordered-alltoall.
# The simulated nodes have 2 CPUs: 3 ranks per node are placed by mpirun.
a2a_job() {
	local per_node=$1
	shift
	[ "$per_node" -gt 2 ] && per_node=2
	{
		echo '#!/bin/bash'
		echo 'echo "env $SLURM_IBNET_ALLTOALL ${LD_PRELOAD##*/}"'
		echo "$*"
	} > "$BATS_TEST_TMPDIR/job.sh"
	SLURM_IBNET_ALLTOALL_THRESHOLD=0 SLURM_IBNET_ALLTOALL_REPORT=1 \
		batch "$BATS_TEST_TMPDIR/out" -N3 --ntasks-per-node="$per_node" --transport=tcp \
		--ordered-alltoall "$BATS_TEST_TMPDIR/job.sh"
}

# paced_calls: how many calls (MPI_Alltoall and MPI_Alltoallv) rank 0 says
# were paced, from $output.
paced_calls() {
	sed -n 's/.*spank-ibnet alltoall: rank 0: MPI_Alltoallv\{0,1\}: [0-9]* calls\{0,1\}: \([0-9]*\) paced.*/\1/p' <<<"$output" |
		awk '{ n += $1 } END { print n + 0 }'
}

OMPI_RUN="timeout 150 mpirun.openmpi --bind-to none --mca mpi_yield_when_idle 1 -x SLURM_IBNET_ALLTOALL_THRESHOLD -x SLURM_IBNET_ALLTOALL_REPORT"

@test "Open MPI across 3 nodes, 1 to 3 ranks per node: byte-identical to the library's own, and paced" {
	local k
	for k in 1 2 3; do
		run a2a_job "$k" "$OMPI_RUN --oversubscribe --map-by ppr:$k:node -np $((3 * k)) $BUILD/tests/a2a_check.openmpi $k 16 60000"
		assert_success
		assert_line "env paced libibnet-alltoall.so"
		assert_line "CHECK cases=16 ranks=$((3 * k)) failures=0"
		[ "$(paced_calls)" -gt 0 ]
		refute_output --partial 'all ranks on one node'
	done
}

@test "MPICH (Hydra) across 3 nodes, 2 ranks per node: byte-identical, and paced" {
	run a2a_job 2 "timeout 150 mpiexec.mpich -n 6 $BUILD/tests/a2a_check.mpich 7 30 100000"
	assert_success
	assert_line "CHECK cases=30 ranks=6 failures=0"
	[ "$(paced_calls)" -gt 0 ]
}

@test "Fortran across 3 nodes, Open MPI and MPICH" {
	run a2a_job 1 "$OMPI_RUN -np 3 $BUILD/tests/a2a_fortran.openmpi; timeout 150 mpiexec.mpich -n 3 $BUILD/tests/a2a_fortran.mpich"
	assert_success
	# Unanchored: a rank's stdout reaches mpirun through a pty, and the
	# library's report (stderr) can land on either side of the program's line
	# (CI's trixie stack once counted 1 of 2 with the line anchored).
	assert_equal "$(grep -c 'FORTRAN ranks=3 bad=0\($\|spank-ibnet \)' <<<"$output")" 2
	# Its MPI_IN_PLACE call is paced too (0.9; counted "MPI_IN_PLACE" before).
	assert_equal "$(grep -c 'spank-ibnet alltoall: rank 0: MPI_Alltoall: 2 calls: 2 paced$' <<<"$output")" 2
}

# Debian's mpi4py (built for Open MPI) asks MPI_THREAD_MULTIPLE unless told
# otherwise: paced since 0.9 (0.8 handed those calls over), as at
# MPI_THREAD_SINGLE. Every byte is checked against what its sender wrote.
@test "Python: the real mpi4py under --ordered-alltoall, Alltoall, Alltoallv and Alltoallw paced at its default thread level (MPI_THREAD_MULTIPLE) and at MPI_THREAD_SINGLE" {
	local py="/usr/bin/python3 $BATS_TEST_DIRNAME/../programs/a2a_mpi4py.py" level
	for level in default single; do
		run a2a_job 1 "$OMPI_RUN -np 3 $py $level 20000"
		assert_success
		# Not anchored at a line's start: mpirun forwards rank 0's stdout (the
		# program's line) and stderr (the library's report) apart, and a CI
		# run had the line's newline arrive after the report's first line
		# ("... bad=0spank-ibnet alltoall: rank 0: ...").
		assert_output --regexp "MPI4PY ranks=3 level=[03] bad=0([^0-9]|$)"
		# mpi4py's default is MPI_THREAD_MULTIPLE (3)
		[ $level = single ] || assert_output --regexp 'MPI4PY ranks=3 level=3 bad=0([^0-9]|$)'
		# mpi4py 4 calls the large-count forms where the MPI has them (Open
		# MPI 6 on Debian forky): paced alike, counted by that name.
		assert_line --regexp 'spank-ibnet alltoall: rank 0: MPI_Alltoall(_c)?: 1 call: 1 paced$'
		assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallv(_c)?: 1 call: 1 paced$'
		assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallw(_c)?: 1 call: 1 paced$'
	done
}

@test "inside a paced job, srun, bash and python3 run as without the preload" {
	run a2a_job 1 "srun -N3 bash -c 'echo step \$((6*7)) \$(grep -c libmpi /proc/self/maps)'; python3 -c 'print(sum(1 for l in open(\"/proc/self/maps\") if \"libmpi\" in l), \"python\")'"
	assert_success
	assert_equal "$(grep -c '^step 42 0$' <<<"$output")" 3
	assert_line '0 python'
}

# Without a report (the user's default), each node's log gets the step's
# counts: the plugin's tally directory, summed in slurm_spank_exit.
@test "the node's log line counts a paced step's calls when the user asked for no report, and the tally directory is removed" {
	local jid n dir
	cat > "$BATS_TEST_TMPDIR/job.sh" <<JOB
#!/bin/bash
echo "tally \$SLURM_IBNET_ALLTOALL_TALLY"
timeout 150 mpirun.openmpi --bind-to none --mca mpi_yield_when_idle 1 -x SLURM_IBNET_ALLTOALL_THRESHOLD -np 3 $BUILD/tests/a2a_churn.openmpi 5 64
JOB
	jid=$(SLURM_IBNET_ALLTOALL_THRESHOLD=0 sbatch --parsable -o "$BATS_TEST_TMPDIR/out" -N3 \
		--ntasks-per-node=1 --transport=tcp --ordered-alltoall "$BATS_TEST_TMPDIR/job.sh")
	"$CLUSTER" wait "$jid" 180
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line 'CHURN rounds=5 ranks=3 bad=0'
	refute_output --partial 'spank-ibnet alltoall:'	# nothing said to the user
	dir=$(sed -n 's/^tally //p' <<<"$output")
	[[ $dir == /tmp/spank-ibnet-tally.* ]]
	[ ! -e "$dir" ]
	# One line per node, under whichever step its rank ran in (mpirun's own
	# node: the batch step; the others: the step of Open MPI's daemons).
	for n in $(cat "$IBNET_CLUSTER_DIR/nodes"); do
		run grep -E "spank-ibnet: job $jid (batch step|step [0-9]+) on c1-$n: all-to-all calls of 1 process: MPI_Alltoall: 5 calls: 5 paced\$" \
			"$IBNET_CLUSTER_DIR/log/slurmd-c1-$n.log"
		echo "node c1-$n"
		assert_success
	done
	# And a second line: the window its processes reached (alltoall_window=auto,
	# the default since issue 40).
	for n in $(cat "$IBNET_CLUSTER_DIR/nodes"); do
		run grep -E "spank-ibnet: job $jid (batch step|step [0-9]+) on c1-$n: window reached [0-9.]+ [KM]iB( to [0-9.]+ [KM]iB)? \(auto\); least credit round trip [0-9]+ us; [0-9]+ calls? with loss\$" \
			"$IBNET_CLUSTER_DIR/log/slurmd-c1-$n.log"
		echo "node c1-$n: window"
		assert_success
	done
	# A directory the job names itself is its own: kept, filled, not removed.
	mkdir "$BATS_TEST_TMPDIR/mine"
	jid=$(SLURM_IBNET_ALLTOALL_THRESHOLD=0 SLURM_IBNET_ALLTOALL_TALLY=$BATS_TEST_TMPDIR/mine \
		sbatch --parsable -o "$BATS_TEST_TMPDIR/out" -N3 --ntasks-per-node=1 --transport=tcp \
		--ordered-alltoall "$BATS_TEST_TMPDIR/job.sh")
	"$CLUSTER" wait "$jid" 180
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line "tally $BATS_TEST_TMPDIR/mine"
	assert_line 'CHURN rounds=5 ranks=3 bad=0'
	# One file of calls per rank; the floor --ordered-alltoall brings adds one
	# (tcp.*) per process that made a floored socket.
	[ "$(ls "$BATS_TEST_TMPDIR/mine" | grep -c '^a2a\.')" -eq 3 ]
	[ "$(ls "$BATS_TEST_TMPDIR/mine" | grep -c '^tcp\.')" -ge 3 ]
	run grep -h "spank-ibnet: job $jid .*all-to-all calls" "$IBNET_CLUSTER_DIR"/log/slurmd-c1-*.log
	assert_failure
}

# segment_ranks JOBID: the pids of the job's a2a_steps ranks that map a
# node-to-node segment (an unnamed memfd, "memfd:ibnet-a2a" in their maps),
# but none of $ranks_before (a job id is used again by the next cluster).
segment_ranks() {
	local p
	for p in $(pgrep -f "^$BUILD/tests/a2a_steps.openmpi " 2>/dev/null); do
		grep -qxF "$p" <<<"$ranks_before" && continue
		tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$1" &&
			grep -q 'memfd:ibnet-a2a' "/proc/$p/maps" 2>/dev/null && echo "$p"
	done
	return 0	# the last process not the job's is no failure
}

# A test that leaves jobs running if it fails names them in
# $BATS_TEST_TMPDIR/jobs: cancelled here, so that no step outlives the
# cluster (its slurmstepd would, after the cluster is taken down).
teardown() {
	local j
	[ -f "$BATS_TEST_TMPDIR/jobs" ] || return 0
	for j in $(cat "$BATS_TEST_TMPDIR/jobs"); do
		scancel "$j" 2>/dev/null || true
		"$CLUSTER" wait "$j" 60 || true
	done
}

# Issue 50, finding 8: a named segment was left in /dev/shm (256 MiB
# reserved) by a job that ended between its making and its unlinking. Two
# jobs of 2 nodes x 2 ranks, node to node (alltoall_aggregate=2) in a loop
# of calls: one cancelled mid-call, one ended by its time limit (1 minute,
# Slurm's least). While they run, no ibnet-a2a name is in /dev/shm at all
# and every rank maps the unnamed segment; after, no rank is left and
# nothing in /dev/shm, and no node drained.
@test "a job cancelled mid-call and one ended by its time limit leave nothing in /dev/shm: node to node's segments have no name and go with the job's processes" {
	local s t i n p pids_s pids_t before ranks_before
	# What /dev/shm holds of ours already (another run's, a killed job's
	# from before 0.9): the jobs must add nothing to it.
	before=$(ls -A /dev/shm | grep ibnet-a2a || true)
	ranks_before=$(pgrep -f "^$BUILD/tests/a2a_steps.openmpi " || true)
	# The cancelled job calls without end; the timed-out one makes its calls
	# and then holds its segments, waiting (A2A_STEPS_HOLD_SECONDS), so that
	# the minute its time limit takes costs no CPU to the machine's others.
	cat > "$BATS_TEST_TMPDIR/long.sh" <<JOB
#!/bin/bash
$OMPI_RUN -x SLURM_IBNET_ALLTOALL_AGGREGATE -x A2A_STEPS_HOLD_SECONDS --oversubscribe --map-by ppr:2:node -np 4 $BUILD/tests/a2a_steps.openmpi 65536 \${CALLS:-1000000}
JOB
	export SLURM_IBNET_ALLTOALL_THRESHOLD=0 SLURM_IBNET_ALLTOALL_AGGREGATE=2
	s=$(sbatch --parsable -o "$BATS_TEST_TMPDIR/out-s" -N2 -w c1-1,c1-2 --ntasks-per-node=1 \
		--transport=tcp --ordered-alltoall "$BATS_TEST_TMPDIR/long.sh")
	t=$(CALLS=20 A2A_STEPS_HOLD_SECONDS=300 sbatch --parsable -o "$BATS_TEST_TMPDIR/out-t" -N2 \
		-w c1-2,c1-3 --ntasks-per-node=1 --time=1 --transport=tcp --ordered-alltoall \
		"$BATS_TEST_TMPDIR/long.sh")
	echo "$s $t" > "$BATS_TEST_TMPDIR/jobs"
	for i in $(seq 1 120); do
		pids_s=$(segment_ranks "$s") pids_t=$(segment_ranks "$t")
		[ "$(wc -w <<<"$pids_s")" -eq 4 ] && [ "$(wc -w <<<"$pids_t")" -eq 4 ] && break
		sleep 0.5
	done
	echo "cancelled job $s: ranks" $pids_s "; timed-out job $t: ranks" $pids_t
	[ "$(wc -w <<<"$pids_s")" -eq 4 ] && [ "$(wc -w <<<"$pids_t")" -eq 4 ]
	assert_equal "$(ls -A /dev/shm | grep ibnet-a2a || true)" "$before"
	scancel "$s"
	"$CLUSTER" wait "$s" 60
	"$CLUSTER" wait "$t" 150
	[ "$(sacct_state "$s")" = CANCELLED ]
	[ "$(sacct_state "$t")" = TIMEOUT ]
	for p in $pids_s $pids_t; do
		for i in $(seq 1 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.25; done
		! kill -0 "$p" 2>/dev/null || { echo "rank pid $p outlived its job"; false; }
	done
	assert_equal "$(ls -A /dev/shm | grep ibnet-a2a || true)" "$before"
	run nodes_state
	refute_output --regexp 'drain|down'
	unset SLURM_IBNET_ALLTOALL_THRESHOLD SLURM_IBNET_ALLTOALL_AGGREGATE
}
