#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/helpers/bounded, which every unit test's MPI run goes through: a run
# past its limit fails as timeout(1) fails it, but shows first where each of
# its processes was, and leaves none of them behind.

load ../helpers/common
bats_require_minimum_version 1.5.0

BOUNDED=$BATS_TEST_DIRNAME/../helpers/bounded

@test "bounded: a command past its limit ends with 124, its processes shown first (stacks where gdb is), none left behind" {
	local start pids p
	start=$SECONDS
	# The sleeps outlast the test's bound: were they left running, bats would
	# wait on them (they hold its output). Up to 3 gdbs of up to 30 s each
	# under load (one took 20 s in CI) fit below it.
	run --separate-stderr "$BOUNDED" 2 bash -c 'sleep 297 & a=$!; sleep 298 & echo "pids $$ $a $!"; wait'
	[ "$status" -eq 124 ]
	[ $((SECONDS - start)) -lt 150 ]
	pids=$(sed -n 's/^pids //p' <<<"$output")
	[ -n "$pids" ]
	grep -q "^bounded: 'bash' still running after 2 s" <<<"$stderr"
	grep -q '^bounded: process [0-9]*: sleep 297 $' <<<"$stderr"
	grep -q '^bounded: process [0-9]*: sleep 298 $' <<<"$stderr"
	grep -q '^bounded:   state S, waiting in ' <<<"$stderr"
	if command -v gdb >/dev/null; then
		grep -q '^bounded:   #0 ' <<<"$stderr"
	fi
	# The shell and both its sleeps are gone.
	[ "$(wc -w <<<"$pids")" -eq 3 ]
	for p in $pids; do
		# (a zombie not yet reaped by whoever inherited it counts as gone)
		if [ -e "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ]; then
			echo "process $p outlived its limit"
			return 1
		fi
	done
}

@test "bounded: within its limit, the command's own status and output, unchanged" {
	run "$BOUNDED" 30 sh -c 'echo out; exit 3'
	[ "$status" -eq 3 ]
	[ "$output" = out ]
	run "$BOUNDED" 30 true
	[ "$status" -eq 0 ]
	run "$BOUNDED" soon true
	[ "$status" -eq 125 ]
	[ "$output" = "usage: bounded SECONDS COMMAND ARGS..." ]
}
