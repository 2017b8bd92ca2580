#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What the libraries preloaded into a job's processes say reaches stderr one
# whole line per write(2) (contract/ibnet_say_line.h says why: from glibc
# 2.37, fprintf to unbuffered stderr wrote 128 bytes at a time, and ranks
# sharing the step's stderr cut each other's lines). Each write is read as
# one datagram (tests/programs/stderr_writes.py). On glibc 2.36 (Debian 12)
# fprintf wrote whole lines too; the Debian 13 and testing stacks are where
# these tests failed before the mend.

load ../helpers/common
load ../helpers/alltoall

WRITES=$REPO/tests/programs/stderr_writes.py

# whole_lines OUTPUT LEAST: every write of ours ("spank-ibnet ...") a whole
# line (one newline, at its end: a line cut in pieces shows as a first
# piece without it), at least one of them LEAST bytes or more (else the test
# proves nothing of 128-byte pieces). What the MPI itself writes is not ours
# to judge.
whole_lines() {
	local longest=0 n bad
	bad=$(grep '^WRITE [0-9]* spank-ibnet ' <<<"$1" | grep -v '^WRITE [0-9]* [^\\]*\\n$' || true)
	if [ -n "$bad" ]; then
		echo "writes that are not one whole line:"
		echo "$bad"
		return 1
	fi
	while read -r n; do
		[ "$n" -gt "$longest" ] && longest=$n
	done < <(sed -n 's/^WRITE \([0-9]*\) spank-ibnet .*/\1/p' <<<"$1")
	echo "longest write: $longest bytes"
	[ "$longest" -ge "$2" ]
}

@test "ibnet_say_line: each line one write ending in its newline; a line too long cut to 2,047 bytes ending '...'" {
	run python3 "$WRITES" "$BUILD/tests/say_line" 0 127 128 300 2046 2047 5000
	assert_success
	assert_line 'EXIT 0'
	[ "$(grep -c '^WRITE ' <<<"$output")" -eq 7 ]
	assert_line 'WRITE 1 \n'
	assert_line --regexp '^WRITE 128 L127:x{122}\\n$'
	assert_line --regexp '^WRITE 129 L128:x{123}\\n$'
	assert_line --regexp '^WRITE 301 L300:x{295}\\n$'
	assert_line --regexp '^WRITE 2047 L2046:x{2040}\\n$'
	assert_line --regexp '^WRITE 2047 L2047:x{2037}\.\.\.\\n$'
	assert_line --regexp '^WRITE 2047 L5000:x{2037}\.\.\.\\n$'
}

@test "the job preload's refusal of a TCP floor, longer than 128 bytes, is one write" {
	local bad
	bad=$(printf 'fast%.0s' {1..40})
	run python3 "$WRITES" env LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US="$bad" \
		python3 -c 'import socket; socket.socket()'
	assert_success
	assert_line 'EXIT 0'
	assert_line --regexp "^WRITE [0-9]+ spank-ibnet tcp: SLURM_IBNET_TCP_RTO_MIN_US: 'fast.*' is not a number of microseconds .*; no retransmission floor\\\\n$"
	whole_lines "$output" 129
}

@test "the paced library's report, every rank's lines one write each, Open MPI and MPICH, 4 ranks 2 to a node" {
	local launcher
	for launcher in ompi mpich; do
		prog=$BUILD/tests/a2a_check.openmpi
		[ "$launcher" = mpich ] && prog=$BUILD/tests/a2a_check.mpich
		run "$launcher" 4 2 python3 "$WRITES" "$prog" 3 10
		echo "$launcher: $output" | head -40
		assert_success
		assert_line 'CHECK cases=10 ranks=4 failures=0'
		[ "$(grep -c '^EXIT 0$' <<<"$output")" -eq 4 ]
		# Each rank's window line (about 190 bytes) among them.
		[ "$(grep -c '^WRITE [0-9]* spank-ibnet alltoall: rank [0-3]: window ' <<<"$output")" -eq 4 ]
		whole_lines "$output" 129
	done
}
