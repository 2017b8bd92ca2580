#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Load on the real 8-node cluster: 200 submissions at once, sbatch and srun,
# every transport, with and without --ordered-alltoall, bad input mixed in.
# Every good job ends with the environment it asked for, every bad one is
# refused with its sentence, no daemon dies and no node drains. The counts
# and the time taken are printed in the TAP output (and docs/reliability.md).

CLUSTER_NODES=8
load ../helpers/common
load ../helpers/cluster

@test "200 jobs at once: each gets what it asked for or its sentence; no daemon dies, no node drains" {
	local d=$BATS_TEST_TMPDIR i t a opt jid start end
	local -a jids=() want=() srun_pids=()
	local transports=(rsocket ipoib tcp none '')
	printf '#!/bin/bash\necho "got ${SLURM_IBNET_TRANSPORT-unset}/${SLURM_IBNET_ALLTOALL-unset} ${SLURM_IBNET_HOSTS-}"\n' \
		> "$d/job.sh"
	start=$(date +%s)
	# 120 good batch jobs: 5 transports x ordered or not, 1-4 nodes.
	for i in $(seq 0 119); do
		t=${transports[$((i % 5))]}
		a=$(( (i / 5) % 2 ))
		opt=()
		[ -n "$t" ] && opt+=(--transport="$t")
		[ "$a" = 1 ] && opt+=(--ordered-alltoall)
		jid=$(sbatch --parsable -N $((i % 4 + 1)) "${opt[@]}" -o "$d/b$i.out" "$d/job.sh") || {
			echo "good sbatch $i refused"; return 1; }
		jids+=("$jid")
		[ -z "$t" ] && t=none
		want[$i]="got $( [ "$t" = none ] && [ "$a" = 0 ] && echo unset/unset ||
			echo "$t/$( [ "$a" = 1 ] && echo paced || echo default)")"
	done
	# 20 bad sbatch: refused before queueing.
	local before refused=0
	before=$(sacct_count)
	for i in $(seq 1 10); do
		sbatch --transport="bogus$i" "$d/job.sh" 2>"$d/bad$i.err" && return 1
		grep -q "spank-ibnet: invalid --transport 'bogus$i'" "$d/bad$i.err" && refused=$((refused + 1))
		SLURM_IBNET_ALLTOALL=maybe sbatch "$d/job.sh" 2>"$d/bada$i.err" && return 1
		grep -q "spank-ibnet: invalid SLURM_IBNET_ALLTOALL 'maybe'" "$d/bada$i.err" && refused=$((refused + 1))
	done
	[ "$(sacct_count)" -eq "$before" ]
	# 10 bad jobs that are queued and fail at start with their sentence.
	local badjids=()
	for i in $(seq 1 10); do
		badjids+=("$(GAUSS_WDEF="c1-1 c1-$i" sbatch --parsable -N2 --transport=ipoib \
			-o "$d/w$i.out" "$d/job.sh")")
	done
	# 50 sruns in the background, every transport; 10 of them with a bad value.
	# Slurm 24.11 serves 50 concurrent sruns on this 2-core machine slowly
	# (the whole test took 340 s there against 18 s on 22.05, with or without
	# the plugin), so each srun may take up to 600 s before it counts as wrong.
	for i in $(seq 0 49); do
		t=${transports[$((i % 5))]}
		opt=()
		[ -n "$t" ] && opt+=(--transport="$t")
		[ $((i % 5)) = 4 ] && [ $((i % 10)) = 9 ] && opt=(--transport=carrier-pigeon)
		timeout 600 srun -N1 "${opt[@]}" bash -c 'echo "got ${SLURM_IBNET_TRANSPORT-unset}"' \
			> "$d/s$i.out" 2>&1 &
		srun_pids+=($!)
	done
	for i in "${!jids[@]}"; do
		"$CLUSTER" wait "${jids[$i]}" 300
	done
	for i in "${!badjids[@]}"; do
		"$CLUSTER" wait "${badjids[$i]}" 300
	done
	for i in "${!srun_pids[@]}"; do
		wait "${srun_pids[$i]}" || true
	done
	end=$(date +%s)

	local ok=0 bad_ok=0 srun_ok=0 srun_refused=0
	for i in $(seq 0 119); do
		if grep -q "^${want[$i]} " "$d/b$i.out" || grep -qx "${want[$i]} " "$d/b$i.out"; then
			ok=$((ok + 1))
		else
			echo "batch $i: want '${want[$i]}', got '$(cat "$d/b$i.out")'"
		fi
	done
	for i in $(seq 1 10); do
		grep -q "spank-ibnet: invalid GAUSS_WDEF 'c1-1 c1-$i'" "$d/w$i.out" && bad_ok=$((bad_ok + 1))
	done
	for i in $(seq 0 49); do
		t=${transports[$((i % 5))]}
		if [ $((i % 10)) = 9 ]; then
			grep -q "spank-ibnet: invalid --transport 'carrier-pigeon'" "$d/s$i.out" &&
				srun_refused=$((srun_refused + 1))
		else
			[ -z "$t" ] || [ "$t" = none ] && t=unset
			grep -qx "got $t" "$d/s$i.out" && srun_ok=$((srun_ok + 1)) ||
				echo "srun $i: want '$t', got '$(cat "$d/s$i.out")'"
		fi
	done
	echo "# load: 200 submissions in $((end - start)) s: batch $ok/120 right, bad sbatch $refused/20 refused before queueing, bad GAUSS_WDEF $bad_ok/10 failed with the sentence, srun $srun_ok/45 right, bad srun $srun_refused/5 refused" >&3
	# One check per line: bats fails a test on a failing command, but not on a
	# failing '&&' list that is not the test's last command.
	[ "$ok" -eq 120 ]
	[ "$refused" -eq 20 ]
	[ "$bad_ok" -eq 10 ]
	[ "$srun_ok" -eq 45 ]
	[ "$srun_refused" -eq 5 ]
	run sinfo -h -N -o '%N %t'
	refute_output --regexp 'drain|down|fail'
	run assert_daemons_healthy
	assert_success
}
