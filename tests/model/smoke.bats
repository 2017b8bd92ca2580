#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The model at scale's smoke run (devel/smpi-model, issue 42; make
# model-smoke, CI on Debian 12 only): the paced library's own code under
# SimGrid's SMPI with ns-3's packet-level TCP. Simulated: no packet here
# leaves this process. What it asserts is what the projections stand on:
# the calibrated cell still within 25% of its measurement, the library's
# bytes still SMPI's own, and no projected time under the link's bound.

load ../helpers/common

setup_file() {
	make -s -C "$REPO" -f devel/smpi-model/build.mk build/smpi-model/a2a_bench_model build/smpi-model/a2a_check_model >&2
}

@test "model: the calibrated cell (8 x 4, 100 Mbit/s, 16 MB ports, 4 KiB) is within 25% of the 16-core run, the MPI's own and paced" {
	run "$REPO/devel/smpi-model/project" --smoke "$BATS_FILE_TMPDIR/smoke"
	echo "$output"
	assert_success
	assert_line --regexp '^CALIBRATION 8x4 own size=4096 .* within 25%$'
	assert_line --regexp '^CALIBRATION 8x4 paced size=4096 .* within 25%$'
	refute_line --partial 'OUTSIDE'
	[ -s "$BATS_FILE_TMPDIR/smoke/at-scale-projections.md" ]
}

@test "model: no projected time is under its link bound (a node's bytes to other nodes at its port's rate)" {
	local csv=$BATS_FILE_TMPDIR/smoke/projections.csv
	[ -s "$csv" ] || skip "the calibrated cell's run above made no rows"
	# 16 x 1 at 10 Gbit/s, 4 KiB: 15 x 4096 x 8 bits / 10^10 = 49.2 us.
	run awk -F, 'NR > 1 && $5 == "plain" {
		n++; bound = $2 * $2 * ($1 - 1) * $6 * 8 / ($3 * 1e9)
		if ($9 < bound) { print "under its bound: " $0; bad++ } }
		END { print n " projected rows"; exit (n == 0 || bad > 0) }' "$csv"
	echo "$output"
	assert_success
}

@test "model: the library's all-to-all gives SMPI's own bytes, 2 x 2 ranks on 24 KB ports, 6 random cases" {
	run env MODEL_PROGRAM=a2a_check_model SLURM_IBNET_ALLTOALL_THRESHOLD=0 \
		"$REPO/devel/smpi-model/run" 2 2 100Mbps 24000 paced 3 6
	echo "$output"
	assert_success
	assert_line --regexp '^CHECK cases=6 ranks=4 failures=0'
}

@test "project_report.py refuses a calibration more than 25% off, naming the cell" {
	local dir=$BATS_TEST_TMPDIR
	{
		echo "nodes,ranks_per_node,gbps,port_bytes,ports,size,scheme,reps,median_s,min_s,max_s,drops,timeouts,run_s"
		echo "8,4,0.1,16000000,shaped,4096,own,3,0.039,0.039,0.039,0,0,1.0"
		echo "8,4,0.1,16000000,shaped,4096,paced,3,0.080,0.080,0.080,0,0,1.0"
	} >"$dir/rows.csv"
	run python3 "$REPO/devel/smpi-model/project_report.py" "$dir/rows.csv" "$dir"
	echo "$output"
	assert_failure 1
	assert_line --regexp '^CALIBRATION 8x4 own size=4096 .* within 25%$'
	assert_line --partial 'not within 25% of the measurement in paced at 4 KiB: 2.00x'
}
