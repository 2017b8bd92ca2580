#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The benchmark's reports, from rows written here (no cluster): what
# devel/a2a-many's tables compute from its rows, and that make bench's
# report carries the many-ranks part of its own run (full run only).

load ../helpers/common

setup() {
	WORK=$(mktemp -d)
	ROWS=$WORK/rows.csv
	echo "what,layout,switch,variant,round,size,reps,median_s,min_s,max_s,drops,paced,nodes,result" > "$ROWS"
}
teardown() { rm -rf "$WORK"; }

@test "a2a-many's table: each cell against its link bound, with drops, and node to node over the MPI's own per round" {
	# 8 x 4 at 4 KiB: 4 ranks x 7 nodes x 4 ranks x 4096 B into one port at
	# 100 Mbit/s is 36.7 ms; 73.4 ms is 2.00x that.
	cat >> "$ROWS" <<-EOF
	micro,8x4,gige-lossy,default,1,4096,10,0.2000,0.19,0.21,1996,0,0,
	micro,8x4,gige-lossy,pairs,1,4096,10,0.0734,0.07,0.08,0,10,0,
	micro,8x4,gige-lossy,nodes,1,4096,10,0.0500,0.05,0.05,0,10,10,
	micro,8x4,gige-lossy,default,2,4096,10,0.4000,0.39,0.41,2500,0,0,
	micro,8x4,gige-lossy,pairs,2,4096,10,0.0734,0.07,0.08,0,10,0,
	micro,8x4,gige-lossy,nodes,2,4096,10,0.1000,0.10,0.10,0,10,10,
	EOF
	run python3 "$REPO/devel/bench/many_report.py" "$ROWS"
	assert_success
	# Medians over the two rounds: own 0.3 s, pairs 73.4 ms, nodes 75 ms.
	assert_line --partial '| 8 x 4 | 4 KiB | gige-lossy | 300.0 ms (8.17x bound, 2248 drops) | 73.4 ms (2.00x bound, 0 drops) | 75.0 ms (2.04x bound, 0 drops) | 0.25x, 0.25x | 0.68x, 1.36x |'
}

@test "a2a-many's QE table: the issue's ratios per interleaved round, and the energy of every job" {
	cat >> "$ROWS" <<-EOF
	qe,8x4,gige-fc,default,1,0,1,20.0,,,0,0,0,-62.09162475
	qe,8x4,gige-lossy,default,1,0,1,40.0,,,13000,0,0,-62.09162475
	qe,8x4,gige-lossy,pairs,1,0,1,21.0,,,0,628,0,-62.09162475
	qe,8x4,gige-fc,default,2,0,1,25.0,,,0,0,0,-62.09162475
	qe,8x4,gige-lossy,default,2,0,1,30.0,,,12000,0,0,-62.09162475
	qe,8x4,gige-lossy,pairs,2,0,1,27.5,,,0,628,0,-62.09162475
	EOF
	run python3 "$REPO/devel/bench/many_report.py" "$ROWS"
	assert_success
	assert_line '| 8 x 4 | lossy pair by pair / fc nothing asked | 1.05x, 1.10x | 1.08x |'
	assert_line '| 8 x 4 | lossy pair by pair / lossy nothing asked | 0.53x, 0.92x | 0.72x |'
	assert_line --partial '| 8 x 4 | gige-lossy, nothing asked | 35.0 s (30.0-40.0) | 12500 | 0 (0) | -62.09162475 |'
}

@test "make bench's report carries its own many-ranks part on a full run, not on a quick one" {
	mkdir -p "$WORK/full/bench" "$WORK/quick/bench"
	head -1 "$REPO/docs/bench/results.csv" | tee "$WORK/full/bench/results.csv" > "$WORK/quick/bench/results.csv"
	echo '### many ranks, written by this run' | tee "$WORK/full/bench/many-ranks-run.md" > "$WORK/quick/bench/many-ranks-run.md"
	run python3 "$REPO/devel/bench/report.py" --csv "$WORK/full/bench/results.csv" --out "$WORK/full"
	assert_success
	grep -q '^### many ranks, written by this run$' "$WORK/full/benchmarks.md"
	grep -q '^## Many ranks per node, this run' "$WORK/full/benchmarks.md"
	run python3 "$REPO/devel/bench/report.py" --csv "$WORK/quick/bench/results.csv" --out "$WORK/quick" --quick
	assert_success
	run grep -c 'written by this run' "$WORK/quick/benchmarks.md"
	assert_output 0
}

@test "make bench and make bench-long write one report: both parts' rows, both many-ranks parts" {
	# Each part writes its own CSV; the report reads whichever exist, so the
	# part that did not run keeps its last rows (devel/ibnet-bench's header).
	mkdir -p "$WORK/out/bench"
	head -1 "$REPO/docs/bench/results.csv" | tee "$WORK/out/bench/results.csv" > "$WORK/out/bench/long-results.csv"
	echo "qe,gige-fc,tcp,plain,4,4,0,0,10.000,10.000,10.000,0,0,-62.09162475" >> "$WORK/out/bench/results.csv"
	echo "lammps,gige-fc,tcp,plain,4,4,0,0,40.000,40.000,40.000,0,0,-47.1234" >> "$WORK/out/bench/long-results.csv"
	echo '### many ranks, make bench' > "$WORK/out/bench/many-ranks-run.md"
	echo '### many ranks, make bench-long' > "$WORK/out/bench/many-ranks-long.md"
	run python3 "$REPO/devel/bench/report.py" --csv "$WORK/out/bench/results.csv" \
		--csv "$WORK/out/bench/long-results.csv" --out "$WORK/out"
	assert_success
	run cat "$WORK/out/benchmarks.md"
	assert_line --regexp '^\| Quantum ESPRESSO `pw.x` \| gige-fc \| 4 \| nothing else asked \| 10.00 s '
	assert_line --regexp '^\| LAMMPS `lmp` \| gige-fc \| 4 \| nothing else asked \| 40.00 s '
	assert_line '### many ranks, make bench'
	assert_line '### many ranks, make bench-long'
	assert_line --partial '[bench/long-results.csv](bench/long-results.csv)'
	# The applications' paragraph describes the codes it has rows of, no other.
	assert_output --partial 'Two codes from Debian'
	refute_output --partial 'GROMACS `gmx_mpi` (the 6,495-atom'
}

@test "ibnet-bench: --long has no quick form, said before any cluster starts" {
	run "$REPO/devel/ibnet-bench" --quick --long --out "$WORK/none"
	assert_failure 2
	assert_output --partial '--long has no quick form'
	[ ! -e "$WORK/none" ]
}
