#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The paced all-to-all node to node (alltoall/ibnet_a2a_nodes.c), on this
# machine: real Open MPI and MPICH runs with the test build preloaded, each
# K consecutive ranks (or runs of SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES) a
# pretend node that shares memory as a real node's ranks do. Simulated: no
# network between the pretend nodes, so these test routes, bytes and the
# schedule's round trips, not speed (devel/a2a-many measures that).

load ../helpers/common
load ../helpers/alltoall

# Node to node from 2 ranks per node for this file; the default, auto, takes
# it only where pair by pair would exceed the window (its own test below).
AGGREGATE=2

# nodes_count OUTPUT KIND: rank 0's "N of the paced calls node to node" count.
nodes_count() {
	sed -n "s/^spank-ibnet alltoall: rank 0: $2: \([0-9]*\) of the paced calls node to node.*/\1/p" <<<"$1"
}

@test "node to node: byte-identical to PMPI_Alltoall/v over random sizes, datatypes and sub-communicators, 2 to 8 ranks per node, Open MPI and MPICH" {
	needs openmpi mpich
	local rpn TIMEOUT=300	# MPICH's 12 polling ranks took over 120 s beside two other suites
	for rpn in 2 3 4 8; do
		run ompi 16 "$rpn" "$BUILD/tests/a2a_check.openmpi" "$rpn" 30
		assert_success
		assert_line 'CHECK cases=30 ranks=16 failures=0'
		# The node-to-node route was taken, not handed over.
		[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ] || { echo "rpn $rpn: no call node to node"; false; }
	done
	for rpn in 2 4; do
		run mpich 12 "$rpn" "$BUILD/tests/a2a_check.mpich" "$((rpn + 10))" 30
		assert_success
		assert_line 'CHECK cases=30 ranks=12 failures=0'
		[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ]
	done
}

@test "node to node: uneven nodes (3 + 5 + 1 ranks), one lane each: byte-identical, Open MPI and MPICH" {
	needs openmpi mpich
	local TIMEOUT=300	# each run took about 60 s of its 120 beside two other suites
	EXTRA=SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES=3,5,1 run ompi 9 0 "$BUILD/tests/a2a_check.openmpi" 21 40
	assert_success
	assert_line 'CHECK cases=40 ranks=9 failures=0'
	[ "$(nodes_count "$output" MPI_Alltoall)" -gt 0 ]
	EXTRA=SLURM_IBNET_ALLTOALL_TEST_NODE_SIZES=3,5,1 run mpich 9 0 "$BUILD/tests/a2a_check.mpich" 22 40
	assert_success
	assert_line 'CHECK cases=40 ranks=9 failures=0'
	[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ]
}

@test "node to node: one lane and many lanes give the same bytes; 48 ranks in 3 pretend nodes of 16 (alltoall.bats runs 256 ranks)" {
	needs openmpi
	EXTRA=SLURM_IBNET_ALLTOALL_TEST_LANES=1 run ompi 16 4 "$BUILD/tests/a2a_check.openmpi" 31 30
	assert_success
	assert_line 'CHECK cases=30 ranks=16 failures=0'
	TIMEOUT=300 run ompi 48 16 "$BUILD/tests/a2a_check.openmpi" 32 4 4096
	assert_success
	assert_line 'CHECK cases=4 ranks=48 failures=0'
	[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ] || [ "$(nodes_count "$output" MPI_Alltoall)" -gt 0 ]
}

@test "SLURM_IBNET_ALLTOALL_AGGREGATE: unset (the default) and 0 keep pair by pair; above the ranks per node keeps pair by pair; a bad value is refused by name" {
	needs openmpi
	AGGREGATE= run ompi 8 4 "$BUILD/tests/a2a_check.openmpi" 41 20
	assert_success
	refute_output --partial 'node to node'
	AGGREGATE=0 run ompi 8 4 "$BUILD/tests/a2a_check.openmpi" 41 20
	assert_success
	assert_line 'CHECK cases=20 ranks=8 failures=0'
	refute_output --partial 'node to node'
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallv: [0-9]+ calls: [1-9][0-9]* paced'
	AGGREGATE=5 run ompi 8 4 "$BUILD/tests/a2a_check.openmpi" 41 20
	assert_success
	refute_output --partial 'node to node'
	AGGREGATE=4 run ompi 8 4 "$BUILD/tests/a2a_check.openmpi" 41 20
	assert_success
	[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ]
	AGGREGATE=lots run ompi 4 2 "$BUILD/tests/a2a_check.openmpi" 41 5
	assert_success
	assert_output --partial "SLURM_IBNET_ALLTOALL_AGGREGATE: 'lots' is not a number of ranks per node (0 to 1000; 0: never node to node)"
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallv: [0-9]+ calls: 0 paced, [0-9]+ switched off'
}

@test "alltoall_aggregate=auto (the default): node to node from 17 ranks per node, where pair by pair's 1 KiB chunks would exceed the 16 KiB window; 16 stay pair by pair; a larger window or 0 keeps pair by pair; byte-identical, said in the report" {
	needs openmpi
	local TIMEOUT=300
	# 2 pretend nodes x 17 ranks: 17 x 1 KiB in flight pair by pair > 16 KiB.
	AGGREGATE= run ompi 34 17 "$BUILD/tests/a2a_check.openmpi" 71 12
	assert_success
	assert_line 'CHECK cases=12 ranks=34 failures=0'
	[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ] || [ "$(nodes_count "$output" MPI_Alltoall)" -gt 0 ]
	assert_output --partial 'node to node (a node'"'"'s blocks together; alltoall_aggregate=auto: more ranks on a node than pair by pair keeps within the window)'
	# 16 ranks: 16 KiB, within the window.
	AGGREGATE= run ompi 32 16 "$BUILD/tests/a2a_check.openmpi" 72 12
	assert_success
	assert_line 'CHECK cases=12 ranks=32 failures=0'
	refute_output --partial 'node to node'
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallv: [0-9]+ calls: [1-9][0-9]* paced'
	# A 32 KiB window holds 17 ranks' chunks; 0 is never.
	AGGREGATE= EXTRA=SLURM_IBNET_ALLTOALL_WINDOW=32k run ompi 34 17 "$BUILD/tests/a2a_check.openmpi" 73 12
	assert_success
	assert_line 'CHECK cases=12 ranks=34 failures=0'
	refute_output --partial 'node to node'
	AGGREGATE=0 run ompi 34 17 "$BUILD/tests/a2a_check.openmpi" 74 12
	assert_success
	assert_line 'CHECK cases=12 ranks=34 failures=0'
	refute_output --partial 'node to node'
}

@test "one rank per node keeps pair by pair: the same route as before, nothing node to node" {
	needs openmpi
	run ompi 6 1 "$BUILD/tests/a2a_check.openmpi" 51 30
	assert_success
	assert_line 'CHECK cases=30 ranks=6 failures=0'
	refute_output --partial 'node to node'
}

@test "a node that cannot make its shared segment: every rank hands the call over, counted as out of memory, no rank waits" {
	needs openmpi mpich
	EXTRA=SLURM_IBNET_ALLTOALL_TEST_NO_SEGMENT=5 run ompi 8 4 "$BUILD/tests/a2a_check.openmpi" 61 20
	assert_success
	assert_line 'CHECK cases=20 ranks=8 failures=0'
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallv: [0-9]+ calls: 0 paced, .*[1-9][0-9]* out of memory'
	EXTRA=SLURM_IBNET_ALLTOALL_TEST_NO_SEGMENT=2 run mpich 8 4 "$BUILD/tests/a2a_check.mpich" 62 20
	assert_success
	assert_line 'CHECK cases=20 ranks=8 failures=0'
	assert_line --regexp '^spank-ibnet alltoall: rank 0: MPI_Alltoallv: [0-9]+ calls: 0 paced, .*[1-9][0-9]* out of memory'
}

# per_call OUTPUT FIELD: the busiest rank's count of FIELD ("credits
# granted", "round trips in a row, over all calls") per call of rank 0's.
per_call() {
	local calls most
	calls=$(sed -n 's/^spank-ibnet alltoall: rank 0: MPI_Alltoall: \([0-9]*\) calls:.*/\1/p' <<<"$1")
	most=$(sed -n "s/^spank-ibnet alltoall: rank [0-9]*: test: .*$2: \([0-9]*\).*/\1/p" <<<"$1" | sort -n | tail -1)
	echo $((most / calls))
}

@test "the schedule's round trips: 8 nodes x 8 ranks, 512 B per pair, node to node 14 per call, pair by pair more (the cost model)" {
	needs openmpi
	# The cost model (docs/bench/many-ranks.md), window W = 16 KiB, one credit:
	#   pair by pair: a rank's share of the window is W/L = 2 KiB; each of
	#     the (N-1) L = 56 blocks it receives is a grant, up to 4 of them in
	#     flight (0.8 granted one at a time: 56 round trips in a row), but a
	#     sender answers only its current and next phase: more than 56 / 4;
	#   node to node: K = 4 lanes, each receives L x L/K x 512 B = 8 KiB per
	#     phase in chunks of W/K = 4 KiB: 2 grants x 7 phases, one at a time.
	local n=8 l=8 b=512 w=16384 k=4 pair_grants pair_rounds node_grants node_rounds
	# The model's W, fixed (alltoall_window=auto, the default since issue 40, moves it).
	export EXTRA=SLURM_IBNET_ALLTOALL_WINDOW=16k
	AGGREGATE=0 TIMEOUT=300 run ompi $((n * l)) $l "$BUILD/tests/a2a_bench" 0.05 $b
	assert_success
	pair_grants=$(per_call "$output" "credits granted")
	pair_rounds=$(per_call "$output" "round trips in a row, over all calls")
	TIMEOUT=300 run ompi $((n * l)) $l "$BUILD/tests/a2a_bench" 0.05 $b
	assert_success
	node_grants=$(per_call "$output" "credits granted")
	node_rounds=$(per_call "$output" "round trips in a row, over all calls")
	echo "per call on the busiest rank: pair by pair $pair_grants grants, $pair_rounds round trips in a row; node to node $node_grants, $node_rounds"
	[ "$pair_grants" -eq $(((n - 1) * l)) ]
	[ "$pair_rounds" -ge $(((n - 1) * l / 4)) ] && [ "$pair_rounds" -lt $(((n - 1) * l)) ]
	[ "$node_grants" -eq $(((n - 1) * ((l * l / k * b + w / k - 1) / (w / k)))) ]
	[ "$node_rounds" -eq "$node_grants" ]
	[ "$node_rounds" -lt "$pair_rounds" ]
}

@test "communicators that share a node's port share its window: a job of 4 ranks per node calling on communicators of one rank per node grants a quarter each, right bytes, said in the report; the launcher's count read for the right node" {
	needs openmpi
	# Pair by pair (each rank a pretend node of its communicator), Slurm's
	# tasks per node for node 1: 4. Before, each communicator's receivers
	# granted the whole window, and four of them at once overran the port.
	local shared alone
	EXTRA=SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS="4(x2):1" run ompi 4 1 "$BUILD/tests/a2a_check.openmpi" 3 10 65536
	assert_success
	assert_line 'CHECK cases=10 ranks=4 failures=0'
	shared=$output
	run ompi 4 1 "$BUILD/tests/a2a_check.openmpi" 3 10 65536
	assert_success
	assert_line 'CHECK cases=10 ranks=4 failures=0'
	alone=$output
	assert_equal "$(grep -c "the node's window shared by up to 4 communicators at once (the job has 4 ranks on this node, a communicator 1)" <<<"$shared")" 4
	refute [ -n "$(grep "window shared" <<<"$alone")" ]
	# A quarter of the window each: more, smaller grants for the same bytes.
	local g_shared g_alone
	g_shared=$(sed -n 's/.*rank 0: test: credits granted: \([0-9]*\);.*/\1/p' <<<"$shared")
	g_alone=$(sed -n 's/.*rank 0: test: credits granted: \([0-9]*\);.*/\1/p' <<<"$alone")
	echo "grants: shared $g_shared, alone $g_alone"
	[ "$g_shared" -gt "$g_alone" ]
	# Slurm's compressed list, read for the node it names; past it or
	# malformed: not known, nothing shared.
	local list
	for list in "2,4(x3):0=2" "2,4(x3):3=4" "3(x2),1:1=3"; do
		EXTRA=SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS="${list%=*}" run ompi 2 1 "$BUILD/tests/a2a_check.openmpi" 3 2 4096
		assert_output --partial "the node's window shared by up to ${list#*=} communicators at once (the job has ${list#*=} ranks on this node, a communicator 1)"
	done
	for list in "4(x2):2" "x4:0" "4(x0):0" "4(x2" "4:"; do
		EXTRA=SLURM_IBNET_ALLTOALL_TEST_STEP_TASKS="$list" run ompi 2 1 "$BUILD/tests/a2a_check.openmpi" 3 2 4096
		assert_success
		refute_output --partial "window shared"
	done
}

# small_shm SIZE CMD...: CMD in a mount namespace of its own whose /dev/shm
# is a fresh tmpfs of SIZE (a container's, say); the machine's is untouched.
small_shm() {
	local size=$1
	shift
	unshare -m --propagation private sh -c 'mount -t tmpfs -o size="$0" tmpfs /dev/shm && exec "$@"' \
		"$size" "$@"
}

@test "a /dev/shm too small for node to node (a container's): calls too large for it go pair by pair on every rank, right data, the reason said, no signal; Open MPI and MPICH" {
	needs openmpi mpich
	# 2 pretend nodes of 2 ranks, up to 2 MiB per pair: a segment of up to
	# 16 MiB, against half of what a 48 MiB /dev/shm has left beside the
	# MPI's own shared memory (Open MPI 5's takes 16 MiB, MPICH's UCX about
	# 4 MiB a rank; less than 48 MiB fails the MPI itself).
	run small_shm 48m bash -c "$(launcher_text ompi); AGGREGATE=2; ompi 4 2 '$BUILD/tests/a2a_check.openmpi' 87 6 2097152"
	assert_success
	assert_line 'CHECK cases=6 ranks=4 failures=0'
	assert_output --regexp 'spank-ibnet alltoall: node to node needs a shared segment of [0-9.]+ MiB on this node, but /dev/shm has [0-9.]+ MiB free and node to node takes at most half of it: these calls go pair by pair'
	refute_output --partial 'Bus error'
	refute_output --partial 'out of memory'
	run small_shm 48m bash -c "$(launcher_text mpich); AGGREGATE=2; mpich 4 2 '$BUILD/tests/a2a_check.mpich' 87 6 2097152"
	assert_success
	assert_line 'CHECK cases=6 ranks=4 failures=0'
	assert_output --partial 'these calls go pair by pair'
	refute_output --partial 'Bus error'
	refute_output --partial 'out of memory'
}

@test "node-to-node segments cannot be taken first by another user: every name a squatter could predict (leader pid, call number) taken, the calls still go node to node (the segments have no name since issue 50)" {
	needs openmpi
	# In a /dev/shm of its own: the next 600 pids, 8 numbers each, as the
	# names were made before (/ibnet-a2a.PID.N).
	run small_shm 64m bash -c "
		last=\$(cat /proc/sys/kernel/ns_last_pid)
		for pid in \$(seq \$((last + 1)) \$((last + 600))); do
			for n in 0 1 2 3 4 5 6 7; do : > /dev/shm/ibnet-a2a.\$pid.\$n; done
		done
		$(launcher_text ompi); AGGREGATE=2; ompi 4 2 '$BUILD/tests/a2a_check.openmpi' 83 6 4096"
	assert_success
	assert_line 'CHECK cases=6 ranks=4 failures=0'
	refute_output --partial 'out of memory'
	[ "$(nodes_count "$output" MPI_Alltoallv)" -gt 0 ] || [ "$(nodes_count "$output" MPI_Alltoall)" -gt 0 ]
}

@test "a rank killed while its node's ranks share a segment (a job ended by scancel, its time limit or a crash) leaves nothing in /dev/shm: the segment has no name" {
	needs openmpi
	# Rank 0, its node's first rank, killed by SIGKILL just after its node's
	# segment was made and handed to the node's other rank, before the
	# agreement after which a named segment was unlinked: a name made there
	# (/dev/shm/ibnet-a2a.PID.RANDOM) outlived every process of the job. In
	# a /dev/shm of its own, looked at after the job.
	run small_shm 64m bash -c "$(launcher_text ompi); AGGREGATE=2
		EXTRA=SLURM_IBNET_ALLTOALL_TEST_DIE_IN_SEGMENT=0 ompi 4 2 '$BUILD/tests/a2a_check.openmpi' 83 2 4096
		echo \"job: \$?\"; echo left:; ls -A /dev/shm"
	assert_success
	refute_line 'job: 0'
	assert_output --regexp 'signal 9|Killed'
	refute_output --partial 'CHECK cases='
	refute_output --regexp 'ibnet-a2a'
}

# own_memory_cgroup: the directory of this process's cgroup v1 memory
# controller, as this mount namespace sees it, or nothing. /proc/self/cgroup
# says the path from the process's cgroup namespace's top; mountinfo says
# where that top is below the mount: as a path, or (a mount of the whole
# hierarchy seen from inside a namespace, as CI's stacks bind it) as "/.."
# once per level, naming none: then the directory at that depth that holds
# this process is the one (ibnet_a2a_room.c finds it so too).
own_memory_cgroup() {
	local path root mnt up base
	path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	read -r root mnt < <(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
		if ($(i + 1) == "cgroup" && $(i + 3) ~ /(^|,)memory(,|$)/) print $4, $5; break } }' \
		/proc/self/mountinfo | head -1)
	[ -n "$path" ] && [ -n "$mnt" ] || return 0
	[ "$path" = / ] && path=
	if [[ "$root" =~ ^(/\.\.)+$ ]]; then
		up=$((${#root} / 3))
		for base in $(find "$mnt" -mindepth "$up" -maxdepth "$up" -type d 2>/dev/null | head -4096); do
			grep -qx "$BASHPID" "$base$path/cgroup.procs" 2>/dev/null && { echo "$base$path"; return 0; }
		done
		return 0
	fi
	[ "$root" = / ] && root=
	case $path in
	"$root"|"$root"/*) echo "$mnt${path#"$root"}" ;;
	esac
}

# in_memory_limit BYTES CMD...: CMD in a memory cgroup of its own, made for
# it below this process's and removed after, with a limit of BYTES, as
# Slurm's ConstrainRAMSpace sets one for a job: cgroup v1's memory
# controller (Slurm's cgroup/v1, this machine's), else v2's where its root
# hands the memory controller down. BYTES "peak": no limit, and the most the
# cgroup held is printed last ("peak N"). Status 77 where neither can be made.
in_memory_limit() {
	local limit=$1 dir rc=0 own peak=memory.max_usage_in_bytes
	shift
	own=$(own_memory_cgroup)
	[ "$limit" = peak ] && limit=$((64 << 30))
	if [ -n "$own" ] && [ -d "$own" ]; then
		dir=${own%/}/ibnet-test.$$
		mkdir "$dir" 2>/dev/null && echo "$limit" > "$dir/memory.limit_in_bytes" || return 77
	elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
		dir=/sys/fs/cgroup/ibnet-test.$$ peak=memory.peak
		mkdir "$dir" 2>/dev/null && echo "$limit" > "$dir/memory.max" || return 77
	else
		return 77
	fi
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@" || rc=$?
	[ -r "$dir/$peak" ] && echo "peak $(cat "$dir/$peak")"
	rmdir "$dir"
	return $rc
}

@test "node to node under the job's memory limit (ConstrainRAMSpace): a segment that would not fit in half of what the limit leaves is not made; pair by pair, the reason said, right data, no rank killed" {
	needs openmpi
	local job peak
	# 2 pretend nodes of 2 ranks, 4 MiB per pair: each node's segments take
	# 64 MiB, 128 MiB in all. The job's peak pair by pair is measured first
	# (about 220 MiB with Open MPI 4, more with 6's daemons), then the job
	# runs under that peak and 40 MiB more: node to node would bring the OOM
	# killer (a rank killed, 137, as when /dev/shm's free space was the only
	# budget), and half of 40 MiB holds no segment.
	job="$(launcher_text ompi); ompi 4 2 '$BUILD/tests/a2a_steps.openmpi' 4194304 3"
	run in_memory_limit peak bash -c "AGGREGATE=0; $job"
	[ "$status" -ne 77 ] || skip "no memory cgroup can be made here"
	assert_success
	peak=$(sed -n 's/^peak //p' <<<"$output")
	[ -n "$peak" ]
	echo "pair by pair, the job's peak: $((peak >> 20)) MiB"
	run in_memory_limit $((peak + (40 << 20))) bash -c "AGGREGATE=2; $job"
	assert_success
	assert_line 'STEPS calls=3 bad=0'
	assert_output --regexp "spank-ibnet alltoall: node to node needs a shared segment of 64(\\.0)? MiB on this node, but the job's memory limit leaves [0-9.]+ [KM]iB \\(in /.*ibnet-test\\.[0-9]+\\) and node to node takes at most half of it: these calls go pair by pair"
	refute_output --regexp 'Killed|signal 9'
	[ "$(nodes_count "$output" MPI_Alltoall)" = "" ]
}

@test "node-to-node segments shrink after 64 calls that use a quarter of them or less (their pages given back), and every call's bytes stay right" {
	needs openmpi
	# Grown for 16 KiB a pair, then 70 calls at 1 KiB: shrunk once, at the 64th.
	run ompi 4 2 "$BUILD/tests/a2a_steps.openmpi" 16384 3 1024 70
	assert_success
	assert_line 'STEPS calls=73 bad=0'
	assert_line 'spank-ibnet alltoall: rank 0: test: node data segments: 2 made, 1 of them shrinking'
}
