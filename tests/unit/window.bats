#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The window's controller (alltoall_window=auto, alltoall/ibnet_a2a_window.c)
# driven with a fake clock and a fake switch port, call after call
# (tests/programs/window_ctl.c): where it settles, within how many calls,
# never past its cap or the window that lost packets; and how the node's
# tally keeps the processes' windows (least and most, not a sum).

load ../helpers/common

@test "the window's controller settles on every fake port: deep, shallow, rate told or not, a round trip that grows, a fixed window" {
	run "$BUILD/tests/window_ctl"
	assert_success
	refute_line --partial 'FAIL:'
	# The expectations the program checks, each said as it held.
	assert_line 'ok: deep port, rate unknown, 4 x 1 MiB per pair: settles at a window that holds the whole call'
	assert_line 'ok: deep port, cap 1 MiB: settles at the cap, never above'
	assert_line 'ok: 96 KB port, 1 Gbit/s, rate unknown: at most 3 calls with loss'
	assert_line 'ok: 96 KB port, 1 Gbit/s, rate told: no call lost packets'
	assert_line 'ok: 24 KB port, 100 Mbit/s, rate told: stays at 16 KiB, no loss'
	assert_line 'ok: 512 KB port, 10 Gbit/s, the round trip now 500 us: grows after the round trip grew, to cover it again'
	assert_line 'ok: 96 KB port, 1 Gbit/s, rate told: covers rate x round trip'
	assert_line 'ok: deep port, rate unknown, 4 x 1 MiB per pair: the port has taken the whole call unpaced'
	assert_line 'ok: fixed 64 KiB on a 24 KB port: keeps 64 KiB and counts the losses'
	assert_line 'ok: deep port, 2 spurious retransmissions a call: no loss counted, the window holds the whole call'
	assert_line 'ok: 512 KB port, 10 Gbit/s, hosts that carry 2.5 Gbit/s: no loss, never past the port'
	assert_line 'ok: 512 KB port, 10 Gbit/s, hosts that carry 2.5 Gbit/s: stops because more bought nothing'
	assert_line 'ok: deep port, 50 retransmissions every call: never below 16 KiB'
	assert_line "ok: deep port, then the MPI's own calls lose: 3 MiB unpaced before, nothing after"
	assert_line 'ok: 24 KB port, 100 Mbit/s, a slow call in four, a drop every other call: never above 16 KiB'
	assert_line 'ok: 24 KB port, 100 Mbit/s, a slow call in four, a drop every other call: the drops add up to loss at 16 KiB'
	assert_line 'all expectations held'
	[ "$(grep -c '^ok: ' <<< "$output")" -eq 28 ]
}

@test "the node's tally keeps the least and the most window of its processes, and sums their calls with loss" {
	mkdir "$BATS_TEST_TMPDIR/t"
	printf 'MPI_Alltoall\tpaced\t3\nwindow\tleast\t65536\nwindow\tmost\t65536\nwindow\tround trip us\t300\nwindow\tlost\t1\n' \
		> "$BATS_TEST_TMPDIR/t/a2a.1"
	printf 'MPI_Alltoall\tpaced\t3\nwindow\tleast\t4194304\nwindow\tmost\t4194304\nwindow\tround trip us\t120\nwindow\tlost\t2\n' \
		> "$BATS_TEST_TMPDIR/t/a2a.2"
	run "$IBNET_HOSTS" --tally "$BATS_TEST_TMPDIR/t"
	assert_success
	assert_line 'processes=2 skipped=0'
	assert_line 'MPI_Alltoall: 6 calls: 6 paced'
	assert_line 'window reached 64 KiB to 4 MiB (auto); least credit round trip 120 us; 3 calls with loss'
}
