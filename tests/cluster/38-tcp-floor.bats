#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The TCP retransmission floor in real jobs: connections between simulated
# nodes (network namespaces, CUBIC as at sites), the kernel's own tcpi_rto
# of each end. Nodes c1-3, c1-4 and c1-5 run their slurmd with a test
# preload that hides TCP_RTO_MIN_US from the plugin's probe: an older kernel
# (Linux 5.10 to 6.14). c1-3 has the BPF tier off (tcp_rto_bpf=none), so it
# has no floor at all; c1-4 and c1-5 get it through the BPF tier, a sock_ops
# program the plugin attaches from slurmstepd to a cgroup of the step's.
# This machine's kernel (6.18) has the socket option, so without the preload
# every node would choose it and the BPF tier would never run here.

load ../helpers/common
load ../helpers/cluster

HIDE=$BUILD/tests/libhide-rto-min.so
A2A=$BUILD/libibnet-alltoall.so

setup_file() {
	python3 -c 'import socket; s = socket.socket(); s.setsockopt(6, 45, 10000)' 2>/dev/null ||
		skip "this kernel has no TCP_RTO_MIN_US (Linux 6.15 or later)"
	cluster_up -n 5 --node-preload 3 "$HIDE" --node-plugin-args 3 'tcp_rto_bpf=none' \
		--node-preload 4 "$HIDE" --node-preload 5 "$HIDE"
}
teardown_file() { cluster_down; }

PAIR=$REPO/tests/programs/tcp_rto_pair.py

# The BPF tier's tests need its object (clang, libbpf-dev) and bpftool to
# look at the kernel's attachments; CG2: the cgroup2 mount the plugin uses.
need_bpf() {
	[ -e "$BUILD/ibnet_tcp_floor.bpf.o" ] || skip "built without the BPF tier (clang, libbpf-dev)"
	command -v bpftool >/dev/null || skip "bpftool is not installed (devel/install-deps)"
	CG2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
	[ -n "$CG2" ] || skip "no cgroup2 mount on this machine"
}

# No program on any cgroup of job $1, and none of its cgroups left (this
# cluster's: under the mount itself; a stack's cluster running beside it has
# the same job numbers under its own ibnet-stack.PID cgroup); waits
# at most 10 s for the step's end (its exit callback) to finish.
assert_bpf_gone() {
	local jid=$1 i
	for i in $(seq 1 40); do
		! bpftool cgroup tree "$CG2" | grep -q "^$CG2/spank-ibnet/job_$jid\." &&
			! compgen -G "$CG2/spank-ibnet/job_$jid.*" >/dev/null && return 0
		sleep 0.25
	done
	echo "job $jid left:"; bpftool cgroup tree "$CG2"; ls "$CG2/spank-ibnet"
	return 1
}

# The step's RTO lines: each between $1 and $2 microseconds.
assert_rto_between() {
	local lo=$1 hi=$2 line us
	[ "$(grep -c '^RTO ' <<<"$output")" = 2 ] || { echo "not 2 RTO lines"; return 1; }
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge "$lo" ] && [ "$us" -lt "$hi" ] || { echo "not in [$lo, $hi): $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

# pair_job PORT SBATCH-ARGS...: a 2-node job whose step opens one TCP
# connection from c1-2 to c1-1 over eth0; prints each end's RTO line.
pair_job() {
	local port=$1
	shift
	printf '#!/bin/bash\necho "got ${SLURM_IBNET_TCP_RTO_MIN_US:-none}"\nsrun -N2 --ntasks-per-node=1 %s c1-1 %s\n' \
		"$PAIR" "$port" > "$BATS_TEST_TMPDIR/job.sh"
	batch "$BATS_TEST_TMPDIR/out" "$@" "$BATS_TEST_TMPDIR/job.sh"
}

@test "sbatch --ordered-alltoall: both ends of a connection between two nodes have a retransmission floor; a job that asks for nothing keeps 200 ms; the nodes run CUBIC" {
	run pair_job 5611 -w c1-[1-2] --transport=tcp --ordered-alltoall
	assert_success
	assert_line --regexp '^got 1[0-9]000$'
	[ "$(grep -c '^RTO ' <<<"$output")" = 2 ]
	local line us
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -lt 100000 ] || { echo "no floor: $line"; return 1; }
		[[ "$line" == *" cc=cubic" ]]
	done < <(grep '^RTO ' <<<"$output")
	run pair_job 5612 -w c1-[1-2]
	assert_success
	assert_line 'got none'
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge 200000 ] || { echo "touched: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

@test "sbatch --transport=tcp --tcp-rto-min=20ms, no MPI: the floor alone, 20 ms" {
	run pair_job 5613 -w c1-[1-2] --transport=tcp --tcp-rto-min=20ms
	assert_success
	assert_line 'got 20000'
	local line
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge 20000 ] && [ "$us" -lt 100000 ] || { echo "not 20 ms: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

@test "sbatch --tcp-rto-min without a value: the site's floor in the batch script and its srun steps" {
	# sbatch hands an optional argument it was not given to the steps as "(null)".
	run pair_job 5615 -w c1-[1-2] --transport=tcp --tcp-rto-min
	assert_success
	assert_line --regexp '^got 1[0-9]000$'
	[ "$(grep -c '^RTO ' <<<"$output")" = 2 ]
	local line
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -lt 100000 ] || { echo "no floor: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
}

@test "a node whose kernel lacks TCP_RTO_MIN_US and whose site has the BPF tier off runs the step without the floor, logs both reasons, and stays up" {
	printf '#!/bin/bash\necho "got ${SLURM_IBNET_TCP_RTO_MIN_US:-none}"\nsrun -n2 %s c1-3 5614\n' \
		"$PAIR" > "$BATS_TEST_TMPDIR/job.sh"
	run batch "$BATS_TEST_TMPDIR/out" -w c1-3 -n2 --transport=tcp --ordered-alltoall "$BATS_TEST_TMPDIR/job.sh"
	assert_success
	assert_line 'got none'
	local line
	while read -r line; do
		us=$(sed -n 's/.* rto_us=\([0-9]*\).*/\1/p' <<<"$line")
		[ "$us" -ge 200000 ] || { echo "floor on a node without it: $line"; return 1; }
	done < <(grep '^RTO ' <<<"$output")
	# Both tiers' reasons: the kernel's, and the site's (tcp_rto_bpf=none on c1-3).
	run grep -c "no TCP retransmission floor (--ordered-alltoall): this node's kernel has no TCP_RTO_MIN_US socket option (Linux 6.15 or later), and no BPF tier: the site has the BPF tier off (tcp_rto_bpf=none)" \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-3.log"
	[ "$output" -ge 1 ]
	run nodes_state
	assert_line 'c1-3 idle'
	assert_daemons_healthy
}

# bpf_job PORT SBATCH-ARGS...: pair_job between c1-4 and c1-5, whose slurmd
# hide TCP_RTO_MIN_US; the step's tasks hide it too (the job preload set
# before the hiding one, so the preload's own setsockopt is refused as on an
# old kernel): only the BPF tier can give their sockets a floor. Prints the
# job id, the tasks' LD_PRELOAD, and each end's RTO line.
bpf_job() {
	local port=$1
	shift
	printf '#!/bin/bash\necho "job $SLURM_JOB_ID got ${SLURM_IBNET_TCP_RTO_MIN_US:-none}"\nexport LD_PRELOAD=%s:%s\nsrun -N1 -w c1-4 sh -c %s\nsrun -N2 --ntasks-per-node=1 %s c1-4 %s\n' \
		"$A2A" "$HIDE" "'echo preload=\$LD_PRELOAD'" "$PAIR" "$port" > "$BATS_TEST_TMPDIR/job.sh"
	batch "$BATS_TEST_TMPDIR/out" -w c1-[4-5] "$@" "$BATS_TEST_TMPDIR/job.sh"
}

@test "nodes whose kernel lacks TCP_RTO_MIN_US: sbatch --ordered-alltoall gets the floor by the BPF tier on both ends, under 50 ms; no program attached and no cgroup left after; a job that asks for nothing keeps 200 ms" {
	need_bpf
	run bpf_job 5621 --transport=tcp --ordered-alltoall
	assert_success
	assert_line --regexp '^job [0-9]+ got 1[0-9]000$'
	assert_rto_between 10000 50000
	local jid n
	jid=$(sed -n 's/^job \([0-9]*\) got.*/\1/p' <<<"$output")
	for n in 4 5; do
		# The plan names the tier, and the program's own count shows it set the floor.
		grep -q "job $jid step 1 on c1-$n: .*TCP retransmission floor 1[0-9]000 us (--ordered-alltoall) by bpf" \
			"$IBNET_CLUSTER_DIR/log/slurmd-c1-$n.log"
		grep -E -q "job $jid step 1 on c1-$n: TCP retransmission floor 1[0-9]000 us \(bpf\): [1-9][0-9]* floors? given" \
			"$IBNET_CLUSTER_DIR/log/slurmd-c1-$n.log"
	done
	assert_bpf_gone "$jid"
	run bpf_job 5622
	assert_success
	assert_line --regexp '^job [0-9]+ got none$'
	assert_rto_between 200000 1000000
	jid=$(sed -n 's/^job \([0-9]*\) got.*/\1/p' <<<"$output")
	# Nothing asked: no cgroup was made, so no log line of the tier's either.
	run grep -h "job $jid .*(bpf)" "$IBNET_CLUSTER_DIR"/log/slurmd-c1-4.log "$IBNET_CLUSTER_DIR"/log/slurmd-c1-5.log
	assert_failure 1
	assert_bpf_gone "$jid"
}

@test "nodes whose kernel lacks TCP_RTO_MIN_US: --transport=tcp --tcp-rto-min=20ms by the BPF tier needs no job preload in the tasks" {
	need_bpf
	printf '#!/bin/bash\necho "job $SLURM_JOB_ID got ${SLURM_IBNET_TCP_RTO_MIN_US:-none}"\nsrun -N1 -w c1-4 sh -c %s\nsrun -N2 --ntasks-per-node=1 %s c1-4 5623\n' \
		"'echo preload=\$LD_PRELOAD'" "$PAIR" > "$BATS_TEST_TMPDIR/job.sh"
	run batch "$BATS_TEST_TMPDIR/out" -w c1-[4-5] --transport=tcp --tcp-rto-min=20ms "$BATS_TEST_TMPDIR/job.sh"
	assert_success
	assert_line --regexp '^job [0-9]+ got 20000$'
	assert_line --regexp '^preload='
	refute_line --regexp '^preload=.*libibnet-alltoall'
	assert_rto_between 20000 50000
	assert_bpf_gone "$(sed -n 's/^job \([0-9]*\) got.*/\1/p' <<<"$output")"
}

@test "a slurmstepd killed with SIGKILL leaves no program attached (its link dies with it), and the job's epilog removes its cgroup" {
	need_bpf
	local jid dir task stepd i
	printf '#!/bin/bash\nsrun -N1 sleep 30\n' > "$BATS_TEST_TMPDIR/job.sh"
	jid=$(sbatch --parsable -o "$BATS_TEST_TMPDIR/out" -w c1-4 --transport=tcp --tcp-rto-min=20ms \
		"$BATS_TEST_TMPDIR/job.sh")
	dir=$CG2/spank-ibnet/job_$jid.step_0.c1-4
	for i in $(seq 1 60); do
		# (cgroup.procs has no size: read it.)
		[ -n "$(cat "$dir/cgroup.procs" 2>/dev/null)" ] &&
			bpftool cgroup show "$dir" 2>/dev/null | grep -q ibnet_tcp_floor && break
		sleep 0.5
	done
	bpftool cgroup show "$dir" | grep -q ibnet_tcp_floor
	task=$(head -1 "$dir/cgroup.procs")
	[[ "$task" =~ ^[0-9]+$ ]]
	stepd=$(pgrep -f "^slurmstepd: \[$jid\.0\]\$")
	[[ "$stepd" =~ ^[0-9]+$ ]]
	kill -9 "$stepd"
	for i in $(seq 1 20); do
		bpftool cgroup show "$dir" | grep -q ibnet_tcp_floor || break
		sleep 0.25
	done
	run bpftool cgroup show "$dir"
	refute_output --partial ibnet_tcp_floor
	# The task outlived its slurmstepd: proctrack/pgid no longer reaches it.
	[ -d "$dir" ]
	scancel "$jid"
	"$CLUSTER" wait "$jid" 60
	for i in $(seq 1 40); do
		[ -d "$dir" ] || break
		sleep 0.5
	done
	kill "$task" 2>/dev/null || true	# the orphan this test made
	[ ! -d "$dir" ]
	grep -q "job $jid: the TCP retransmission floor's cgroups of steps whose slurmstepd was killed: job_$jid.step_0.c1-4" \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-4.log"
	assert_bpf_gone "$jid"
}

# The kernel's retransmission timeouts in node c1-N's network namespace.
kernel_timeouts() {
	nsenter --net="/run/netns/ibnet-c1-$1" nstat -asz TcpExtTCPTimeouts | awk '/TcpExtTCPTimeouts/ {print $2}'
}

# lossy_job NODE_A NODE_B TIER: a job over ib0 between the two nodes with 5%
# of its data segments lost on the way in; the step's log lines' timeouts
# (the tier's words), summed over both nodes, against the kernel's
# TcpExtTCPTimeouts of the two nodes, within 10%. Sets jid.
lossy_job() {
	local a=$1 b=$2 tier=$3 port=5631 n before=0 after=0 ours kernel
	# 5% of the data segments of the test's connection lost on the way into
	# each node, on ib0 only (the kernel has no netem here; nft drops them):
	# Slurm's own traffic is on eth0 and loses nothing.
	for n in "$a" "$b"; do
		nsenter --net="/run/netns/ibnet-c1-$n" nft -f - <<-NFT
		table inet ibnet_test_loss {
			chain in {
				type filter hook input priority 0;
				iifname "ib0" tcp dport $port ip length > 200 numgen random mod 100 < 5 drop
				iifname "ib0" tcp sport $port ip length > 200 numgen random mod 100 < 5 drop
			}
		}
		NFT
		before=$(( before + $(kernel_timeouts "$n") ))
	done
	printf '#!/bin/bash\necho "job $SLURM_JOB_ID"\nsrun -N2 --ntasks-per-node=1 %s cib1-%s %s 2000 20000 40\n' \
		"$REPO/tests/programs/tcp_lossy_nodes.py" "$a" "$port" > "$BATS_TEST_TMPDIR/job.sh"
	run batch "$BATS_TEST_TMPDIR/out" -w "c1-$a,c1-$b" --transport=tcp --tcp-rto-min=20ms "$BATS_TEST_TMPDIR/job.sh"
	for n in "$a" "$b"; do
		after=$(( after + $(kernel_timeouts "$n") ))
		nsenter --net="/run/netns/ibnet-c1-$n" nft delete table inet ibnet_test_loss
	done
	assert_success
	assert_line --regexp '^rounds=[0-9]+ in '
	jid=$(sed -n 's/^job \([0-9]*\)$/\1/p' <<<"$output")
	# Every step of the job, on both nodes: each node counts its own sockets.
	ours=$(cat "$IBNET_CLUSTER_DIR/log/slurmd-c1-$a.log" "$IBNET_CLUSTER_DIR/log/slurmd-c1-$b.log" |
		sed -n "s/.*job $jid .*TCP retransmission floor [0-9]* us ($tier): [0-9]* floors\{0,1\} given, \([0-9]*\) retransmission timeout.*/\1/p" |
		awk '{s += $1} END {print s + 0}')
	kernel=$(( after - before ))
	echo "log lines ($tier): $ours timeouts; kernel: $kernel"
	[ "$kernel" -ge 5 ]
	[ $(( (ours - kernel) * (ours - kernel) * 100 )) -le $(( kernel * kernel )) ]
}

@test "under loss, a one-job cluster: the BPF tier's retransmission timeouts in the step's log lines, summed over the nodes, match the kernel's TcpExtTCPTimeouts within 10%" {
	need_bpf
	local jid
	lossy_job 4 5 bpf
	assert_bpf_gone "$jid"
}

@test "under loss, a one-job cluster: the socket option's counts (the preload's TCP_INFO, through the step's tally) in the step's log lines match the kernel's TcpExtTCPTimeouts within 10%" {
	local jid
	lossy_job 1 2 'socket option'
}
